/**
 * Builders and probes shared by the end-to-end scenarios: the objects users create on the Karmada
 * control plane, and what the tests read back from it and from the members.
 */
import type { V1Deployment } from '@kubernetes/client-node';
import {
  findTaint,
  type Placement,
  type TaintIdentity,
  type PropagationPolicy,
  type ResourceBinding,
  type Taint,
} from '@kf/api';
import { isNotFound } from '@kf/kube';
import { demoDeployment, type FailoverFederation } from '@kf/testing';

export const NAMESPACE = 'default';

export const TAINTS: Readonly<Record<'unreachable' | 'notReadySchedule' | 'notReadyExecute', TaintIdentity>> =
  {
    unreachable: { key: 'cluster.karmada.io/unreachable', effect: 'NoSchedule' },
    notReadySchedule: { key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' },
    notReadyExecute: { key: 'cluster.karmada.io/not-ready', effect: 'NoExecute' },
  };

/** A PropagationPolicy selecting one Deployment. */
export function policyFor(
  deployment: string,
  placement: Placement,
  extra: Partial<PropagationPolicy['spec']> = {},
): PropagationPolicy {
  return {
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name: `${deployment}-propagation`, namespace: NAMESPACE },
    spec: {
      resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment }],
      placement,
      ...extra,
    },
  };
}

/** Creates the policy first (so the detector matches at once), then the Deployment template. */
export async function propagate(
  fed: FailoverFederation,
  policy: PropagationPolicy,
  deployment: V1Deployment,
): Promise<void> {
  await fed.policies.create(policy);
  await fed.apps.createNamespacedDeployment({ namespace: NAMESPACE, body: deployment });
}

export { demoDeployment };

export function bindingName(deployment: string): string {
  return `${NAMESPACE}/${deployment}-deployment`;
}

export async function binding(
  fed: FailoverFederation,
  deployment: string,
): Promise<ResourceBinding | undefined> {
  return fed.bindings.find(bindingName(deployment));
}

/** The binding's placement as `{ cluster: replicas }` (undefined before it exists). */
export async function placement(
  fed: FailoverFederation,
  deployment: string,
): Promise<Record<string, number> | undefined> {
  const b = await binding(fed, deployment);
  if (b === undefined) return undefined;
  return Object.fromEntries((b.spec.clusters ?? []).map((c) => [c.name, c.replicas ?? 0]));
}

/** Member → the Work of this Deployment in its execution namespace (with deletion state). */
export async function worksOf(
  fed: FailoverFederation,
  deployment: string,
): Promise<Record<string, { deleting: boolean; replicas: number | undefined }>> {
  const { items } = await fed.works.list();
  const out: Record<string, { deleting: boolean; replicas: number | undefined }> = {};
  for (const w of items) {
    if (w.metadata.annotations?.['resourcebinding.karmada.io/name'] !== `${deployment}-deployment`) continue;
    const cluster = (w.metadata.namespace ?? '').replace(/^karmada-es-/, '');
    const manifest = w.spec.workload?.manifests?.[0] as { spec?: { replicas?: number } } | undefined;
    out[cluster] = {
      deleting: w.metadata.deletionTimestamp !== undefined,
      replicas: manifest?.spec?.replicas,
    };
  }
  return out;
}

export interface MemberCopy {
  readonly uid: string;
  readonly replicas: number;
  readonly available: number;
}

/** The Deployment on a member (undefined when absent). */
export async function memberCopy(
  fed: FailoverFederation,
  member: string,
  name: string,
): Promise<MemberCopy | undefined> {
  try {
    const d = await fed.memberApps(member).readNamespacedDeployment({ name, namespace: NAMESPACE });
    return {
      uid: d.metadata?.uid ?? '',
      replicas: d.spec?.replicas ?? 0,
      available: d.status?.availableReplicas ?? 0,
    };
  } catch (err: unknown) {
    if (isNotFound(err) || (err as { code?: number }).code === 404) return undefined;
    throw err;
  }
}

/** True when the member runs the Deployment with `replicas` replicas, all available. */
export async function runsAvailable(
  fed: FailoverFederation,
  member: string,
  name: string,
  replicas: number,
): Promise<boolean> {
  const copy = await memberCopy(fed, member, name);
  return copy !== undefined && copy.replicas === replicas && copy.available === replicas;
}

export async function clusterTaint(
  fed: FailoverFederation,
  cluster: string,
  wanted: TaintIdentity,
): Promise<Taint | undefined> {
  const c = await fed.clusters.get(cluster);
  return findTaint(c.spec.taints, wanted);
}

/** Polls every `intervalMs` until `probe` holds; returns the time it first held (ms epoch). */
export async function until(
  what: string,
  probe: () => Promise<boolean>,
  timeoutMs = 90_000,
  intervalMs = 200,
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      if (await probe()) return Date.now();
    } catch (err: unknown) {
      last = err;
    }
    if (Date.now() > deadline) {
      const detail = last instanceof Error ? ` (last error: ${last.message})` : '';
      throw new Error(`${what}: not true after ${timeoutMs} ms${detail}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Checks `condition` every 250 ms for `ms` and fails the first time it does not hold. */
export async function holdsFor(ms: number, what: string, condition: () => Promise<boolean>): Promise<void> {
  const endAtMs = Date.now() + ms;
  while (Date.now() < endAtMs) {
    if (!(await condition())) throw new Error(`${what} stopped holding`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Seconds-precision RFC 3339 time → ms epoch. */
export function timeMs(t: string | undefined): number {
  if (t === undefined) throw new Error('no time');
  return Date.parse(t);
}

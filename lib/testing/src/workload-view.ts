/**
 * What a person would look at while a workload fails over: where its binding places it, which
 * Works exist for it (and whether they are being deleted), and its copy on each member.
 */
import { isNotFound } from '@kf/kube';
import type { FailoverFederation } from './failover-federation.ts';

/** The binding's placement as `{ cluster: replicas }` (undefined before the binding exists). */
export async function placementOf(
  fed: FailoverFederation,
  bindingKey: string,
): Promise<Record<string, number> | undefined> {
  const b = await fed.bindings.find(bindingKey);
  if (b === undefined) return undefined;
  return Object.fromEntries((b.spec.clusters ?? []).map((c) => [c.name, c.replicas ?? 0]));
}

/** `{ member1: 1, member2: 2 }` as `member1:1, member2:2`. */
export function formatPlacement(p: Readonly<Record<string, number>> | undefined): string {
  if (p === undefined) return '(no binding)';
  const parts = Object.entries(p).map(([c, n]) => `${c}:${n}`);
  return parts.length === 0 ? '(nowhere)' : parts.join(', ');
}

export interface WorkState {
  readonly deleting: boolean;
  /** `spec.replicas` of its first manifest, when it has one. */
  readonly replicas: number | undefined;
}

/** Member → the Work made from a binding (by its `resourcebinding.karmada.io/name` annotation). */
export async function worksOfBinding(
  fed: FailoverFederation,
  bindingName: string,
): Promise<Record<string, WorkState>> {
  const { items } = await fed.works.list();
  const out: Record<string, WorkState> = {};
  for (const w of items) {
    if (w.metadata.annotations?.['resourcebinding.karmada.io/name'] !== bindingName) continue;
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
  /** `metadata.generation`: moves with every change to its spec. */
  readonly generation: number;
  readonly replicas: number;
  readonly available: number;
}

/** The Deployment on a member (undefined when absent). */
export async function memberDeployment(
  fed: FailoverFederation,
  member: string,
  namespace: string,
  name: string,
): Promise<MemberCopy | undefined> {
  try {
    const d = await fed.memberApps(member).readNamespacedDeployment({ name, namespace });
    return {
      uid: d.metadata?.uid ?? '',
      generation: d.metadata?.generation ?? 0,
      replicas: d.spec?.replicas ?? 0,
      available: d.status?.availableReplicas ?? 0,
    };
  } catch (err: unknown) {
    if (isNotFound(err) || (err as { code?: number }).code === 404) return undefined;
    throw err;
  }
}

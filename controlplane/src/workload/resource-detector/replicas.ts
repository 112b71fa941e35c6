/**
 * Replicas and per-replica requirements of a template, as upstream's default resource
 * interpreter reads them (`GetReplicas`): Deployment, StatefulSet and ReplicaSet from
 * `spec.replicas` and the pod template; every other kind has no replicas. A kind a
 * ResourceInterpreterCustomization gives an InterpretReplica script has its replicas from that
 * script instead, built-in kinds included: upstream asks the customized interpreters before the
 * built-in one. With gate MultiplePodTemplatesScheduling, a kind with an InterpretComponent script
 * has components (its pod templates, each with replicas and requirements) instead of replicas.
 */
import {
  parseMilli,
  type Component,
  type NodeClaim,
  type NodeSelector,
  type ReplicaRequirements,
  type ResourceList,
  type Toleration,
} from '@kf/api';
import type { ResourceInterpreter } from '@kf/interpreter';
import { runScript, type ScriptOutcome, type ScriptStep } from '../interpreter/script-condition.ts';
import { asKubeObject, recordOf, type ResourceTemplate } from '../template.ts';

export interface TemplateReplicas {
  readonly replicas: number;
  readonly replicaRequirements: ReplicaRequirements | undefined;
  /** The workload's pod templates, when an InterpretComponent script gave them (no replicas then). */
  readonly components?: readonly Component[];
}

/** Kinds whose `spec.replicas` and `spec.template` describe identical pods. */
const REPLICATED_KINDS: ReadonlySet<string> = new Set([
  'apps/v1/Deployment',
  'apps/v1/StatefulSet',
  'apps/v1/ReplicaSet',
]);

export function isReplicatedKind(apiVersion: string | undefined, kind: string | undefined): boolean {
  return REPLICATED_KINDS.has(`${apiVersion ?? ''}/${kind ?? ''}`);
}

export function replicasOf(t: ResourceTemplate): TemplateReplicas {
  if (!isReplicatedKind(t.apiVersion, t.kind)) return { replicas: 0, replicaRequirements: undefined };
  const replicas = t.spec?.['replicas'];
  const pod = recordOf(recordOf(t.spec?.['template'])?.['spec']);
  return {
    replicas: typeof replicas === 'number' ? replicas : 0,
    replicaRequirements: pod === undefined ? undefined : requirementsOf(pod, t.metadata.namespace),
  };
}

/**
 * The template's replicas from its kind's InterpretReplica script: `none` when no customization
 * scripts it (the built-in rules of {@link replicasOf} apply), `failed` when the script fails.
 * The requirements are taken as the script gives them (upstream fills in the namespace only with
 * its ResourceQuotaEstimate gate, which is off by default).
 */
export function interpretedReplicas(
  t: ResourceTemplate,
  interpreter: ResourceInterpreter | undefined,
): ScriptOutcome<TemplateReplicas> {
  return runScript(interpreter, (i) => {
    const result = i.getReplicas(asKubeObject(t));
    return result === undefined
      ? undefined
      : { replicas: result.replicas, replicaRequirements: result.requirements };
  });
}

/** Which script sized the workload, and what it came to. */
export interface InterpretedWorkload {
  readonly step: Extract<ScriptStep, 'GetReplicas' | 'GetComponents'>;
  readonly outcome: ScriptOutcome<TemplateReplicas>;
}

/**
 * The template's size from its kind's scripts, as upstream's detector asks: with gate
 * MultiplePodTemplatesScheduling an InterpretComponent script comes first, and its components
 * replace replicas and requirements (a failure stops there: the binding keeps what it has);
 * without the gate or such a script, {@link interpretedReplicas}.
 */
export function interpretedWorkload(
  t: ResourceTemplate,
  interpreter: ResourceInterpreter | undefined,
  multiplePodTemplates: boolean,
): InterpretedWorkload {
  if (multiplePodTemplates) {
    const outcome = runScript(interpreter, (i) => {
      const components = i.getComponents(asKubeObject(t));
      return components === undefined
        ? undefined
        : { replicas: 0, replicaRequirements: undefined, components };
    });
    if (outcome.kind !== 'none') return { step: 'GetComponents', outcome };
  }
  return { step: 'GetReplicas', outcome: interpretedReplicas(t, interpreter) };
}

/** Node claim and summed requests of one pod; undefined when the pod asks for nothing. */
export function requirementsOf(
  pod: Readonly<Record<string, unknown>>,
  namespace: string | undefined,
): ReplicaRequirements | undefined {
  const nodeClaim = nodeClaimOf(pod);
  const resourceRequest = podRequests(pod);
  if (nodeClaim === undefined && resourceRequest === undefined) return undefined;
  const priorityClassName = pod['priorityClassName'];
  return {
    ...(nodeClaim === undefined ? {} : { nodeClaim }),
    ...(resourceRequest === undefined ? {} : { resourceRequest }),
    ...(namespace === undefined || namespace === '' ? {} : { namespace }),
    ...(typeof priorityClassName === 'string' && priorityClassName !== '' ? { priorityClassName } : {}),
  };
}

function nodeClaimOf(pod: Readonly<Record<string, unknown>>): NodeClaim | undefined {
  const nodeSelector = recordOf(pod['nodeSelector']) as Readonly<Record<string, string>> | undefined;
  const tolerations = Array.isArray(pod['tolerations']) ? (pod['tolerations'] as readonly Toleration[]) : [];
  const nodeAffinity = recordOf(recordOf(pod['affinity'])?.['nodeAffinity']);
  const hard = recordOf(nodeAffinity?.['requiredDuringSchedulingIgnoredDuringExecution']) as
    NodeSelector | undefined;
  const hasSelector = nodeSelector !== undefined && Object.keys(nodeSelector).length > 0;
  if (!hasSelector && tolerations.length === 0 && hard === undefined) return undefined;
  return {
    ...(hard === undefined ? {} : { hardNodeAffinity: hard }),
    ...(hasSelector ? { nodeSelector } : {}),
    ...(tolerations.length === 0 ? {} : { tolerations }),
  };
}

/**
 * Requests of one pod as the kube-scheduler counts them: the sum over containers, raised to the
 * largest init container per resource. Undefined when nothing is requested.
 */
export function podRequests(pod: Readonly<Record<string, unknown>>): ResourceList | undefined {
  const sum = new Map<string, number>();
  for (const req of containerRequests(pod['containers'])) {
    for (const [name, milli] of req) sum.set(name, (sum.get(name) ?? 0) + milli);
  }
  for (const req of containerRequests(pod['initContainers'])) {
    for (const [name, milli] of req) sum.set(name, Math.max(sum.get(name) ?? 0, milli));
  }
  if (sum.size === 0) return undefined;
  const out: Record<string, string> = {};
  for (const name of [...sum.keys()].sort()) out[name] = formatMilli(sum.get(name) ?? 0);
  return out;
}

function containerRequests(containers: unknown): Map<string, number>[] {
  if (!Array.isArray(containers)) return [];
  return containers.map((c) => {
    const requests = recordOf(recordOf(recordOf(c)?.['resources'])?.['requests']) ?? {};
    const milli = new Map<string, number>();
    for (const [name, q] of Object.entries(requests)) {
      const m = typeof q === 'string' || typeof q === 'number' ? parseMilli(q) : undefined;
      if (m !== undefined) milli.set(name, m);
    }
    return milli;
  });
}

/** A milli-unit amount as a canonical quantity: whole units when exact, else `<n>m`. */
export function formatMilli(milli: number): string {
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

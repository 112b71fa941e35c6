/**
 * The status reflected from a member object into Work.status.manifestStatuses[].status, with
 * upstream's built-in reducers: a subset of `.status` for well-known workload kinds, the whole
 * `.status` for any other kind (nothing when it has none).
 */
import { annotations } from '@kf/api';
import type { MemberObject } from '../execution/manifest-plan.ts';

type Json = Readonly<Record<string, unknown>>;

function pick(status: Json, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(fields.filter((f) => status[f] !== undefined).map((f) => [f, status[f]]));
}

/** generation, observedGeneration and the template generation (from its annotation), as upstream wraps them. */
function generations(obj: MemberObject, status: Json): Record<string, unknown> {
  const templateGeneration = Number(obj.metadata?.annotations?.[annotations.resourceTemplateGeneration]);
  return {
    ...(obj.metadata?.generation === undefined ? {} : { generation: obj.metadata.generation }),
    ...(status.observedGeneration === undefined ? {} : { observedGeneration: status.observedGeneration }),
    ...(Number.isInteger(templateGeneration) ? { resourceTemplateGeneration: templateGeneration } : {}),
  };
}

const WORKLOAD_FIELDS: Readonly<Record<string, readonly string[]>> = {
  'apps/Deployment': [
    'replicas',
    'updatedReplicas',
    'readyReplicas',
    'availableReplicas',
    'unavailableReplicas',
  ],
  'apps/StatefulSet': [
    'replicas',
    'readyReplicas',
    'currentReplicas',
    'updatedReplicas',
    'availableReplicas',
  ],
  'apps/DaemonSet': [
    'currentNumberScheduled',
    'desiredNumberScheduled',
    'numberAvailable',
    'numberMisscheduled',
    'numberReady',
    'updatedNumberScheduled',
    'numberUnavailable',
  ],
  'apps/ReplicaSet': ['replicas', 'readyReplicas', 'availableReplicas', 'fullyLabeledReplicas'],
};

const STATUS_FIELDS: Readonly<Record<string, readonly string[]>> = {
  'batch/Job': ['active', 'succeeded', 'failed', 'startTime', 'completionTime', 'conditions'],
  'networking.k8s.io/Ingress': ['loadBalancer'],
  'policy/PodDisruptionBudget': [
    'currentHealthy',
    'desiredHealthy',
    'disruptionsAllowed',
    'expectedPods',
    'observedGeneration',
  ],
  'autoscaling/HorizontalPodAutoscaler': ['currentReplicas', 'desiredReplicas'],
};

/** `apps/Deployment` for `apps/v1` `Deployment`; `/Service` for core kinds. */
export function groupKindOf(obj: MemberObject): string {
  const apiVersion = obj.apiVersion ?? '';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  return `${group}/${obj.kind ?? ''}`;
}

/** The reflected status, or undefined when the object has none worth reporting. */
export function reflectStatus(obj: MemberObject): Json | undefined {
  const status = (typeof obj.status === 'object' && obj.status !== null ? obj.status : undefined) as
    Json | undefined;
  const gk = groupKindOf(obj);
  const workload = WORKLOAD_FIELDS[gk];
  if (workload !== undefined) return { ...pick(status ?? {}, workload), ...generations(obj, status ?? {}) };
  if (gk === '/Service') {
    const spec = obj.spec as Json | undefined;
    if (spec?.type !== 'LoadBalancer' || status === undefined) return undefined;
    return pick(status, ['loadBalancer']);
  }
  const fields = STATUS_FIELDS[gk];
  if (status === undefined) return undefined;
  return fields === undefined ? status : pick(status, fields);
}

/**
 * Health of a member object as upstream's built-in interpreter judges it. Kinds without a rule
 * are Healthy (upstream's default: no interpreter means nothing is wrong); malformed status
 * values make the health Unknown.
 */
import type { ResourceHealth } from '@kf/api';
import type { MemberObject } from '../execution/manifest-plan.ts';
import { groupKindOf } from './reflect-status.ts';

type Json = Readonly<Record<string, unknown>>;

/** Thrown by a rule that cannot read a field it needs. */
class Unreadable extends Error {}

function obj(v: unknown): Json {
  return typeof v === 'object' && v !== null ? (v as Json) : {};
}

/** An integer field; `absent` when missing (Go's zero value), Unreadable when not a number. */
function int(o: Json, field: string, absent = 0): number {
  const v = o[field];
  if (v === undefined || v === null) return absent;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new Unreadable(field);
  return v;
}

function observedCurrent(o: MemberObject, status: Json): boolean {
  return int(status, 'observedGeneration') === (o.metadata?.generation ?? 0);
}

/** Deployment, StatefulSet: rolled out to the requested replicas and all of them available. */
function workloadHealthy(o: MemberObject): boolean {
  const status = obj(o.status);
  const replicas = obj(o.spec).replicas;
  const updated = int(status, 'updatedReplicas');
  if (!observedCurrent(o, status)) return false;
  if (replicas !== undefined && updated < int(obj(o.spec), 'replicas')) return false;
  return int(status, 'availableReplicas') >= updated;
}

function replicaSetHealthy(o: MemberObject): boolean {
  const status = obj(o.status);
  if (!observedCurrent(o, status)) return false;
  const replicas = obj(o.spec).replicas;
  return replicas === undefined || int(status, 'availableReplicas') >= int(obj(o.spec), 'replicas');
}

function daemonSetHealthy(o: MemberObject): boolean {
  const status = obj(o.status);
  if (!observedCurrent(o, status)) return false;
  const updated = int(status, 'updatedNumberScheduled');
  return updated >= int(status, 'desiredNumberScheduled') && int(status, 'numberAvailable') >= updated;
}

function hasIngress(o: MemberObject): boolean {
  const ingress = obj(obj(o.status).loadBalancer).ingress;
  return (
    Array.isArray(ingress) && ingress.some((i) => (obj(i).ip ?? '') !== '' || (obj(i).hostname ?? '') !== '')
  );
}

function podHealthy(o: MemberObject): boolean {
  const status = obj(o.status);
  if (status.phase === 'Succeeded') return true;
  const conditions = Array.isArray(status.conditions) ? (status.conditions as unknown[]) : [];
  return (
    status.phase === 'Running' && conditions.some((c) => obj(c).type === 'Ready' && obj(c).status === 'True')
  );
}

const RULES: Readonly<Record<string, (o: MemberObject) => boolean>> = {
  'apps/Deployment': workloadHealthy,
  'apps/StatefulSet': workloadHealthy,
  'apps/ReplicaSet': replicaSetHealthy,
  'apps/DaemonSet': daemonSetHealthy,
  '/Service': (o) => obj(o.spec).type !== 'LoadBalancer' || hasIngress(o),
  'networking.k8s.io/Ingress': hasIngress,
  '/PersistentVolumeClaim': (o) => obj(o.status).phase === 'Bound',
  '/Pod': podHealthy,
  'policy/PodDisruptionBudget': (o) =>
    int(obj(o.status), 'currentHealthy') >= int(obj(o.status), 'desiredHealthy'),
};

export function interpretHealth(o: MemberObject): ResourceHealth {
  const rule = RULES[groupKindOf(o)];
  if (rule === undefined) return 'Healthy';
  try {
    return rule(o) ? 'Healthy' : 'Unhealthy';
  } catch (err: unknown) {
    if (err instanceof Unreadable) return 'Unknown';
    throw err;
  }
}

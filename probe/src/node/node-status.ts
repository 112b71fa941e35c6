import {
  CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type V1Node,
  type V1NodeCondition,
} from '@kubernetes/client-node';
import { formatTime } from '@kf/api';
import { apiTimeout, makeApiClient, toKubeError } from '@kf/kube';
import { NODE_CONDITION_TYPE, type NodeCondition } from '../health/node-condition.ts';

/** Reads and writes this node's `ServiceDomainNameResolutionReady` condition. */
export interface NodeConditionStore {
  /** The condition as on the Node now (undefined when absent); throws KubeError (NotFound…). */
  load(signal: AbortSignal): Promise<NodeCondition | undefined>;
  /** Writes `condition`, touching no other; returns it as stored. Throws KubeError. */
  write(condition: NodeCondition, signal: AbortSignal): Promise<NodeCondition | undefined>;
}

/**
 * The Node status subresource in the member cluster. Writes are strategic merge patches: Node
 * conditions merge by `type`, so the kubelet's conditions are never sent, never overwritten and
 * never raced with (Karmada's detector PUTs the whole Node instead).
 */
export function memberNodeStore(kc: KubeConfig, nodeName: string, timeoutMs: number): NodeConditionStore {
  const core = makeApiClient(kc, CoreV1Api, { timeoutMs });
  return {
    async load(signal) {
      try {
        return ours(await core.readNodeStatus({ name: nodeName }, apiTimeout(timeoutMs, signal)));
      } catch (err: unknown) {
        throw toKubeError(err);
      }
    },
    async write(condition, signal) {
      const body = { status: { conditions: [condition] } };
      const options = setHeaderOptions(
        'Content-Type',
        PatchStrategy.StrategicMergePatch,
        apiTimeout(timeoutMs, signal),
      );
      try {
        return ours(await core.patchNodeStatus({ name: nodeName, body }, options));
      } catch (err: unknown) {
        throw toKubeError(err);
      }
    },
  };
}

function ours(node: V1Node): NodeCondition | undefined {
  const c = node.status?.conditions?.find((x) => x.type === NODE_CONDITION_TYPE);
  return c === undefined ? undefined : toJson(c);
}

/** client-node hands out Dates; the rest of the probe works with the API's strings. */
function toJson(c: V1NodeCondition): NodeCondition {
  return {
    type: c.type,
    status: c.status,
    ...(c.reason === undefined ? {} : { reason: c.reason }),
    ...(c.message === undefined ? {} : { message: c.message }),
    ...(c.lastHeartbeatTime === undefined ? {} : { lastHeartbeatTime: timeString(c.lastHeartbeatTime) }),
    ...(c.lastTransitionTime === undefined ? {} : { lastTransitionTime: timeString(c.lastTransitionTime) }),
  };
}

function timeString(t: Date | string): string {
  return typeof t === 'string' ? t : formatTime(t.getTime());
}

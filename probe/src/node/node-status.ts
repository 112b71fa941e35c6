import type { KubeConfig } from '@kubernetes/client-node';
import {
  KubeTransport,
  ResourceClient,
  collectionPath,
  kubeErrorFromResponse,
  requestWithin,
  toKubeError,
} from '@kf/kube';
import { NODE_CONDITION_TYPE, type NodeCondition } from '../health/node-condition.ts';
import { NODE_RESOURCE, type NodeObject } from './node-object.ts';

/** Reads and writes this node's `ServiceDomainNameResolutionReady` condition. */
export interface NodeConditionStore {
  /** The condition as on the Node now (undefined when absent); throws KubeError (NotFound…). */
  load(signal: AbortSignal): Promise<NodeCondition | undefined>;
  /** Writes `condition`, touching no other; returns it as stored. Throws KubeError. */
  write(condition: NodeCondition, signal: AbortSignal): Promise<NodeCondition | undefined>;
}

const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';

/**
 * The Node status subresource in the member cluster, over plain undici requests (timestamps stay
 * the API's strings). Writes are strategic merge patches: Node conditions merge by `type`, so the
 * kubelet's conditions are never sent, never overwritten and never raced with (Karmada's
 * detector PUTs the whole Node instead).
 */
export function memberNodeStore(kc: KubeConfig, nodeName: string, timeoutMs: number): NodeConditionStore {
  const nodes = new ResourceClient<NodeObject>(kc, NODE_RESOURCE, { timeoutMs });
  const transport = new KubeTransport(kc);
  const statusPath = `${collectionPath(NODE_RESOURCE)}/${encodeURIComponent(nodeName)}/status`;
  return {
    async load(signal) {
      return ours(await nodes.get(nodeName, { signal }));
    },
    async write(condition, signal) {
      const body = JSON.stringify({ status: { conditions: [condition] } });
      try {
        const conn = await transport.connect();
        // Strict: a condition field the server does not know is refused, not dropped.
        const res = await requestWithin(`${conn.baseUrl}${statusPath}?fieldValidation=Strict`, {
          method: 'PATCH',
          dispatcher: conn.dispatcher,
          headers: {
            ...conn.headers,
            accept: 'application/json',
            'content-type': STRATEGIC_MERGE_PATCH,
            'user-agent': 'karmada-failover-probe',
          },
          body,
          signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), signal]),
        });
        const text = await res.body.text();
        if (res.statusCode < 200 || res.statusCode > 299) {
          throw kubeErrorFromResponse(res.statusCode, text, res.headers);
        }
        return ours(JSON.parse(text) as NodeObject);
      } catch (err: unknown) {
        throw toKubeError(err);
      }
    },
  };
}

function ours(node: NodeObject): NodeCondition | undefined {
  return node.status?.conditions?.find((x) => x.type === NODE_CONDITION_TYPE);
}

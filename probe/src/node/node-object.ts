import type { KubeObject, ResourceDescriptor } from '@kf/kube';
import type { NodeCondition } from '../health/node-condition.ts';

/** The part of a core/v1 Node the probe reads, as JSON. */
export interface NodeObject extends KubeObject {
  readonly status?: { readonly conditions?: readonly NodeCondition[] };
}

export const NODE_RESOURCE: ResourceDescriptor = {
  group: '',
  version: 'v1',
  plural: 'nodes',
  namespaced: false,
  kind: 'Node',
};

/** The kubelet's own `Ready` condition is True (missing counts as not Ready, as upstream). */
export function isNodeReady(node: NodeObject): boolean {
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

import type { KubeObject, ResourceDescriptor } from '@kf/kube';
import { NODE_CONDITION_TYPE, type NodeCondition } from '../health/node-condition.ts';

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

/**
 * What the leader keeps of each Node it watches: its keys and the two conditions it reads
 * (`Ready` and the probe's own). A Node as the API sends it carries images, addresses, capacity,
 * labels and managed fields, several kilobytes each; the leader caches every Node of the
 * cluster, and needs none of that.
 */
export function projectNode(obj: KubeObject): NodeObject {
  const node = obj as NodeObject;
  const { name, namespace, resourceVersion } = node.metadata ?? {};
  const conditions = node.status?.conditions?.filter(
    (c) => c.type === 'Ready' || c.type === NODE_CONDITION_TYPE,
  );
  return {
    metadata: {
      ...(name === undefined ? {} : { name }),
      ...(namespace === undefined ? {} : { namespace }),
      ...(resourceVersion === undefined ? {} : { resourceVersion }),
    },
    ...(conditions === undefined ? {} : { status: { conditions } }),
  };
}

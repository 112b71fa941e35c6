/** Reduces member Nodes and Pods to what the summaries need (kept small: caches hold thousands). */
import type { ResourceList } from '@kf/api';
import type { NodeView, PodView } from './resource-summary.ts';

interface RawContainer {
  readonly resources?: { readonly requests?: ResourceList };
}

export interface RawPod {
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly resourceVersion?: string;
  };
  readonly spec?: {
    readonly nodeName?: string;
    readonly containers?: readonly RawContainer[];
    readonly initContainers?: readonly RawContainer[];
    readonly overhead?: ResourceList;
  };
  readonly status?: { readonly phase?: string };
}

export interface RawNode {
  readonly metadata?: { readonly name?: string; readonly resourceVersion?: string };
  readonly status?: {
    readonly allocatable?: ResourceList;
    readonly conditions?: readonly { readonly type?: string; readonly status?: string }[];
  };
}

const EMPTY: ResourceList = Object.freeze({});

export function podViewOf(pod: RawPod): PodView {
  const spec = pod.spec;
  return {
    nodeName: spec?.nodeName ?? '',
    phase: pod.status?.phase ?? '',
    containers: (spec?.containers ?? []).map((c) => c.resources?.requests ?? EMPTY),
    initContainers: (spec?.initContainers ?? []).map((c) => c.resources?.requests ?? EMPTY),
    ...(spec?.overhead === undefined ? {} : { overhead: spec.overhead }),
  };
}

export function nodeViewOf(node: RawNode): NodeView {
  return {
    name: node.metadata?.name ?? '',
    ready: (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
    allocatable: node.status?.allocatable ?? EMPTY,
  };
}

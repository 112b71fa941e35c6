import { CoreV1Api, type KubeConfig, type V1Node } from '@kubernetes/client-node';
import { waitUntil } from './readiness.ts';

export interface NodeCapacity {
  readonly cpu?: string;
  readonly memory?: string;
  readonly pods?: string;
}

export const DEFAULT_NODE_CAPACITY = { cpu: '32', memory: '256Gi', pods: '110' } as const;

/** A Node object that KWOK adopts (it manages every node of a member) and keeps Ready. */
export function kwokNode(name: string, capacity: NodeCapacity = {}): V1Node {
  const resources = { ...DEFAULT_NODE_CAPACITY, ...capacity };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/role': 'agent',
        type: 'kwok',
      },
    },
    spec: {},
    status: { allocatable: { ...resources }, capacity: { ...resources } },
  };
}

/** Creates `count` KWOK nodes named `<prefix>-<i>` and waits until every one reports Ready. */
export async function createKwokNodes(
  kc: KubeConfig,
  opts: {
    prefix: string;
    count: number;
    capacity?: NodeCapacity;
    timeoutMs?: number;
    /** Gives up early with this reason (KWOK or the API server has exited). */
    abortIf?: () => string | undefined;
  },
): Promise<string[]> {
  const core = kc.makeApiClient(CoreV1Api);
  const names = Array.from({ length: opts.count }, (_, i) => `${opts.prefix}-${i}`);
  for (const name of names) {
    await core.createNode({ body: kwokNode(name, opts.capacity) }).catch((err: unknown) => {
      if ((err as { code?: number }).code !== 409) throw err;
    });
  }
  await waitUntil(
    `${opts.count} KWOK nodes Ready`,
    async () => {
      const list = await core.listNode();
      const ready = list.items.filter(
        (n) =>
          names.includes(n.metadata?.name ?? '') &&
          (n.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
      );
      return ready.length === names.length;
    },
    {
      // A 2-core machine starting several clusters side by side can take a while; a dead process
      // ends the wait at once through abortIf.
      timeoutMs: opts.timeoutMs ?? 180_000,
      intervalMs: 500,
      ...(opts.abortIf ? { abortIf: opts.abortIf } : {}),
    },
  );
  return names;
}

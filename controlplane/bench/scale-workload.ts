/**
 * The work the scale benchmarks give a control plane, whichever it is: `members` simulated Pull
 * clusters member001.. in pairs round a ring; Deployment i, of 2 replicas, labelled with pair
 * i mod `members`; one PropagationPolicy per pair dividing its Deployments 1:1 by static weights
 * over member p+1 and the member after it. Every member then carries 2 × bindings / members copies.
 * Also how the benchmarks count what a control plane made of it, without holding it whole.
 */
import {
  resourceBindingKind,
  workKind,
  type PropagationPolicy,
  type ResourceBinding,
  type Work,
} from '@kf/api';
import { WatchCache, type KubeObject, type ResourceDescriptor } from '@kf/kube';
import { createLogger } from '@kf/runtime';
import {
  SimulatedMembers,
  demoDeployment,
  dividedByStaticWeights,
  startFailoverFederation,
  type FailoverFederation,
} from '@kf/testing';
import type { KubeConfig, V1Deployment } from '@kubernetes/client-node';
import { placementOf, type PhaseWait } from './support.ts';

export const NAMESPACE = 'default';
/** Upstream's Lease renewal (a quarter of its 40 s duration) and monitor grace period. */
const RENEW_INTERVAL_MS = 10_000;
const LEASE_SECONDS = 40;
export const MONITOR_GRACE_SECONDS = 40;
const LABEL = 'bench';
const PAIR_LABEL = 'scale-pair';

export const DEPLOYMENT_RESOURCE: ResourceDescriptor = {
  group: 'apps',
  version: 'v1',
  plural: 'deployments',
  namespaced: true,
  kind: 'Deployment',
};

export const memberName = (i: number): string => `member${String(i + 1).padStart(3, '0')}`;
export const appName = (i: number): string => `app-${String(i).padStart(6, '0')}`;

export class ScaleWorkload {
  readonly members: number;

  constructor(members: number) {
    this.members = members;
  }

  /** The two members of pair p: member p+1 and the next one round the ring. */
  pairOf(p: number): [string, string] {
    return [memberName(p), memberName((p + 1) % this.members)];
  }

  /** The placement a pair's bindings should have, as `placementOf` writes it. */
  pairPlacement(p: number): string {
    return this.pairOf(p)
      .map((c) => `${c}:1`)
      .sort()
      .join(',');
  }

  /** What binding `app-<i>-deployment` should be placed on; undefined for other bindings. */
  wantedPlacement(bindingName: string): string | undefined {
    const m = /^app-(\d+)-deployment$/.exec(bindingName);
    return m === null ? undefined : this.pairPlacement(Number(m[1]) % this.members);
  }

  /** A Deployment of 2 replicas that pair `pair`'s PropagationPolicy selects. */
  deployment(name: string, pair: number): V1Deployment {
    const d = demoDeployment(name, 2, NAMESPACE);
    d.metadata = {
      ...d.metadata,
      labels: { ...d.metadata?.labels, [LABEL]: 'scale', [PAIR_LABEL]: String(pair) },
    };
    return d;
  }

  /** Deployment i, of pair i mod members. */
  app(i: number): V1Deployment {
    return this.deployment(appName(i), i % this.members);
  }

  policy(p: number): PropagationPolicy {
    const [a, b] = this.pairOf(p);
    return {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: `scale-${p}`, namespace: NAMESPACE },
      spec: {
        resourceSelectors: [
          {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            labelSelector: { matchLabels: { [LABEL]: 'scale', [PAIR_LABEL]: String(p) } },
          },
        ],
        placement: dividedByStaticWeights({ [a]: 1, [b]: 1 }),
        failover: { cluster: { purgeMode: 'Gracefully' } },
      },
    };
  }

  /** Bindings of the workload placed as their policies say, among those `bindings` holds. */
  countScheduled(bindings: Iterable<ResourceBinding>): number {
    let n = 0;
    for (const b of bindings) {
      const wanted = this.wantedPlacement(b.metadata.name ?? '');
      if (wanted !== undefined && placementOf(b) === wanted) n++;
    }
    return n;
  }
}

/**
 * How far a control plane got with the workload, as watches show it: its bindings placed as
 * their policies say, and the Works of its Deployments over every execution namespace. Watching,
 * not listing: a count made of paged lists of 30,000 bindings and 60,000 Works cost the API server
 * most of a core while the control plane wrote to it, and only while it did (the floor it is
 * compared with ran without such lists), so the rate it measured was of the two together.
 */
export interface PlacementProgress {
  /**
   * Waits until all `bindings` are scheduled, then until their Works exist (two each), looking
   * every 250 ms; seconds from `from` to each. The watches stop either way.
   */
  untilPlaced(
    until: PhaseWait,
    o: { readonly label: string; readonly bindings: number; readonly from: number },
  ): Promise<{ readonly scheduled: number; readonly works: number }>;
}

export async function watchPlacementProgress(
  kubeConfig: KubeConfig,
  workload: ScaleWorkload,
): Promise<PlacementProgress> {
  const placements = await watchPlacements(kubeConfig);
  // Names only: whether a Work exists is all the count asks.
  const works = await watchReduced<Work>(kubeConfig, { resource: workKind }, (o) => {
    const { name, namespace, resourceVersion } = (o as Work).metadata;
    return { metadata: { name, namespace, resourceVersion } } as Work;
  });
  const scheduledCount = (): Promise<number> =>
    Promise.resolve(workload.countScheduled(placements.cache.list()));
  const workCount = (): Promise<number> => {
    let n = 0;
    for (const w of works.cache.list()) if ((w.metadata.name ?? '').startsWith('app-')) n++;
    return Promise.resolve(n);
  };
  return {
    async untilPlaced(until, { label, bindings, from }) {
      const timing = { from, pauseMs: 250 };
      try {
        const scheduled = await until(`${label}bindings scheduled`, scheduledCount, bindings, timing);
        return { scheduled, works: await until(`${label}Works`, workCount, 2 * bindings, timing) };
      } finally {
        placements.stop();
        works.stop();
      }
    },
  };
}

/**
 * The workload namespace's bindings as a watch shows them, each reduced to its name and clusters:
 * looking costs the API server nothing, whatever the size (a list of 15,000 bindings for each look
 * took seconds of its own and delayed what it measured).
 */
export function watchPlacements(kubeConfig: KubeConfig): Promise<ReducedWatch<ResourceBinding>> {
  return watchReduced<ResourceBinding>(
    kubeConfig,
    { resource: resourceBindingKind, namespace: NAMESPACE },
    (o) => {
      const b = o as ResourceBinding;
      return {
        metadata: {
          name: b.metadata.name,
          namespace: b.metadata.namespace,
          resourceVersion: b.metadata.resourceVersion,
        },
        spec: { resource: b.spec.resource, clusters: b.spec.clusters },
      } as ResourceBinding;
    },
  );
}

/** A watch cache the benchmark holds, each object cut down by `transform`, and how to stop it. */
interface ReducedWatch<T extends KubeObject> {
  readonly cache: WatchCache<T>;
  readonly stop: () => void;
}

/** Starts a watch cache of `what` holding each object as `transform` cuts it down; once synced. */
async function watchReduced<T extends KubeObject>(
  kubeConfig: KubeConfig,
  what: { readonly resource: ResourceDescriptor; readonly namespace?: string },
  transform: (o: unknown) => T,
): Promise<ReducedWatch<T>> {
  const cache = new WatchCache<T>({
    kubeConfig,
    ...what,
    log: createLogger({ component: 'bench', level: 'silent' }),
    transform,
  });
  const stop = new AbortController();
  void cache.run(stop.signal);
  await cache.synced();
  return {
    cache,
    stop: () => {
      stop.abort();
    },
  };
}

/** The members of the work, renewing their Leases as upstream's agents do. */
export function simulatedMembers(kubeConfig: KubeConfig): SimulatedMembers {
  return new SimulatedMembers(kubeConfig, {
    renewIntervalMs: RENEW_INTERVAL_MS,
    leaseDurationSeconds: LEASE_SECONDS,
  });
}

/**
 * The project's control plane from the bundle `entry`, with no members of its own (the benchmark
 * simulates them) and no taint hold, at the work's monitor grace.
 */
export function startProjectControlPlane(entry: string): Promise<FailoverFederation> {
  return startFailoverFederation({
    controlPlaneEntry: entry,
    members: 0,
    agents: false,
    timing: { taintHoldSeconds: 0, monitorGraceSeconds: MONITOR_GRACE_SECONDS },
    logLevel: 'warn',
    // The benchmark plays the agents: it should not also carry the control plane's traffic.
    proxies: false,
  });
}

/** The member reports Ready=False, as an agent that cannot reach its API server does. */
export async function reportUnreachable(members: SimulatedMembers, name: string): Promise<void> {
  await members.setCondition(name, {
    type: 'Ready',
    status: 'False',
    reason: 'ClusterNotReachable',
    message: 'cluster is not reachable',
  });
}

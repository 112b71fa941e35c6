/**
 * What a Push cluster's connection is and what each part runs on it: the agent's controllers
 * from @kf/member, hosted in the control plane. A connection holds the member's HTTP transport,
 * node and pod caches, object caches (one watch per kind in use), REST mapping, the cluster's
 * Works cache (`karmada-es-<cluster>`, watched once a Work part starts) and its metrics handle.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { executionNamespaceFor, workKind, type Cluster, type Work } from '@kf/api';
import { WatchCache, type EventRecorder, type WatchCacheMetrics } from '@kf/kube';
import {
  closeMemberConnection,
  executionController,
  memberStatusParts,
  memberWorkDeps,
  openMemberConnection,
  workStatusController,
  type InterpreterCustomizations,
  type MemberConnection,
  type MemberHostConfig,
  type MemberHostDeps,
  type MemberMetricFamilies,
  type MemberMetrics,
} from '@kf/member';
import {
  controllerRunnable,
  type Clock,
  type ControllerSpec,
  type Logger,
  type RunnerDeps,
} from '@kf/runtime';
import type { PushAccessKey, PushHostFactory, PushPart } from './push-hosts.ts';
import { CONTROL_PLANE_TRANSPORT } from '../connections.ts';

/** The field manager of every write to a Push member, as `kubectl get --show-managed-fields` names it. */
export const PUSH_FIELD_MANAGER = 'karmada-failover-controlplane';

/** Why a Work with a fence timeout is not applied to a Push cluster. */
export const PUSH_NO_FENCE =
  'a Work with a fence timeout needs an agent in the member to delete its copies when cut off; a Push cluster has none';

export interface MemberPartsDeps {
  readonly karmada: KubeConfig;
  /** All Clusters (the status part reads its own from it). */
  readonly clusters: WatchCache<Cluster>;
  readonly config: MemberHostConfig;
  readonly log: Logger;
  readonly clock: Clock;
  readonly random: () => number;
  readonly metrics: MemberMetricFamilies;
  readonly runner: RunnerDeps;
  readonly events: Pick<EventRecorder, 'record'>;
  readonly watchMetrics?: WatchCacheMetrics;
  readonly customizations?: InterpreterCustomizations;
}

export interface PushConnection {
  readonly member: MemberConnection;
  readonly metrics: MemberMetrics;
  /** Aborted when the connection closes: its object caches and Works cache stop. */
  readonly stop: AbortController;
  readonly objects: Promise<void>;
  works?: WatchCache<Work>;
}

export function memberParts(d: MemberPartsDeps): PushHostFactory<PushConnection> {
  return {
    open(cluster: string, access: PushAccessKey): PushConnection {
      const member = openMemberConnection(access.kubeConfig, {
        log: d.log.child({ cluster }),
        monotonic: () => d.clock.monotonic(),
        ...(d.watchMetrics === undefined ? {} : { watchMetrics: d.watchMetrics }),
      });
      const stop = new AbortController();
      return {
        member,
        metrics: d.metrics.forCluster(cluster),
        stop,
        // The member objects' caches (one watch per kind in use) run until the connection closes.
        objects: member.objects.runnable().start(stop.signal),
      };
    },
    async run(cluster, c, part, signal) {
      await Promise.all(runnables(d, cluster, c, part).map((r) => r(signal)));
    },
    async close(cluster, c) {
      c.stop.abort();
      await Promise.allSettled([c.objects, c.works?.stop(), closeMemberConnection(c.member)]);
      d.metrics.forget(cluster);
    },
  };
}

/** What one part runs, each until its signal aborts. */
function runnables(
  d: MemberPartsDeps,
  cluster: string,
  c: PushConnection,
  part: PushPart,
): ((signal: AbortSignal) => Promise<void>)[] {
  const host: MemberHostDeps = {
    clusterName: cluster,
    config: d.config,
    karmada: d.karmada,
    karmadaTransport: CONTROL_PLANE_TRANSPORT,
    clusters: d.clusters,
    member: c.member,
    metrics: c.metrics,
    log: d.log.child({ cluster }),
    clock: d.clock,
    random: d.random,
  };
  // Each cluster's controllers under their own name: their metrics and logs say which cluster.
  const run = (spec: ControllerSpec) => (signal: AbortSignal) =>
    controllerRunnable({ ...spec, name: `${spec.name}/${cluster}` }, d.runner).start(signal);
  if (part === 'cluster-status') {
    const status = memberStatusParts(host);
    return [run(status.controller), (signal) => status.heartbeat.start(signal)];
  }
  const works = (c.works ??= worksOf(d, cluster, c.stop.signal));
  const workDeps = memberWorkDeps(host, {
    works,
    fieldManager: PUSH_FIELD_MANAGER,
    events: d.events,
    noFence: PUSH_NO_FENCE,
    ...(d.customizations === undefined ? {} : { customizations: d.customizations }),
  });
  return [run(part === 'execution' ? executionController(workDeps) : workStatusController(workDeps))];
}

function worksOf(d: MemberPartsDeps, cluster: string, signal: AbortSignal): WatchCache<Work> {
  const cache = new WatchCache<Work>({
    kubeConfig: d.karmada,
    transport: CONTROL_PLANE_TRANSPORT,
    resource: workKind,
    namespace: executionNamespaceFor(cluster),
    log: d.log.child({ cluster }),
    clock: d.clock,
    random: d.random,
    ...(d.watchMetrics === undefined ? {} : { metrics: d.watchMetrics }),
  });
  cache.start(signal);
  return cache;
}

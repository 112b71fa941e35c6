/**
 * The API server's floor under a failover: the writes the control plane makes when it moves a
 * binding off a failed member, made by one client with nothing deciding in between (no watches
 * to wait on, no reconciles, no control plane sharing the cores). However fast the decisions,
 * a failover of these writes cannot end sooner on the same machine.
 *
 * Per binding, in order, as the pipeline makes them: the eviction (the binding's clusters and
 * graceful eviction task, one merge patch), the new placement (a merge patch), the scheduler's
 * status (the `Scheduled` condition and times), the Work of the new placement carrying its new
 * replicas (the Deployment as the pipeline's Work carries it, when the caller has it, so that the
 * API server stores and sends Works of the pipeline's size); optionally the Events the pipeline
 * records on the way. No aggregated status: the benchmarks' simulated members report no Work
 * status, so the pipeline has none to write (it made four state writes per binding moved in the
 * reschedule benchmark, not five).
 * Each round moves every binding from one member to another, so every write changes something
 * (a write that changes nothing costs the API server far less).
 */
import { performance } from 'node:perf_hooks';
import { resourceBindingKind, workKind, type ResourceBinding, type Work } from '@kf/api';
import type { KubeConfig } from '@kubernetes/client-node';
import { CORE_EVENT_RESOURCE, ResourceClient, type CoreEvent } from '@kf/kube';
import { workNameFor } from '../src/names.ts';
import { inParallel } from './support.ts';

export interface FloorRound {
  /** The member every binding leaves, and the one it moves to. */
  readonly from: string;
  readonly to: string;
  /** Core Events written per binding, between the other writes (0: none). */
  readonly eventsPerBinding: number;
  /** Bindings moved at once. */
  readonly concurrency: number;
  /**
   * Each binding's Deployment as the pipeline's Work carries it (by the binding's
   * `namespace/name`), written with the new replicas; a binding not here gets a minimal one.
   */
  readonly manifests?: ReadonlyMap<string, object>;
  /**
   * Marks the round's manifests (an annotation), so that a Work already carrying the new replicas
   * still changes.
   */
  readonly mark?: string;
}

/** The annotation a round marks its manifests with. */
const ROUND_ANNOTATION = 'bench.karmada-failover.io/floor-round';

export interface FloorResult {
  readonly seconds: number;
  readonly writes: number;
}

interface Clients {
  readonly bindings: ResourceClient<ResourceBinding>;
  readonly works: ResourceClient<Work>;
  readonly events: ResourceClient<CoreEvent>;
}

/** Moves every binding of `bindings` (named `<app>-deployment`) as the pipeline would. */
export async function replayFailoverWrites(
  kubeConfig: KubeConfig,
  bindings: readonly ResourceBinding[],
  round: FloorRound,
): Promise<FloorResult> {
  const clients: Clients = {
    bindings: new ResourceClient<ResourceBinding>(kubeConfig, resourceBindingKind),
    works: new ResourceClient<Work>(kubeConfig, workKind),
    events: new ResourceClient<CoreEvent>(kubeConfig, CORE_EVENT_RESOURCE),
  };
  let writes = 0;
  const startedAt = performance.now();
  await inParallel(
    bindings.length,
    async (i) => {
      const b = bindings[i];
      if (b === undefined) return;
      const made = await moveOne(clients, b, round);
      writes += made;
    },
    round.concurrency,
  );
  return { seconds: (performance.now() - startedAt) / 1000, writes };
}

async function moveOne(c: Clients, b: ResourceBinding, round: FloorRound): Promise<number> {
  const key = `${b.metadata.namespace ?? ''}/${b.metadata.name ?? ''}`;
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  let writes = 0;
  let events = 0;
  const event = async (reason: string): Promise<void> => {
    if (events >= round.eventsPerBinding) return;
    events++;
    await c.events.create(floorEvent(b, reason, now));
    writes++;
  };
  await c.bindings.mergePatch(key, {
    spec: {
      clusters: [{ name: round.to, replicas: 1 }],
      gracefulEvictionTasks: [
        {
          fromCluster: round.from,
          replicas: 1,
          purgeMode: 'Gracefully',
          producer: 'TaintManager',
          reason: 'TaintUntolerated',
          message: 'floor',
          creationTimestamp: now,
        },
      ],
    },
  });
  writes++;
  await event('EvictionStarted');
  const placed = await c.bindings.mergePatch(key, { spec: { clusters: [{ name: round.to, replicas: 2 }] } });
  writes++;
  await c.bindings.patchStatus(key, {
    status: {
      conditions: [
        {
          type: 'Scheduled',
          status: 'True',
          reason: 'Success',
          message: `Binding has been scheduled successfully (${round.to}).`,
          lastTransitionTime: now,
        },
      ],
      schedulerObservedGeneration: placed.metadata.generation,
      lastScheduledTime: now,
    },
  });
  writes++;
  // The pipeline records the schedule and the Work sync on the binding and on its template.
  await event('ScheduleBindingSucceed');
  await event('ScheduleBindingSucceed');
  await c.works.mergePatch(`karmada-es-${round.to}/${workNameOf(b)}`, {
    spec: { workload: { manifests: [manifestFor(b, key, round)] } },
  });
  writes++;
  await event('SyncWorkSucceed');
  await event('SyncWorkSucceed');
  return writes;
}

function workNameOf(b: ResourceBinding): string {
  const name = b.spec.resource.name;
  return workNameFor('deployment', name, b.spec.resource.namespace);
}

interface Manifest {
  readonly metadata?: { readonly annotations?: Readonly<Record<string, string>> };
  readonly spec?: object;
}

/** The Deployment the round writes into the binding's new Work: 2 replicas, marked. */
function manifestFor(b: ResourceBinding, key: string, round: FloorRound): object {
  const base: Manifest = round.manifests?.get(key) ?? replicasManifest(b, 2);
  const spec = { ...base.spec, replicas: 2 };
  if (round.mark === undefined) return { ...base, spec };
  const annotations = { ...base.metadata?.annotations, [ROUND_ANNOTATION]: round.mark };
  return { ...base, metadata: { ...base.metadata, annotations }, spec };
}

/** The binding's Deployment as a Work carries it, with `replicas`. */
function replicasManifest(b: ResourceBinding, replicas: number): object {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: b.spec.resource.name, namespace: b.spec.resource.namespace },
    spec: {
      replicas,
      selector: { matchLabels: { app: b.spec.resource.name } },
      template: {
        metadata: { labels: { app: b.spec.resource.name } },
        spec: { containers: [{ name: 'app', image: 'nginx' }] },
      },
    },
  };
}

let seq = 0;

function floorEvent(b: ResourceBinding, reason: string, time: string): CoreEvent {
  const namespace = b.metadata.namespace ?? 'default';
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${b.metadata.name ?? ''}.floor${String(seq++)}`, namespace },
    involvedObject: {
      apiVersion: 'work.karmada.io/v1alpha2',
      kind: 'ResourceBinding',
      name: b.metadata.name ?? '',
      namespace,
      ...(b.metadata.uid === undefined ? {} : { uid: b.metadata.uid }),
    },
    reason,
    message: 'floor',
    type: 'Normal',
    count: 1,
    firstTimestamp: time,
    lastTimestamp: time,
    source: { component: 'floor' },
  };
}

/**
 * Watches one member and one workload from outside while faults are injected, as a person with
 * kubectl would but every 250 ms: the Cluster's Ready and taints, its Lease renewal, where the
 * workload's binding places it, and its copy on the member. Then judges the samples against what
 * users are promised about partitions (no NoExecute taint once the Lease is renewed again, no
 * binding leaving a cluster that is fine, the same copy all along). Used by the partition tests
 * and the partition soak benchmark.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { findCondition, taintEffects, type Cluster, type Taint } from '@kf/api';
import { leaseRenewedAtMs, type Lease } from '@kf/kube';
import type { FailoverFederation } from '../failover-federation.ts';
import { memberDeployment, type MemberCopy } from '../workload-view.ts';

/** What is watched: a member and a Deployment propagated from the control plane. */
export interface ObservedWorkload {
  readonly member: string;
  /** The Deployment's namespace (its binding's too). */
  readonly namespace: string;
  readonly deployment: string;
}

const SAMPLE_EVERY_MS = 250;

/** What the observer saw at one moment; a field is undefined when its read failed. */
export interface Sample {
  readonly atMs: number;
  readonly ready?: string;
  readonly taints?: readonly Taint[];
  readonly renewedAtMs?: number;
  /** Clusters of the cell's binding (spec.clusters). */
  readonly placed?: readonly string[];
  /** uid of the Deployment on the member; null when it is absent. */
  readonly memberUid?: string | null;
  /** `uid/generation` of that Deployment: a change of either is a change to the member's copy. */
  readonly memberVersion?: string | null;
}

/** Samples one member's Cluster, Lease, binding and copy until stopped. */
export class Observer {
  readonly samples: Sample[] = [];
  #stopped = false;
  #loop: Promise<void> | undefined;

  readonly #fed: FailoverFederation;
  readonly #what: ObservedWorkload;

  constructor(fed: FailoverFederation, what: ObservedWorkload) {
    this.#fed = fed;
    this.#what = what;
  }

  start(): void {
    this.#loop = this.#run();
  }

  async stop(): Promise<readonly Sample[]> {
    this.#stopped = true;
    await this.#loop;
    return this.samples;
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      const started = Date.now();
      this.samples.push(await this.#sample(started));
      await sleep(Math.max(0, SAMPLE_EVERY_MS - (Date.now() - started)));
    }
  }

  async #sample(atMs: number): Promise<Sample> {
    const fed = this.#fed;
    const { member, namespace, deployment } = this.#what;
    const [cluster, lease, binding, copy] = await Promise.allSettled([
      fed.clusters.get(member),
      fed.leases.get(`karmada-cluster/${member}`),
      fed.bindings.find(`${namespace}/${deployment}-deployment`),
      memberDeployment(fed, member, namespace, deployment),
    ]);
    return {
      atMs,
      ...clusterFields(cluster),
      ...renewedField(lease),
      ...(binding.status === 'fulfilled' && binding.value !== undefined
        ? { placed: (binding.value.spec.clusters ?? []).map((t) => t.name) }
        : {}),
      ...(copy.status === 'fulfilled' ? copyFields(copy.value) : {}),
    };
  }
}

function clusterFields(r: PromiseSettledResult<Cluster>): Pick<Sample, 'ready' | 'taints'> {
  if (r.status !== 'fulfilled') return {};
  const c = r.value;
  return {
    ready: findCondition(c.status?.conditions, 'Ready')?.status ?? 'absent',
    taints: c.spec.taints ?? [],
  };
}

function renewedField(r: PromiseSettledResult<Lease>): Pick<Sample, 'renewedAtMs'> {
  const at = r.status === 'fulfilled' ? leaseRenewedAtMs(r.value) : undefined;
  return at === undefined ? {} : { renewedAtMs: at };
}

const isNoExecute = (t: Taint): boolean => t.effect === taintEffects.noExecute;

/** NoExecute taints added after `afterMs` (timeAdded has whole seconds: the same second counts as before). */
export function noExecuteAddedAfter(samples: readonly Sample[], afterMs: number): string[] {
  const found = new Set<string>();
  for (const s of samples) {
    for (const t of (s.taints ?? []).filter(isNoExecute)) {
      const added = t.timeAdded === undefined ? s.atMs : Date.parse(t.timeAdded);
      if (added >= Math.floor(afterMs / 1000) * 1000 + 1000)
        found.add(`${t.key}:${t.effect}@${t.timeAdded ?? '?'}`);
    }
  }
  return [...found];
}

/** Whether a NoExecute taint was ever seen. */
export function everNoExecute(samples: readonly Sample[]): boolean {
  return samples.some((s) => (s.taints ?? []).some(isNoExecute));
}

/** Samples after `afterMs` whose binding did not hold `member`. */
export function leftAfter(samples: readonly Sample[], member: string, afterMs: number): Sample[] {
  return samples.filter((s) => s.atMs > afterMs && s.placed !== undefined && !s.placed.includes(member));
}

/** Distinct versions of the member's copy seen (`uid/generation`; null when absent at some point). */
export function versionsSeen(samples: readonly Sample[]): (string | null)[] {
  return [...new Set(samples.map((s) => s.memberVersion).filter((v) => v !== undefined))];
}

/** Distinct member copies seen (uids; null when absent at some point). */
export function copiesSeen(samples: readonly Sample[]): (string | null)[] {
  return [...new Set(samples.map((s) => s.memberUid).filter((u) => u !== undefined))];
}

function copyFields(copy: MemberCopy | undefined): Pick<Sample, 'memberUid' | 'memberVersion'> {
  if (copy === undefined) return { memberUid: null, memberVersion: null };
  return { memberUid: copy.uid, memberVersion: `${copy.uid}/${String(copy.generation)}` };
}

/**
 * The Push clusters' controllers, named as upstream's controller-manager names its own:
 * `cluster-status`, `execution` and `work-status`. Each is a supervisor over Clusters: for every
 * Cluster with `syncMode: Push` it reads the credential Secret the Cluster names and runs its part
 * of the member side on a connection made from them (push-hosts.ts); for any other Cluster, or one
 * that is gone, it stops that part. A Cluster being deleted keeps its parts until it is gone: its
 * Works are still deleted from the member.
 *
 * The Secret is read by name, never listed or watched: the control plane sees only the Secrets
 * Push Clusters reference. It is read again every minute, so a rotated token is picked up.
 * A Cluster that cannot be reached as it says (no endpoint, no Secret, no token) gets a Warning
 * Event naming what is missing, and its parts stop until it is fixed; its Ready is left as it
 * was, as upstream does when it cannot build a client.
 */
import { eventReasons, syncModes, type Cluster } from '@kf/api';
import type { EventRecorder, ResourceClient, WatchCache } from '@kf/kube';
import { pushMemberAccess, pushSecretKey, specChanges, type Secret } from '@kf/member';
import { converged, recheckIn, type ControllerSpec, type Logger } from '@kf/runtime';
import type { PushAccessKey, PushHosts, PushPart } from './push-hosts.ts';

/** How often the Secret of a running Push cluster is read again (rotation). */
export const ACCESS_RECHECK_MS = 60_000;
/** How soon a Push cluster that cannot be reached as it says is looked at again. */
export const PROBLEM_RECHECK_MS = 10_000;

/** How long one read of a Secret serves every supervisor: they reconcile a cluster together. */
export const SHARED_READ_MS = 5_000;

/**
 * Reads of Secrets shared for `windowMs`: the three supervisors reconcile the same Cluster on
 * the same event and at the same rechecks, so one GET answers all three.
 */
export function sharedSecretReads(
  secrets: Pick<ResourceClient<Secret>, 'find'>,
  monotonic: () => number,
  windowMs = SHARED_READ_MS,
): Pick<ResourceClient<Secret>, 'find'> {
  const recent = new Map<string, { readonly at: number; readonly read: Promise<Secret | undefined> }>();
  return {
    find(key, options) {
      const now = monotonic();
      for (const [k, r] of recent) if (now - r.at >= windowMs) recent.delete(k);
      const hit = recent.get(key);
      if (hit !== undefined) return hit.read;
      const read = secrets.find(key, options);
      recent.set(key, { at: now, read });
      // A failed read is not shared: the next caller asks again.
      read.catch(() => recent.delete(key));
      return read;
    },
  };
}

export interface PushSupervisorDeps {
  /** Read by name only: the control plane never lists or watches Secrets. */
  readonly secrets: Pick<ResourceClient<Secret>, 'find'>;
  readonly clusters: WatchCache<Cluster>;
  readonly hosts: Pick<PushHosts<unknown>, 'ensure' | 'release' | 'clusters'>;
  readonly events: Pick<EventRecorder, 'record'>;
  /** The last problem reported per cluster, shared by the three supervisors: one Event per change. */
  readonly problems: Map<string, string>;
}

/** What the Cluster and its Secret say about reaching the member. */
export type PushAccessVerdict =
  | { readonly kind: 'not-push' }
  | { readonly kind: 'ready'; readonly access: PushAccessKey }
  | { readonly kind: 'problem'; readonly problem: string };

/** Reads the Cluster's Secret (by name) and builds the member's access, or says what is missing. */
export async function pushAccessOf(
  cluster: Cluster,
  secrets: Pick<ResourceClient<Secret>, 'find'>,
  signal: AbortSignal,
): Promise<PushAccessVerdict> {
  if (cluster.spec.syncMode !== syncModes.push) return { kind: 'not-push' };
  const key = pushSecretKey(cluster);
  const secret = key === undefined ? undefined : await secrets.find(key, { signal });
  const access = pushMemberAccess(cluster, secret);
  if (access.kind === 'problem') return access;
  const s = cluster.spec;
  const fingerprint = JSON.stringify([
    s.apiEndpoint,
    s.insecureSkipTLSVerification === true,
    s.proxyURL ?? '',
    key,
    secret?.metadata.resourceVersion ?? '',
  ]);
  return { kind: 'ready', access: { fingerprint, kubeConfig: access.kubeConfig } };
}

export function pushSupervisor(part: PushPart, deps: PushSupervisorDeps): ControllerSpec {
  const { secrets } = deps;
  return {
    name: part,
    // Spec changes (mode, endpoint, Secret, TLS, proxy), creation and deletion; not status writes.
    sources: [specChanges(deps.clusters, (c) => [c.metadata.name ?? ''])],
    resyncPeriodMs: 0,
    async reconcile(name, { log, signal }) {
      const cluster = deps.clusters.get(name);
      const verdict =
        cluster === undefined
          ? ({ kind: 'not-push' } as const)
          : await pushAccessOf(cluster, secrets, signal);
      if (verdict.kind === 'not-push') {
        deps.problems.delete(name);
        await deps.hosts.release(name, part);
        return converged();
      }
      if (verdict.kind === 'problem') {
        reportProblem(deps, cluster as Cluster, verdict.problem, log);
        await deps.hosts.release(name, part);
        return recheckIn(PROBLEM_RECHECK_MS);
      }
      deps.problems.delete(name);
      if (signal.aborted) return converged();
      await deps.hosts.ensure(name, part, verdict.access);
      return recheckIn(ACCESS_RECHECK_MS);
    },
    async onStopped() {
      await Promise.all(deps.hosts.clusters().map((c) => deps.hosts.release(c, part)));
    },
  };
}

function reportProblem(deps: PushSupervisorDeps, cluster: Cluster, problem: string, log: Logger): void {
  const name = cluster.metadata.name ?? '';
  if (deps.problems.get(name) === problem) return;
  deps.problems.set(name, problem);
  log.warn({ problem }, 'Push cluster cannot be reached as its Cluster says');
  deps.events.record(cluster, 'Warning', eventReasons.pushAccessFailed, problem);
}

/**
 * When a cluster counts as steady for fail-back, and since when. Steady: Ready is True, the
 * cluster carries no NoSchedule or NoExecute taint, it is not being deleted, and (when it has a
 * heartbeat Lease: Push clusters do not) this process has seen a sign of its life within the
 * monitor's grace period.
 *
 * "Steady since" is kept in memory, restarted by any unsteady look (a flap restarts the window)
 * and never earlier than Ready's last transition as this process saw it, so that a flap between
 * two looks restarts it too. A cluster seen for the first time counts from that moment: a
 * restarted control plane waits a whole window again rather than trust what it did not see. Both
 * are on the control plane's clock (see cluster-health/observations.ts): a member clock running
 * ahead cannot stretch the window, nor one running behind shorten it.
 */
import { clusterConditionTypes, findCondition, type Cluster } from '@kf/api';

export type Steadiness = { readonly steady: true } | { readonly steady: false; readonly why: string };

/** Whether `cluster` is steady; `silentForMs` undefined when it has no Lease to be silent on. */
export function judgeSteadiness(
  cluster: Cluster,
  silentForMs: number | undefined,
  graceMs: number,
): Steadiness {
  if (cluster.metadata.deletionTimestamp !== undefined) return { steady: false, why: 'being deleted' };
  const ready = findCondition(cluster.status, clusterConditionTypes.ready)?.status ?? 'absent';
  if (ready !== 'True') return { steady: false, why: `Ready is ${ready}` };
  // Every effect a Cluster taint can have (NoSchedule, NoExecute) keeps workloads away.
  const taint = cluster.spec.taints?.[0];
  if (taint !== undefined) return { steady: false, why: `tainted ${taint.key}:${taint.effect}` };
  if (silentForMs !== undefined && silentForMs > graceMs) {
    const seconds = Math.floor(silentForMs / 1000);
    return { steady: false, why: `heartbeat Lease not renewed for ${String(seconds)} s` };
  }
  return { steady: true };
}

/** Since when each cluster has been steady, from every look this process had at it. */
export class SteadinessTracker {
  readonly #since = new Map<string, number>();

  /** Records one look; returns since when `name` has been steady (undefined: not steady now). */
  observe(
    name: string,
    steadiness: Steadiness,
    readyTransitionMs: number | undefined,
    nowMs: number,
  ): number | undefined {
    if (!steadiness.steady) {
      this.#since.delete(name);
      return undefined;
    }
    const since = Math.max(this.#since.get(name) ?? nowMs, readyTransitionMs ?? Number.NEGATIVE_INFINITY);
    this.#since.set(name, since);
    return since;
  }

  forget(name: string): void {
    this.#since.delete(name);
  }
}

/**
 * Reflects the member objects of each applied Work into `Work.status.manifestStatuses`:
 * identifier, reflected status and health (Healthy / Unhealthy / Unknown).
 * Watches Works and the member objects Karmada manages (any change → the owning Work's key);
 * reads member objects from the caches the execution controller also uses; writes Work status
 * only, and only when the entries changed.
 */
import { isConditionTrue, jsonEqual, workConditionTypes, type Work } from '@kf/api';
import { keyOf, updateWithRetry } from '@kf/kube';
import { converged, keysFrom, type ControllerSpec, type Logger, type Source } from '@kf/runtime';
import { resolveManifest, type WorkDeps } from '../execution/controller.ts';
import { owningWorkKey, type MemberObject } from '../execution/manifest-plan.ts';
import { planManifestStatuses } from './manifest-statuses.ts';

function memberSource(deps: WorkDeps): Source {
  return {
    onChange: (enqueue) =>
      deps.memberObjects.onEvent((_type, obj) => {
        const key = owningWorkKey(obj);
        if (key !== undefined) enqueue(key);
      }),
    keys: () => [],
    synced: () => Promise.resolve(),
  };
}

export function workStatusController(deps: WorkDeps): ControllerSpec {
  return {
    name: 'work-status',
    workers: deps.workers,
    sources: [keysFrom(deps.works, (w) => [keyOf(w)]), memberSource(deps)],
    async reconcile(key, { log, signal }) {
      const work = deps.works.get(key);
      if (work === undefined || work.metadata.deletionTimestamp !== undefined) return converged();
      if (!isConditionTrue(work.status, workConditionTypes.applied)) return converged();
      const manifests = work.spec.workload?.manifests ?? [];
      const live = await liveObjects(deps, work, { log, signal });
      const previous = work.status?.manifestStatuses ?? [];
      const statuses = planManifestStatuses(manifests, live, previous);
      if (jsonEqual(statuses, previous)) return converged();
      await updateWithRetry<Work>({
        read: () => deps.workClient.get(key, { signal }),
        mutate: (current) =>
          jsonEqual(current.status?.manifestStatuses ?? [], statuses)
            ? undefined
            : { ...current, status: { ...current.status, manifestStatuses: statuses } },
        write: (next) => deps.workClient.replaceStatus(next, { signal }),
      });
      return converged();
    },
  };
}

/** The member object of each manifest, or undefined where it is absent or unreadable. */
async function liveObjects(
  deps: WorkDeps,
  work: Work,
  ctx: { readonly log: Logger; readonly signal: AbortSignal },
): Promise<(MemberObject | undefined)[]> {
  const ref = { namespace: work.metadata.namespace ?? '', name: work.metadata.name ?? '' };
  const out: (MemberObject | undefined)[] = [];
  for (const m of work.spec.workload?.manifests ?? []) {
    try {
      const { mapping, key } = await resolveManifest(deps, m, ref);
      out.push(await deps.memberObjects.live(mapping, key, ctx.signal));
    } catch (err: unknown) {
      ctx.log.debug({ err }, 'member object unreadable; keeping its last status');
      out.push(undefined);
    }
  }
  return out;
}

/**
 * Reflects the member objects of each applied Work into `Work.status.manifestStatuses`:
 * identifier, reflected status and health (Healthy / Unhealthy / Unknown), by the scripts of the
 * kind's ResourceInterpreterCustomization when it has some, else by the built-in rules.
 * Watches Works, the member objects Karmada manages (any change → the owning Work's key) and the
 * customizations (any change → every Work: verdicts follow the scripts); reads member objects
 * from the caches the execution controller also uses; writes Work status only, and only when the
 * entries changed.
 *
 * A failing script never holds a Work back: its manifest's health is Unknown and, where the status
 * script failed, the entry carries no status, while the other manifests are reported as usual;
 * a Warning Event on the Work (upstream's InterpretHealthFailed / ReflectStatusFailed) and a log
 * line say what to fix, once per failure (see script-failures.ts). Upstream instead keeps the
 * previous entry and retries the Work when its status script fails; a script that fails the same
 * way on every try gains nothing from retries, and the health is still worth reporting.
 */
import { isConditionTrue, jsonEqual, workConditionTypes, type Work } from '@kf/api';
import { isTargeted } from '@kf/interpreter';
import { keyOf, updateWithRetry } from '@kf/kube';
import { converged, keysFrom, type ControllerSpec, type Logger, type Source } from '@kf/runtime';
import type { InterpreterCustomizations } from '../../interpreter/customizations.ts';
import { resolveManifest, type WorkDeps } from '../execution/controller.ts';
import { manifestIdentity, owningWorkKey, type MemberObject } from '../execution/manifest-plan.ts';
import { planManifestStatuses, type ManifestScriptFailure } from './manifest-statuses.ts';
import { ReportedFailures, failureEvent } from './script-failures.ts';

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

/** A customization change re-judges the Works that carry objects of the kinds it touched. */
function customizationSource(deps: WorkDeps, customizations: InterpreterCustomizations): Source {
  return customizations.source((targets) =>
    deps.works
      .list()
      .filter((w) =>
        (w.spec.workload?.manifests ?? []).some((m) => {
          const id = manifestIdentity(m);
          return isTargeted(targets, id.apiVersion, id.kind);
        }),
      )
      .map(keyOf),
  );
}

export function workStatusController(deps: WorkDeps): ControllerSpec {
  const reported = new ReportedFailures();
  const customizations = deps.customizations;
  return {
    name: 'work-status',
    workers: deps.workers,
    sources: [
      keysFrom(deps.works, (w) => [keyOf(w)]),
      memberSource(deps),
      ...(customizations === undefined ? [] : [customizationSource(deps, customizations)]),
    ],
    async reconcile(key, { log, signal }) {
      const work = deps.works.get(key);
      if (work === undefined || work.metadata.deletionTimestamp !== undefined) {
        reported.forget(key);
        return converged();
      }
      if (!isConditionTrue(work.status, workConditionTypes.applied)) return converged();
      const manifests = work.spec.workload?.manifests ?? [];
      const live = await liveObjects(deps, work, { log, signal });
      const previous = work.status?.manifestStatuses ?? [];
      const plan = planManifestStatuses(manifests, live, previous, customizations?.interpreter);
      const fresh = reported.fresh(key, plan.failures, customizations?.generation ?? 0);
      reportFailures(deps, { work, failures: fresh, log });
      const statuses = plan.statuses;
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

function reportFailures(
  deps: WorkDeps,
  r: { readonly work: Work; readonly failures: readonly ManifestScriptFailure[]; readonly log: Logger },
): void {
  for (const f of r.failures) {
    r.log.warn(
      { object: f.object, operation: f.operation, ordinal: f.ordinal, error: f.message },
      'resource interpreter script failed; the manifest is reported without its verdict',
    );
    const event = failureEvent(f);
    deps.events?.record(r.work, 'Warning', event.reason, event.message);
  }
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

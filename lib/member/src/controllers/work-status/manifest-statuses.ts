/** Work.status.manifestStatuses from the live member objects of a Work's manifests. */
import type { Manifest, ManifestStatus } from '@kf/api';
import type { MemberInterpreter } from '../../interpreter/customizations.ts';
import { manifestIdentity, type MemberObject } from '../execution/manifest-plan.ts';
import { judgeObject, type ScriptFailure } from './object-verdict.ts';

/** A script that failed on the member object of one manifest. */
export interface ManifestScriptFailure extends ScriptFailure {
  readonly ordinal: number;
  /** `kind/namespace/name` of the member object, as upstream names it in its Events. */
  readonly object: string;
}

export interface ManifestStatusPlan {
  readonly statuses: ManifestStatus[];
  readonly failures: ManifestScriptFailure[];
}

/**
 * One entry per manifest whose member object is known: identifier (ordinal = manifest index,
 * `resource` always `''` as upstream), reflected status and health, by the kind's scripts when
 * `scripts` has some, else by the built-in rules. A manifest whose object is not (yet, or no
 * longer) seen keeps its previous entry, if any: a vanished object is recreated by the execution
 * controller, and its last status is more useful than none.
 */
export function planManifestStatuses(
  manifests: readonly Manifest[],
  live: readonly (MemberObject | undefined)[],
  previous: readonly ManifestStatus[],
  scripts?: MemberInterpreter,
): ManifestStatusPlan {
  const statuses: ManifestStatus[] = [];
  const failures: ManifestScriptFailure[] = [];
  manifests.forEach((m, ordinal) => {
    const obj = live[ordinal];
    if (obj === undefined) {
      const kept = previous.find((p) => p.identifier.ordinal === ordinal);
      if (kept !== undefined) statuses.push(kept);
      return;
    }
    const verdict = judgeObject(obj, scripts);
    const entry = statusOf(m, ordinal, obj);
    statuses.push({
      ...entry,
      ...(verdict.status === undefined ? {} : { status: verdict.status }),
      health: verdict.health,
    });
    const object = `${entry.identifier.kind}/${entry.identifier.namespace ?? ''}/${entry.identifier.name}`;
    for (const f of verdict.failures) failures.push({ ...f, ordinal, object });
  });
  return { statuses, failures };
}

function statusOf(m: Manifest, ordinal: number, obj: MemberObject): ManifestStatus {
  const id = manifestIdentity(m);
  const slash = id.apiVersion.indexOf('/');
  const namespace = obj.metadata?.namespace;
  return {
    identifier: {
      ordinal,
      group: slash < 0 ? '' : id.apiVersion.slice(0, slash),
      version: slash < 0 ? id.apiVersion : id.apiVersion.slice(slash + 1),
      kind: id.kind,
      resource: '',
      ...(namespace === undefined ? {} : { namespace }),
      name: id.name,
    },
  };
}

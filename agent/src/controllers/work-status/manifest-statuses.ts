/** Work.status.manifestStatuses from the live member objects of a Work's manifests. */
import type { Manifest, ManifestStatus } from '@kf/api';
import { manifestIdentity, type MemberObject } from '../execution/manifest-plan.ts';
import { interpretHealth } from './interpret-health.ts';
import { reflectStatus } from './reflect-status.ts';

/**
 * One entry per manifest whose member object is known: identifier (ordinal = manifest index,
 * `resource` always `''` as upstream), reflected status and health. A manifest whose object is
 * not (yet, or no longer) seen keeps its previous entry, if any: a vanished object is recreated
 * by the execution controller, and its last status is more useful than none.
 */
export function planManifestStatuses(
  manifests: readonly Manifest[],
  live: readonly (MemberObject | undefined)[],
  previous: readonly ManifestStatus[],
): ManifestStatus[] {
  const out: ManifestStatus[] = [];
  manifests.forEach((m, ordinal) => {
    const obj = live[ordinal];
    const entry =
      obj === undefined ? previous.find((p) => p.identifier.ordinal === ordinal) : statusOf(m, ordinal, obj);
    if (entry !== undefined) out.push(entry);
  });
  return out;
}

function statusOf(m: Manifest, ordinal: number, obj: MemberObject): ManifestStatus {
  const id = manifestIdentity(m);
  const slash = id.apiVersion.indexOf('/');
  const status = reflectStatus(obj);
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
    ...(status === undefined ? {} : { status }),
    health: interpretHealth(obj),
  };
}

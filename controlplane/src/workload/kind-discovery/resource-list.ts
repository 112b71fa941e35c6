/**
 * What API discovery says about one group version, reduced to what the resource detector needs:
 * kind → `{ group, version, plural, namespaced }`. A kind is looked up by the exact apiVersion a
 * policy's resourceSelector names, so one `/apis/<group>/<version>` document answers it.
 */
import type { ResourceDescriptor } from '@kf/kube';
import { recordOf } from '../template.ts';

/** `apps/v1` → `{ group: 'apps', version: 'v1' }`; `v1` → the core group. */
export function splitApiVersion(apiVersion: string): { readonly group: string; readonly version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The discovery document of a group version: `/api/v1` or `/apis/<group>/<version>`. */
export function discoveryPathOf(apiVersion: string): string {
  const { group, version } = splitApiVersion(apiVersion);
  return group === ''
    ? `/api/${encodeURIComponent(version)}`
    : `/apis/${encodeURIComponent(group)}/${encodeURIComponent(version)}`;
}

/** Whether `apiVersion` is well formed enough to ask discovery about (`v1`, `group/version`). */
export function isDiscoverableApiVersion(apiVersion: string): boolean {
  return /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[a-z0-9]+$/.test(apiVersion);
}

/**
 * The kinds served in an `APIResourceList` (the body of `/apis/<group>/<version>`), keyed by
 * kind. Subresources (`deployments/status`) are skipped; when two resources report the same kind
 * the first one listed wins, as client-go's RESTMapper does. Anything malformed is left out.
 */
export function kindsOfResourceList(
  apiVersion: string,
  body: unknown,
): ReadonlyMap<string, ResourceDescriptor> {
  const { group, version } = splitApiVersion(apiVersion);
  const out = new Map<string, ResourceDescriptor>();
  const resources = recordOf(body)?.['resources'];
  if (!Array.isArray(resources)) return out;
  for (const item of resources as unknown[]) {
    const r = resourceOf(item);
    if (r === undefined || out.has(r.kind)) continue;
    out.set(r.kind, { group, version, ...r });
  }
  return out;
}

/** One top-level resource of an `APIResourceList`; undefined for subresources and malformed items. */
function resourceOf(
  item: unknown,
): { readonly kind: string; readonly plural: string; readonly namespaced: boolean } | undefined {
  const r = recordOf(item);
  const name = r?.['name'];
  const kind = r?.['kind'];
  if (typeof name !== 'string' || typeof kind !== 'string') return undefined;
  if (name === '' || kind === '' || name.includes('/')) return undefined;
  return { kind, plural: name, namespaced: r?.['namespaced'] === true };
}

/** When a group version was last asked about (monotonic ms). */
export type FetchTimes = ReadonlyMap<string, number>;

/**
 * The group versions to ask discovery about now: those of the wanted (unresolved) kinds that
 * were never asked, or last asked at least `minRefreshMs` ago, sorted. A kind that keeps missing
 * costs one request per group version per `minRefreshMs`, however often it is looked up.
 */
export function dueGroupVersions(
  wantedApiVersions: Iterable<string>,
  lastFetchedAtMs: FetchTimes,
  nowMs: number,
  minRefreshMs: number,
): string[] {
  const due = new Set<string>();
  for (const gv of wantedApiVersions) {
    const at = lastFetchedAtMs.get(gv);
    if (at === undefined || nowMs - at >= minRefreshMs) due.add(gv);
  }
  return [...due].sort();
}

/**
 * How long to wait before the next round: until the earliest wanted group version is due again
 * (at least 0), or undefined when nothing is wanted (wait for a lookup to miss).
 */
export function nextRoundInMs(
  wantedApiVersions: Iterable<string>,
  lastFetchedAtMs: FetchTimes,
  nowMs: number,
  minRefreshMs: number,
): number | undefined {
  let soonest: number | undefined;
  for (const gv of wantedApiVersions) {
    const at = lastFetchedAtMs.get(gv);
    const wait = at === undefined ? 0 : Math.max(0, at + minRefreshMs - nowMs);
    soonest = soonest === undefined ? wait : Math.min(soonest, wait);
  }
  return soonest;
}

/** Maps a manifest's apiVersion and kind to the member resource that serves it. */
import type { ResourceDescriptor } from '@kf/kube';
import type { Discovery } from '../controllers/cluster-status/api-enablements.ts';

export interface Mapping extends ResourceDescriptor {
  readonly kind: string;
}

/** `apps/v1` → { group: 'apps', version: 'v1' }; `v1` → core. */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** A lookup table `apiVersion|kind` → resource, built from one discovery. */
export function buildMappings(discovery: Discovery): ReadonlyMap<string, Mapping> {
  const out = new Map<string, Mapping>();
  for (const gv of discovery.groupVersions) {
    const { group, version } = splitApiVersion(gv.groupVersion);
    for (const r of gv.resources) {
      if (r.name.includes('/') || r.kind === '') continue;
      const key = mappingKey(gv.groupVersion, r.kind);
      if (!out.has(key))
        out.set(key, { group, version, plural: r.name, namespaced: r.namespaced, kind: r.kind });
    }
  }
  return out;
}

export function mappingKey(apiVersion: string, kind: string): string {
  return `${apiVersion}|${kind}`;
}

/** Thrown when the member serves no resource for a manifest's apiVersion and kind. */
export class NoMappingError extends Error {
  override readonly name = 'NoMappingError';
}

/**
 * Mappings from the latest discovery, refreshed on a miss (a CRD installed meanwhile), at most
 * once per `minRefreshMs` so that a manifest of an unknown kind does not hammer discovery.
 */
export class MemberRestMapper {
  private mappings: ReadonlyMap<string, Mapping> = new Map();
  private partial = true;
  private refreshedAtMs = Number.NEGATIVE_INFINITY;
  private refreshing: Promise<void> | undefined;
  private readonly discover: () => Promise<Discovery>;
  private readonly monotonic: () => number;
  private readonly minRefreshMs: number;

  constructor(discover: () => Promise<Discovery>, monotonic: () => number, minRefreshMs = 5_000) {
    this.discover = discover;
    this.monotonic = monotonic;
    this.minRefreshMs = minRefreshMs;
  }

  /** Takes a discovery done elsewhere (the status sync) as the current truth. */
  update(discovery: Discovery): void {
    this.mappings = buildMappings(discovery);
    this.partial = discovery.partial;
    this.refreshedAtMs = this.monotonic();
  }

  /**
   * Every namespaced resource the member serves, one version each, from a fresh discovery;
   * undefined when discovery came back partial (some group could not be read).
   */
  async namespacedResources(): Promise<readonly Mapping[] | undefined> {
    this.update(await this.discover());
    if (this.partial) return undefined;
    const seen = new Set<string>();
    const out: Mapping[] = [];
    for (const m of this.mappings.values()) {
      const id = `${m.group}/${m.plural}`;
      if (!m.namespaced || seen.has(id)) continue;
      seen.add(id);
      out.push(m);
    }
    return out;
  }

  async resolve(apiVersion: string, kind: string): Promise<Mapping> {
    const key = mappingKey(apiVersion, kind);
    let found = this.mappings.get(key);
    if (found === undefined && this.monotonic() - this.refreshedAtMs >= this.minRefreshMs) {
      this.refreshing ??= this.discover()
        .then((d) => {
          this.update(d);
        })
        .finally(() => {
          this.refreshing = undefined;
        });
      await this.refreshing;
      found = this.mappings.get(key);
    }
    if (found === undefined)
      throw new NoMappingError(`the member serves no resource for ${apiVersion} ${kind}`);
    return found;
  }
}

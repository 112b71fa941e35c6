/**
 * What the process's shared watch caches keep of each object: the object as the controllers read
 * it, not as the API server sends it. At 10,000 bindings the caches of bindings, Works and
 * resource templates are most of the process's live memory, and two parts of them are read by
 * no controller:
 *
 * - `metadata.managedFields`, the server-side apply bookkeeping of every writer of the object
 *   (for a binding written by the detector, the scheduler and the status controller, as large as
 *   the rest of it). Leaving it out of an object later sent back with a PUT changes nothing on
 *   the server, which keeps the stored managed fields of an update that carries none;
 * - a Work's manifests, which the control plane wrote itself: the binding controller only asks
 *   whether the manifests it wants are those the Work holds, and the namespace controller which
 *   namespace a Work carries. A cached Work keeps each manifest's identity (apiVersion, kind,
 *   name, namespace) and a digest of them all, and is never written back: every Work write is
 *   built from the wanted Work (see `binding/work-plan.ts`), and {@link assertNotCompact} refuses
 *   one that is not.
 *
 * Annotations stay whole, `kubectl.kubernetes.io/last-applied-configuration` included: a
 * template's annotations travel to the member clusters, and an object written back from the cache
 * must not lose them.
 *
 * The objects are also kept with their strings shared: a watch event's JSON gives every value a
 * string of its own, so 10,000 bindings, their templates and Works held tens of thousands of
 * copies each of `Deployment`, `apps/v1`, the members' names, condition reasons and messages, and
 * each binding a copy of its policy's placement. Values are the same, only held once (see
 * {@link StringPool}): short strings, and the longer values of fields known to repeat; uids and
 * resourceVersions, unique to an object, are left out of the pool.
 */
import { hash } from 'node:crypto';
import { sameJsonKey, workKind, type Manifest, type Work, type WorkloadTemplate } from '@kf/api';
import type { KubeObject, ResourceDescriptor } from '@kf/kube';

/** Marks a workload whose manifests are identities only; holds the digest of the whole ones. */
const MANIFESTS_DIGEST = Symbol('manifestsDigest');

type CompactWorkload = WorkloadTemplate & { readonly [MANIFESTS_DIGEST]: string };

/** The transform of the shared cache of `resource`. */
export function cachedFormFor(resource: ResourceDescriptor): (o: KubeObject) => KubeObject {
  if (resource.group === workKind.group && resource.plural === workKind.plural)
    return (o) => cachedWork(o as unknown as Work);
  return (o) => cachedCopy(o);
}

/** A Work as the cache keeps it: manifests reduced to identities, then kept as any object. */
function cachedWork(w: Work): Work {
  return cachedCopy(withCompactManifests(w) as unknown as KubeObject) as unknown as Work;
}

/**
 * An object as a cache keeps it: `metadata.managedFields` left out (only the object's own: a field
 * of that name deeper in it, in a manifest say, is data) and its strings the pool's. `o` is what
 * JSON.parse just made, and the caller gives it up: its values are kept, their strings swapped for
 * the pool's in place, and only an object with managed fields is copied (shallowly, with new
 * metadata). No JSON round trip: over a cold start's lists that cost 7 µs per binding or template
 * and a second copy of every string for the collector to free, while the object V8 spreads keeps
 * the exact layout JSON.parse gave and only the new metadata object, built key by key, carries a
 * few spare slots (16 to 56 bytes of an object's 1 to 2 KiB).
 */
export function cachedCopy<T extends KubeObject>(o: T, pool: StringPool = processPool): T {
  const metadata = o.metadata;
  const kept: KubeObject =
    metadata !== undefined && 'managedFields' in metadata
      ? { ...o, metadata: withoutManagedFields(metadata) }
      : o;
  return shareInPlace(kept, pool) as T;
}

function withoutManagedFields(metadata: NonNullable<KubeObject['metadata']>): KubeObject['metadata'] {
  const kept: Record<string, unknown> = {};
  const source = metadata as Readonly<Record<string, unknown>>;
  for (const k of Object.keys(source)) if (k !== 'managedFields') kept[k] = source[k];
  return kept;
}

/** Strings up to this length are shared; longer ones are rarely repeated. */
const SHARED_MAX_LENGTH = 64;
/**
 * Fields whose longer values repeat across objects, shared up to {@link SHARED_LONG_MAX_LENGTH}:
 * condition messages, and the placement a policy applied, the same JSON on each of its bindings.
 */
const SHARED_LONG_FIELDS: ReadonlySet<string> = new Set([
  'message',
  'policy.karmada.io/applied-placement',
  'clusterpolicy.karmada.io/applied-placement',
]);
const SHARED_LONG_MAX_LENGTH = 4096;
/** Values of these fields are unique to an object: sharing them would only grow the pool. */
const UNSHARED_FIELDS: ReadonlySet<string> = new Set(['uid', 'resourceVersion']);

/**
 * One copy of each short string the caches hold. Bounded by strings and by characters: beyond
 * either it starts afresh, which costs only sharing (the strings already held stay where they are).
 */
export class StringPool {
  readonly #strings = new Map<string, string>();
  readonly #maxStrings: number;
  readonly #maxChars: number;
  #chars = 0;

  constructor(maxStrings = 200_000, maxChars = 4_000_000) {
    this.#maxStrings = maxStrings;
    this.#maxChars = maxChars;
  }

  /** The pool's copy of `s` (`s` itself the first time); `long` for a field whose long values repeat. */
  share(s: string, long = false): string {
    if (s.length > (long ? SHARED_LONG_MAX_LENGTH : SHARED_MAX_LENGTH)) return s;
    const held = this.#strings.get(s);
    if (held !== undefined) return held;
    if (this.#strings.size >= this.#maxStrings || this.#chars + s.length > this.#maxChars) {
      this.#strings.clear();
      this.#chars = 0;
    }
    this.#strings.set(s, s);
    this.#chars += s.length;
    return s;
  }

  get size(): number {
    return this.#strings.size;
  }
}

const processPool = new StringPool();

function shareString(s: string, field: string | undefined, pool: StringPool): string {
  if (field !== undefined && UNSHARED_FIELDS.has(field)) return s;
  return pool.share(s, field !== undefined && SHARED_LONG_FIELDS.has(field));
}

/**
 * Replaces the strings of a value JSON.parse just made with the pool's copies, in place: a
 * property written again with a value of the same kind keeps the object's layout. An array's
 * strings count as values of the field that holds the array.
 */
function shareInPlace(v: unknown, pool: StringPool, field?: string): unknown {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (typeof x === 'string') v[i] = shareString(x, field, pool);
      else if (x !== null && typeof x === 'object') shareInPlace(x, pool, field);
    }
  } else if (v !== null && typeof v === 'object') {
    const record = v as Record<string, unknown>;
    for (const k of Object.keys(record)) {
      const x = record[k];
      if (typeof x === 'string') record[k] = shareString(x, k, pool);
      else if (x !== null && typeof x === 'object') shareInPlace(x, pool, k);
    }
  }
  return v;
}

/** The digest of a list of manifests: equal for two lists exactly when isSameJson holds. */
export function manifestsDigest(manifests: readonly Manifest[] | undefined): string {
  // The one-shot hash: a Hash object made for each Work cost 18 to 24 µs of a 1 KB manifest,
  // this 2 to 3 µs; a cold start makes 60,000 of them at 30,000 bindings.
  return hash('sha256', sameJsonKey(manifests ?? []), 'base64');
}

/** The Work with its manifests reduced to identities (metadata as it is). */
function withCompactManifests(w: Work): Work {
  const workload = w.spec.workload;
  if (workload === undefined || isCompact(workload)) return w;
  const compact: CompactWorkload = {
    manifests: (workload.manifests ?? []).map(identityOf),
    [MANIFESTS_DIGEST]: manifestsDigest(workload.manifests),
  };
  return { ...w, spec: { ...w.spec, workload: compact } };
}

/** The digest of a cached Work's manifests; undefined for a Work held whole. */
export function compactDigestOf(workload: WorkloadTemplate | undefined): string | undefined {
  return workload !== undefined && isCompact(workload) ? workload[MANIFESTS_DIGEST] : undefined;
}

/** Throws when `w` holds manifest identities instead of manifests: it must never be written. */
export function assertNotCompact(w: Work): void {
  if (compactDigestOf(w.spec.workload) !== undefined)
    throw new Error(
      `Work ${w.metadata.namespace ?? ''}/${w.metadata.name ?? ''} as cached (manifests reduced to identities) cannot be written`,
    );
}

function isCompact(workload: WorkloadTemplate): workload is CompactWorkload {
  return MANIFESTS_DIGEST in workload;
}

/** apiVersion, kind, name and namespace of a manifest: what the controllers read of it. */
function identityOf(m: Manifest): Manifest {
  const metadata = m['metadata'] as { name?: unknown; namespace?: unknown } | undefined;
  return {
    ...(m['apiVersion'] === undefined ? {} : { apiVersion: m['apiVersion'] }),
    ...(m['kind'] === undefined ? {} : { kind: m['kind'] }),
    metadata: {
      ...(metadata?.name === undefined ? {} : { name: metadata.name }),
      ...(metadata?.namespace === undefined ? {} : { namespace: metadata.namespace }),
    },
  };
}

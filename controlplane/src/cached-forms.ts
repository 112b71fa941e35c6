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
 * The objects are also rebuilt with their short strings shared: a watch event's JSON gives every
 * value a string of its own, so 10,000 bindings, their templates and Works held tens of thousands
 * of copies each of `Deployment`, `apps/v1`, the members' names, condition reasons and messages.
 * Values are the same, only held once (see {@link StringPool}); uids and resourceVersions, unique
 * to an object, are left out of the pool.
 */
import { createHash } from 'node:crypto';
import { sameJsonKey, workKind, type Manifest, type Work, type WorkloadTemplate } from '@kf/api';
import type { KubeObject, ResourceDescriptor } from '@kf/kube';

/** Marks a workload whose manifests are identities only; holds the digest of the whole ones. */
const MANIFESTS_DIGEST = Symbol('manifestsDigest');

type CompactWorkload = WorkloadTemplate & { readonly [MANIFESTS_DIGEST]: string };

/** The transform of the shared cache of `resource`. */
export function cachedFormFor(resource: ResourceDescriptor): (o: KubeObject) => KubeObject {
  if (resource.group === workKind.group && resource.plural === workKind.plural)
    return (o) => cachedCopy(withCompactManifests(o as unknown as Work) as unknown as KubeObject);
  return (o) => cachedCopy(o);
}

/**
 * Fields a cached copy leaves out: `true` leaves the field out, a nested rule fields within it
 * (so a field of that name deeper in the object, in a manifest say, stays).
 */
interface LeftOut {
  readonly [field: string]: true | LeftOut;
}

const LEFT_OUT_OF_CACHES: LeftOut = { metadata: { managedFields: true } };

/**
 * One copy of an object as a cache keeps it: its short strings the pool's, and
 * `metadata.managedFields` left out in the same walk.
 */
export function cachedCopy<T extends KubeObject>(o: T, pool: StringPool = processPool): T {
  return shareEntries(o, pool, LEFT_OUT_OF_CACHES) as T;
}

function isPlainObject(v: unknown): v is object {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Strings up to this length are shared; longer ones are rarely repeated. */
const SHARED_MAX_LENGTH = 64;
/** Values of these fields are unique to an object: sharing them would only grow the pool. */
const UNSHARED_FIELDS: ReadonlySet<string> = new Set(['uid', 'resourceVersion']);

/**
 * One copy of each short string the caches hold. Bounded: beyond `maxStrings` it starts afresh,
 * which costs only sharing (the strings already held stay where they are).
 */
export class StringPool {
  readonly #strings = new Map<string, string>();
  readonly #maxStrings: number;

  constructor(maxStrings = 200_000) {
    this.#maxStrings = maxStrings;
  }

  /** The pool's copy of `s` (`s` itself the first time). */
  share(s: string): string {
    if (s.length > SHARED_MAX_LENGTH) return s;
    const held = this.#strings.get(s);
    if (held !== undefined) return held;
    if (this.#strings.size >= this.#maxStrings) this.#strings.clear();
    this.#strings.set(s, s);
    return s;
  }

  get size(): number {
    return this.#strings.size;
  }
}

const processPool = new StringPool();

function shareValue(v: unknown, field: string | undefined, pool: StringPool): unknown {
  if (typeof v === 'string') return field !== undefined && UNSHARED_FIELDS.has(field) ? v : pool.share(v);
  if (Array.isArray(v)) return v.map((x: unknown) => shareValue(x, field, pool));
  if (v === null || typeof v !== 'object') return v;
  return shareEntries(v, pool);
}

function shareEntries(v: object, pool: StringPool, leftOut?: LeftOut): Record<string | symbol, unknown> {
  const out: Record<string | symbol, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const rule = leftOut !== undefined && Object.hasOwn(leftOut, k) ? leftOut[k] : undefined;
    if (rule === true) continue;
    out[k] = rule !== undefined && isPlainObject(x) ? shareEntries(x, pool, rule) : shareValue(x, k, pool);
  }
  // A compact Work's digest (a symbol-keyed property) stays as it is.
  for (const k of Object.getOwnPropertySymbols(v)) out[k] = (v as Record<symbol, unknown>)[k];
  return out;
}

/** The digest of a list of manifests: equal for two lists exactly when isSameJson holds. */
export function manifestsDigest(manifests: readonly Manifest[] | undefined): string {
  return createHash('sha256')
    .update(sameJsonKey(manifests ?? []))
    .digest('base64');
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

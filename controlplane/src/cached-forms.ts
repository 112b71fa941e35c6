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
    return (o) => compactWork(o as unknown as Work);
  return withoutManagedFields;
}

/** `o` without `metadata.managedFields` (the same object when it has none). */
export function withoutManagedFields<T extends KubeObject>(o: T): T {
  const meta = o.metadata as Readonly<Record<string, unknown>> | undefined;
  if (meta?.['managedFields'] === undefined) return o;
  const metadata = Object.fromEntries(Object.entries(meta).filter(([k]) => k !== 'managedFields'));
  return { ...o, metadata };
}

/** The digest of a list of manifests: equal for two lists exactly when isSameJson holds. */
export function manifestsDigest(manifests: readonly Manifest[] | undefined): string {
  return createHash('sha256')
    .update(sameJsonKey(manifests ?? []))
    .digest('base64');
}

/** The Work as the shared cache keeps it: no managed fields, manifests reduced to identities. */
export function compactWork(w: Work): Work {
  const lean = withoutManagedFields(w as unknown as KubeObject) as unknown as Work;
  const workload = w.spec.workload;
  if (workload === undefined || isCompact(workload)) return lean;
  const compact: CompactWorkload = {
    manifests: (workload.manifests ?? []).map(identityOf),
    [MANIFESTS_DIGEST]: manifestsDigest(workload.manifests),
  };
  return { ...lean, spec: { ...lean.spec, workload: compact } };
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

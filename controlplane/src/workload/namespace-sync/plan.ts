/**
 * Which namespaces of the control plane every member gets, and the Work that carries one to a
 * cluster. As upstream: every namespace but Karmada's own (`karmada-system`, `karmada-cluster`,
 * `karmada-es-*`), `default`, the `kube-*` namespaces, and those labelled
 * `namespace.karmada.io/skip-auto-propagation: "true"`; to every cluster, whatever its health (a
 * workload placed there later needs its namespace). The Work is owned by the namespace, so the
 * garbage collector removes it with the namespace.
 */
import { executionNamespaceFor, finalizers, type Manifest, type Work } from '@kf/api';
import { isSkippedNamespace } from '../kinds.ts';
import { workNameFor } from '../../names.ts';

export const SKIP_AUTO_PROPAGATION_LABEL = 'namespace.karmada.io/skip-auto-propagation';

/** A Namespace as far as its propagation needs. */
export interface NamespaceObject {
  readonly metadata?: {
    readonly name?: string;
    readonly uid?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly deletionTimestamp?: string;
  };
  readonly spec?: Readonly<Record<string, unknown>>;
}

/** Whether the members get this namespace. */
export function shouldPropagate(ns: NamespaceObject): boolean {
  const name = ns.metadata?.name ?? '';
  if (name === '' || name === 'default' || isSkippedNamespace(name)) return false;
  return (ns.metadata?.labels?.[SKIP_AUTO_PROPAGATION_LABEL] ?? '').toLowerCase() !== 'true';
}

/** The namespace as the member gets it: name, labels, annotations and spec; nothing the server set. */
export function namespaceManifest(ns: NamespaceObject): Manifest {
  const m = ns.metadata ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: m.name ?? '',
      ...(m.labels === undefined ? {} : { labels: { ...m.labels } }),
      ...(m.annotations === undefined ? {} : { annotations: { ...m.annotations } }),
    },
    ...(ns.spec === undefined ? {} : { spec: { ...ns.spec } }),
  };
}

/** The Work that carries `ns` to `cluster`. */
export function namespaceWork(ns: NamespaceObject, cluster: string): Work {
  const name = ns.metadata?.name ?? '';
  return {
    apiVersion: 'work.karmada.io/v1alpha1',
    kind: 'Work',
    metadata: {
      name: workNameFor('Namespace', name, undefined),
      namespace: executionNamespaceFor(cluster),
      finalizers: [finalizers.executionController],
      ownerReferences: [
        { apiVersion: 'v1', kind: 'Namespace', name, uid: ns.metadata?.uid ?? '', controller: true },
      ],
    },
    spec: { workload: { manifests: [namespaceManifest(ns)] } },
  };
}

/** The namespace a Work carries, when it is one of these Works. */
export function namespaceOfWork(w: Work): string | undefined {
  const [m, ...rest] = w.spec.workload?.manifests ?? [];
  const manifest = m as { apiVersion?: string; kind?: string; metadata?: { name?: string } } | undefined;
  if (rest.length > 0 || manifest?.apiVersion !== 'v1' || manifest.kind !== 'Namespace') return undefined;
  const owner = w.metadata.ownerReferences?.find((o) => o.kind === 'Namespace' && o.controller === true);
  return owner === undefined ? undefined : manifest.metadata?.name;
}

/**
 * Resource types the detector can watch as templates. Policies may name any kind; the ones
 * resolved get a cache. The table holds the built-in kinds workloads are made of, so that they
 * need no discovery round trip; every other kind (custom resources) is resolved through API
 * discovery (`kind-discovery/`), which also learns kinds whose CRD is installed later.
 */
import type { ResourceDescriptor } from '@kf/kube';
import { typeKey } from './template.ts';

/** `(apiVersion, kind)` → where it is served, or undefined when the kind is not known. */
export type KindResolver = (apiVersion: string, kind: string) => ResourceDescriptor | undefined;

/**
 * Kinds the detector may watch. `resolve` answers from what is known now (it never waits for
 * the network); a catalog that can learn kinds later (discovery) tells `onLearned` subscribers
 * when a kind that missed before became resolvable, so that they ask again.
 */
export interface KindCatalog {
  readonly resolve: KindResolver;
  onLearned?(handler: () => void): () => void;
}

function d(apiVersion: string, kind: string, plural: string, namespaced = true): ResourceDescriptor {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  return { group, version: apiVersion.slice(slash + 1), kind, plural, namespaced };
}

const BUILT_IN: readonly ResourceDescriptor[] = [
  d('apps/v1', 'Deployment', 'deployments'),
  d('apps/v1', 'StatefulSet', 'statefulsets'),
  d('apps/v1', 'DaemonSet', 'daemonsets'),
  d('apps/v1', 'ReplicaSet', 'replicasets'),
  d('batch/v1', 'Job', 'jobs'),
  d('batch/v1', 'CronJob', 'cronjobs'),
  d('v1', 'ConfigMap', 'configmaps'),
  d('v1', 'Secret', 'secrets'),
  d('v1', 'Service', 'services'),
  d('v1', 'ServiceAccount', 'serviceaccounts'),
  d('v1', 'PersistentVolumeClaim', 'persistentvolumeclaims'),
  d('v1', 'Namespace', 'namespaces', false),
  d('networking.k8s.io/v1', 'Ingress', 'ingresses'),
  d('policy/v1', 'PodDisruptionBudget', 'poddisruptionbudgets'),
  d('rbac.authorization.k8s.io/v1', 'Role', 'roles'),
  d('rbac.authorization.k8s.io/v1', 'RoleBinding', 'rolebindings'),
  d('rbac.authorization.k8s.io/v1', 'ClusterRole', 'clusterroles', false),
  d('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'clusterrolebindings', false),
];

const byType = new Map(
  BUILT_IN.map((r) => [typeKey(r.group === '' ? r.version : `${r.group}/${r.version}`, r.kind ?? ''), r]),
);

/** Resolves the built-in kinds of {@link BUILT_IN}. */
export const builtInKinds: KindResolver = (apiVersion, kind) => byType.get(typeKey(apiVersion, kind));

/** Groups whose objects are never templates: Karmada's own API and cluster plumbing. */
const SKIPPED_GROUPS: ReadonlySet<string> = new Set([
  'cluster.karmada.io',
  'policy.karmada.io',
  'work.karmada.io',
  'config.karmada.io',
  'networking.karmada.io',
  'autoscaling.karmada.io',
  'remedy.karmada.io',
  'apps.karmada.io',
  'events.k8s.io',
  'coordination.k8s.io',
]);

/** Whether objects of this type may be propagated at all. */
export function isPropagatableType(apiVersion: string, kind: string): boolean {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  if (group === '' && kind === 'Event') return false;
  return !SKIPPED_GROUPS.has(group);
}

/** Namespaces whose objects are never templates: Karmada's own and, by default, `kube-*`. */
export function isSkippedNamespace(namespace: string | undefined): boolean {
  if (namespace === undefined || namespace === '') return false;
  return (
    namespace === 'karmada-system' ||
    namespace === 'karmada-cluster' ||
    namespace.startsWith('karmada-es-') ||
    /^kube-.*$/.test(namespace)
  );
}

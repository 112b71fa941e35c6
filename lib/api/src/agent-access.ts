/**
 * The control-plane RBAC of one member agent. An agent authenticates as user
 * `system:karmada:agent:<cluster>` in group `system:karmada:agents` (the identities
 * `karmadactl register` issues). The group's ClusterRole (deploy/agent/rbac.yaml) holds only what
 * RBAC cannot name: listing and watching Clusters and ResourceInterpreterCustomizations, and
 * creating Clusters and namespaces. Every
 * write to an object that exists is granted here, by name, to the one user: this is the fence that
 * holds even where Karmada's aggregated API server serves Clusters and no admission policy sees
 * them. The ValidatingAdmissionPolicy of deploy/agent is the second fence.
 */
import { renderYaml } from './crd/yaml.ts';
import { executionNamespaceFor } from './execution-namespace.ts';
import type { PolicyRule } from './member-access.ts';
import { labels, namespaces } from './well-known.ts';

export const agentIdentity = {
  /** The group of every member agent. */
  group: 'system:karmada:agents',
  /** A member agent's user name is this prefix and the cluster name. */
  userPrefix: 'system:karmada:agent:',
} as const;

export function agentUserFor(cluster: string): string {
  return `${agentIdentity.userPrefix}${cluster}`;
}

/** The agent's leader-election Lease, in `karmada-system`. */
export function agentElectionLeaseFor(cluster: string): string {
  return `karmada-agent-${cluster}`;
}

/** The credential Secrets `--report-secrets` writes, in `karmada-cluster`. */
export function agentCredentialSecretsFor(cluster: string): readonly [string, string] {
  return [cluster, `${cluster}-impersonator`];
}

/** A rule on resources (every rule this access grants names its groups and resources). */
export type RbacRule = PolicyRule & {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
};

export interface AccessObjectMeta {
  readonly name: string;
  readonly namespace?: string;
  readonly labels: Readonly<Record<string, string>>;
}

export type AgentAccessObject =
  | { readonly apiVersion: 'v1'; readonly kind: 'Namespace'; readonly metadata: AccessObjectMeta }
  | {
      readonly apiVersion: 'rbac.authorization.k8s.io/v1';
      readonly kind: 'ClusterRole' | 'Role';
      readonly metadata: AccessObjectMeta;
      readonly rules: readonly RbacRule[];
    }
  | {
      readonly apiVersion: 'rbac.authorization.k8s.io/v1';
      readonly kind: 'ClusterRoleBinding' | 'RoleBinding';
      readonly metadata: AccessObjectMeta;
      readonly roleRef: { readonly apiGroup: string; readonly kind: string; readonly name: string };
      readonly subjects: readonly {
        readonly apiGroup: string;
        readonly kind: 'User';
        readonly name: string;
      }[];
    };

const RBAC = 'rbac.authorization.k8s.io/v1';
const ACCESS_LABELS = {
  'app.kubernetes.io/name': 'karmada-failover-agent',
  'app.kubernetes.io/component': 'agent-access',
};

/**
 * Everything one member agent may do to existing objects, by name, plus the namespaced creates:
 * - its Cluster (get, update) and the Cluster's status (get, update, patch);
 * - get of the namespaces it makes sure exist (karmada-cluster, karmada-es-<cluster>);
 * - in karmada-cluster: its heartbeat Lease `<cluster>` and the credential Secrets `<cluster>`
 *   and `<cluster>-impersonator` (patch only: written by server-side apply, never read; Karmada's
 *   karmada-agent, which reads them first, gets get and update with `karmadaAgent`);
 * - in karmada-system: its election Lease `karmada-agent-<cluster>`;
 * - in karmada-es-<cluster>: Works (read, finalizers, status) and Events.
 * Creates cannot be restricted by name, so they are granted per namespace (Leases and Secrets in
 * the two namespaces above, Events in the execution namespace) and the admission policy narrows
 * them to the names above. The namespaces karmada-cluster and karmada-es-<cluster> come first so
 * that the Roles in them can be created before the agent registers; karmada-system must exist.
 */
export interface AgentAccessOptions {
  /**
   * The member runs Karmada's karmada-agent, which reads its credential Secrets before it writes
   * them (get, then create or update): it also gets get and update of those two names.
   */
  readonly karmadaAgent?: boolean;
}

export function agentAccessObjects(
  cluster: string,
  opts: AgentAccessOptions = {},
): readonly AgentAccessObject[] {
  const es = executionNamespaceFor(cluster);
  const user = agentUserFor(cluster);
  const name = `system:karmada:${cluster}:agent`;
  const [credentials, impersonator] = agentCredentialSecretsFor(cluster);
  const meta = (namespace?: string, objectName = name): AccessObjectMeta => ({
    name: objectName,
    ...(namespace === undefined ? {} : { namespace }),
    labels: ACCESS_LABELS,
  });
  const namespace = (ns: string): AgentAccessObject => ({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns, labels: { [labels.system]: 'true' } },
  });
  const granted = (kind: 'ClusterRole' | 'Role', ns: string | undefined, rules: readonly RbacRule[]) => {
    const bindingKind = kind === 'ClusterRole' ? 'ClusterRoleBinding' : 'RoleBinding';
    const objectName = ns === es ? `${name}-work` : name;
    return [
      { apiVersion: RBAC, kind, metadata: meta(ns, objectName), rules },
      {
        apiVersion: RBAC,
        kind: bindingKind,
        metadata: meta(ns, objectName),
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: objectName },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
      },
    ] as const satisfies readonly AgentAccessObject[];
  };
  return [
    namespace(namespaces.cluster),
    namespace(es),
    ...granted('ClusterRole', undefined, [
      {
        apiGroups: ['cluster.karmada.io'],
        resources: ['clusters'],
        resourceNames: [cluster],
        verbs: ['get', 'update'],
      },
      {
        apiGroups: ['cluster.karmada.io'],
        resources: ['clusters/status'],
        resourceNames: [cluster],
        verbs: ['get', 'update', 'patch'],
      },
      { apiGroups: [''], resources: ['namespaces'], resourceNames: [namespaces.cluster, es], verbs: ['get'] },
    ]),
    ...granted('Role', namespaces.cluster, [
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        resourceNames: [cluster],
        verbs: ['get', 'update'],
      },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
      {
        apiGroups: [''],
        resources: ['secrets'],
        resourceNames: [credentials, impersonator],
        verbs: opts.karmadaAgent === true ? ['get', 'patch', 'update'] : ['patch'],
      },
      { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
    ]),
    ...granted('Role', namespaces.system, [
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        resourceNames: [agentElectionLeaseFor(cluster)],
        verbs: ['get', 'update'],
      },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
    ]),
    ...granted('Role', es, [
      { apiGroups: ['work.karmada.io'], resources: ['works'], verbs: ['get', 'list', 'watch', 'update'] },
      { apiGroups: ['work.karmada.io'], resources: ['works/status'], verbs: ['get', 'update', 'patch'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch', 'update'] },
    ]),
  ];
}

/** {@link agentAccessObjects} as YAML documents, for `kubectl apply -f -`. */
export function renderAgentAccess(cluster: string, opts: AgentAccessOptions = {}): string {
  const header =
    `# Control-plane RBAC of the member agent of cluster ${cluster} (user ${agentUserFor(cluster)}).\n` +
    '# Apply with deploy/agent (group role and admission policy) before the agent registers.\n' +
    (opts.karmadaAgent === true
      ? "# For Karmada's karmada-agent: apply deploy/agent/karmada-agent.yaml too.\n"
      : '');
  return (
    header +
    agentAccessObjects(cluster, opts)
      .map((o) => `---\n${renderYaml(o)}`)
      .join('')
  );
}

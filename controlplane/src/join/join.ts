/**
 * `controlplane join`: registers a member cluster in Push mode, the shape `karmadactl join` gives
 * it, so that the control plane reaches the member itself.
 *
 * In the member: the namespace `karmada-cluster`, the ServiceAccount `karmada-<cluster>`, its token
 * Secret, and the ClusterRole `karmada-controller-manager:karmada-<cluster>` with its binding. The
 * role holds the member-access rules (status, health, nodes and pods, and the kinds Works carry),
 * not Karmada's every verb on every resource. In the control plane: the Secret
 * `karmada-cluster/<cluster>` (`token`, `caBundle`), owned by the Cluster, and the Cluster with
 * `syncMode: Push`, its `apiEndpoint`, TLS and proxy settings from the member kubeconfig and its id
 * from the member's kube-system namespace.
 *
 * Everything that can refuse the join is checked before the first write: the member is reachable
 * with the kubeconfig, the name is free (or already this member's Push cluster: joining again
 * refreshes the endpoint and the token), the rules are valid. A join that fails after writing to
 * the member removes what it made there, unless the cluster was already joined.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import {
  DEFAULT_WORKLOAD_RULES,
  MEMBER_STATUS_RULES,
  clusterKind,
  jsonEqual,
  namespaces,
  syncModes,
  workloadRuleProblems,
  type Cluster,
  type PolicyRule,
} from '@kf/api';
import { KubeError, ResourceClient, type KubeObject } from '@kf/kube';
import {
  CLUSTER_ROLE_RESOURCE,
  SECRET_RESOURCE,
  applyCredentialSecrets,
  ensureNamespace,
  writeCluster,
  credentialNames,
  decideRegistration,
  ensureMemberCredentials,
  NAMESPACE_RESOURCE,
  type Namespace,
  type Secret,
} from '@kf/member';
import { ConfigError, type Logger } from '@kf/runtime';
import { removeMemberAccess } from './member-access-objects.ts';

/** The field manager of what join applies in the control plane. */
const JOIN_FIELD_MANAGER = 'karmada-failover-join';

export interface JoinRequest {
  readonly name: string;
  /** Kinds the member's Works may carry, beyond the defaults (checked: no wildcard, nothing escalating). */
  readonly extraRules: readonly PolicyRule[];
  /** How long to wait for the member's token controller to fill the token Secret. */
  readonly tokenWaitMs?: number;
}

export interface JoinDeps {
  readonly controlPlane: KubeConfig;
  readonly member: KubeConfig;
  readonly log: Logger;
  readonly signal: AbortSignal;
}

export interface JoinOutcome {
  readonly cluster: Cluster;
  /** created: a new Cluster; updated: joined again with something changed; unchanged: as it was. */
  readonly kind: 'created' | 'updated' | 'unchanged';
}

/** Joins the member; throws a ConfigError (exit 2) for anything the operator must change. */
export async function joinCluster(req: JoinRequest, deps: JoinDeps): Promise<JoinOutcome> {
  const problems = workloadRuleProblems(req.extraRules);
  if (problems.length > 0) throw new ConfigError(problems.map((p) => `--rules: ${p}`));
  const endpoint = memberEndpoint(deps.member);
  const id = await memberId(deps.member, endpoint.apiEndpoint, deps.signal);

  const clusters = new ResourceClient<Cluster>(deps.controlPlane, clusterKind);
  const all = (await clusters.list({ signal: deps.signal })).items;
  const names = credentialNames(req.name, namespaces.cluster);
  const existing = all.find((c) => c.metadata.name === req.name);
  const decision = decideRegistration(existing, all, {
    name: req.name,
    syncMode: syncModes.push,
    id,
    ...endpoint,
    provider: '',
    region: '',
    zones: [],
    secretRef: { namespace: names.namespace, name: names.credentialsSecret },
  });
  if (decision.kind === 'refuse') throw new ConfigError([decision.reason]);

  const rules = [...MEMBER_STATUS_RULES, ...DEFAULT_WORKLOAD_RULES, ...req.extraRules];
  const fresh = existing === undefined;
  try {
    const tokens = await ensureMemberCredentials({
      member: deps.member,
      names,
      reported: { credentials: true, impersonator: false },
      rules,
      log: deps.log,
      signal: deps.signal,
      ...(req.tokenWaitMs === undefined ? {} : { tokenWaitMs: req.tokenWaitMs }),
    });
    // The role is join's own: joining again with other --rules changes it.
    await syncRoleRules(deps.member, names.clusterRole, rules, deps.signal);
    const writes = { signal: deps.signal, log: deps.log };
    await ensureNamespace(
      new ResourceClient<Namespace>(deps.controlPlane, NAMESPACE_RESOURCE),
      names.namespace,
      writes,
    );
    const cluster = await writeCluster(clusters, decision, { ...writes, id });
    await applyCredentialSecrets(
      new ResourceClient<Secret>(deps.controlPlane, SECRET_RESOURCE),
      { names, tokens, owner: cluster },
      { ...writes, fieldManager: JOIN_FIELD_MANAGER },
    );
    const kind =
      decision.kind === 'create' ? 'created' : decision.kind === 'update' ? 'updated' : 'unchanged';
    deps.log.info({ cluster: req.name, id, outcome: kind }, 'cluster joined in Push mode');
    return { cluster, kind };
  } catch (err: unknown) {
    // A first join that failed half-way takes back what it made in the member.
    if (fresh) await removeMemberAccess(deps.member, names, deps.log).catch(() => undefined);
    throw err;
  }
}

/** Where and how the member is reached, from its kubeconfig's current context. */
function memberEndpoint(kc: KubeConfig): {
  apiEndpoint: string;
  proxyURL: string;
  insecureSkipTLSVerification: boolean;
} {
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new ConfigError(['--cluster-kubeconfig names no cluster for its context']);
  return {
    apiEndpoint: cluster.server.replace(/\/+$/, ''),
    proxyURL: cluster.proxyUrl ?? '',
    insecureSkipTLSVerification: cluster.skipTLSVerify,
  };
}

/** The member's id: its kube-system namespace's uid. An unreachable member is the operator's to fix. */
async function memberId(kc: KubeConfig, endpoint: string, signal: AbortSignal): Promise<string> {
  try {
    const ns = await new ResourceClient<Namespace>(kc, NAMESPACE_RESOURCE, { timeoutMs: 15_000 }).get(
      'kube-system',
      { signal },
    );
    const uid = ns.metadata?.uid ?? '';
    if (uid === '')
      throw new ConfigError([`the member at ${endpoint} has a kube-system namespace without uid`]);
    return uid;
  } catch (err: unknown) {
    if (err instanceof ConfigError || !(err instanceof KubeError)) throw err;
    throw new ConfigError([`cannot read the member's kube-system namespace at ${endpoint}: ${err.message}`]);
  }
}

interface ClusterRole extends KubeObject {
  readonly rules?: readonly PolicyRule[];
}

/** Writes `rules` into the member ClusterRole when they differ (a Conflict is the operator's to retry). */
async function syncRoleRules(
  kc: KubeConfig,
  name: string,
  rules: readonly PolicyRule[],
  signal: AbortSignal,
): Promise<void> {
  const roles = new ResourceClient<ClusterRole>(kc, CLUSTER_ROLE_RESOURCE);
  const role = await roles.get(name, { signal });
  if (jsonEqual(role.rules ?? [], rules)) return;
  await roles.replace({ ...role, rules: rules.map((rule) => ({ ...rule })) }, { signal });
}

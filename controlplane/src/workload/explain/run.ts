/**
 * `explain`: reads one binding and every Cluster from the Karmada API server and prints
 * {@link explainBinding}'s report, with the clusters' heartbeat Leases (a Ready=Unknown they
 * contradict is stale) and every WorkloadRebalancer, which may be unreadable without failing the
 * report (no RBAC for them, or their CRD not installed). `namespace/name` is a ResourceBinding, a
 * bare `name` a ClusterResourceBinding; when no binding has that name, the one binding of a
 * resource template with that name is taken (so `default/web` finds `default/web-deployment`).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import {
  clusterKind,
  clusterResourceBindingKind,
  namespaces,
  resourceBindingKind,
  workloadRebalancerKind,
  type Cluster,
  type ResourceBinding,
  type WorkloadRebalancer,
} from '@kf/api';
import {
  CORE_EVENT_RESOURCE,
  LEASE_RESOURCE,
  ResourceClient,
  isForbidden,
  isNotFound,
  leaseRenewedAtMs,
  splitKey,
  toKubeError,
  type CoreEvent,
  type Lease,
} from '@kf/kube';
import { explainBinding, type ExplainSettings, type Explanation } from './explain.ts';
import { renderExplanation } from './render.ts';

export interface ExplainConfig {
  readonly kubeconfig: string;
  /** `namespace/name` (ResourceBinding) or `name` (ClusterResourceBinding). */
  readonly target: string;
  readonly output: 'text' | 'json';
  readonly settings: ExplainSettings;
}

export class BindingNotFoundError extends Error {
  override readonly name = 'BindingNotFoundError';
}

/** Finds the binding `target` names (see header). */
export async function findBinding(
  kc: KubeConfig,
  target: string,
): Promise<{ readonly binding: ResourceBinding; readonly clusterScoped: boolean }> {
  const { namespace, name } = splitKey(target);
  const clusterScoped = namespace === undefined;
  const client = new ResourceClient<ResourceBinding>(
    kc,
    clusterScoped ? clusterResourceBindingKind : resourceBindingKind,
  );
  const direct = await client.find(target);
  if (direct !== undefined) return { binding: direct, clusterScoped };
  const { items } = await client.list(namespace === undefined ? {} : { namespace });
  const byTemplate = items.filter((b) => b.spec.resource.name === name);
  const kind = clusterScoped ? 'ClusterResourceBinding' : 'ResourceBinding';
  const [only, ...more] = byTemplate;
  if (only === undefined)
    throw new BindingNotFoundError(`no ${kind} ${target}, nor one for a template named so`);
  if (more.length > 0) {
    const names = byTemplate.map((b) => b.metadata.name ?? '').join(', ');
    throw new BindingNotFoundError(`several ${kind}s for templates named ${name}: ${names}; name one`);
  }
  return { binding: only, clusterScoped };
}

/**
 * Every WorkloadRebalancer, or why they could not be read: a 403 (the identity may not list them)
 * or a 404 (their CRD is not installed) leaves the rest of the report worth having. Any other
 * failure is thrown, as for the binding and the Clusters.
 */
export async function readRebalancers(
  list: () => Promise<{ readonly items: readonly WorkloadRebalancer[] }>,
): Promise<{ readonly rebalancers: readonly WorkloadRebalancer[]; readonly unreadable?: string }> {
  try {
    return { rebalancers: (await list()).items };
  } catch (err: unknown) {
    const why = toKubeError(err).message;
    if (isForbidden(err)) return { rebalancers: [], unreadable: `forbidden (403): ${why}` };
    if (isNotFound(err)) {
      return {
        rebalancers: [],
        unreadable: `not served (404: WorkloadRebalancer CRD not installed?): ${why}`,
      };
    }
    throw err;
  }
}

/** Reads, explains, and returns the report and its text. */
export async function explain(
  kc: KubeConfig,
  config: Pick<ExplainConfig, 'target' | 'settings'>,
  nowMs: number,
): Promise<{ readonly explanation: Explanation; readonly text: string }> {
  const { binding, clusterScoped } = await findBinding(kc, config.target);
  const { items: clusters } = await new ResourceClient<Cluster>(kc, clusterKind).list();
  // Events of cluster-scoped objects live in `default`, as client-go records them.
  const { items: events } = await new ResourceClient<CoreEvent>(kc, CORE_EVENT_RESOURCE).list({
    namespace: binding.metadata.namespace ?? 'default',
    fieldSelector: `involvedObject.name=${binding.metadata.name ?? ''}`,
  });
  const { items: leases } = await new ResourceClient<Lease>(kc, LEASE_RESOURCE).list({
    namespace: namespaces.cluster,
  });
  const leaseRenewedAt = new Map<string, number>();
  for (const l of leases) {
    const at = leaseRenewedAtMs(l);
    if (at !== undefined) leaseRenewedAt.set(l.metadata?.name ?? '', at);
  }
  const rebalancerClient = new ResourceClient<WorkloadRebalancer>(kc, workloadRebalancerKind);
  const { rebalancers, unreadable } = await readRebalancers(() => rebalancerClient.list());
  const explanation = explainBinding({
    binding,
    clusterScoped,
    clusters,
    nowMs,
    settings: config.settings,
    events,
    leaseRenewedAtMs: leaseRenewedAt,
    rebalancers,
    ...(unreadable === undefined ? {} : { rebalancersUnreadable: unreadable }),
  });
  return { explanation, text: renderExplanation(explanation, nowMs) };
}

/**
 * `explain`: reads one binding and every Cluster from the Karmada API server and prints
 * {@link explainBinding}'s report. `namespace/name` is a ResourceBinding, a bare `name` a
 * ClusterResourceBinding; when no binding has that name, the one binding of a resource template
 * with that name is taken (so `default/web` finds `default/web-deployment`).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import {
  clusterKind,
  clusterResourceBindingKind,
  resourceBindingKind,
  type Cluster,
  type ResourceBinding,
} from '@kf/api';
import { CORE_EVENT_RESOURCE, ResourceClient, type CoreEvent, splitKey } from '@kf/kube';
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
  const explanation = explainBinding({
    binding,
    clusterScoped,
    clusters,
    nowMs,
    settings: config.settings,
    events,
  });
  return { explanation, text: renderExplanation(explanation, nowMs) };
}

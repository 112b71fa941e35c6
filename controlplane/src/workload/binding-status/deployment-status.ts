/**
 * A Deployment template's status from its clusters: replica counts summed over the
 * clusters that reported a status; `observedGeneration` moves to the template's generation only
 * once every cluster has observed its own object's generation and that object was made from the
 * current template generation. Clusters still draining during a graceful eviction count too.
 */
import type { AggregatedStatusItem } from '@kf/api';
import type { ResourceTemplate } from '../template.ts';

const SUMMED = [
  'replicas',
  'readyReplicas',
  'updatedReplicas',
  'availableReplicas',
  'unavailableReplicas',
] as const;

export interface DeploymentStatus {
  readonly observedGeneration?: number;
  readonly replicas?: number;
  readonly readyReplicas?: number;
  readonly updatedReplicas?: number;
  readonly availableReplicas?: number;
  readonly unavailableReplicas?: number;
}

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** Every cluster reported a status that observed its object, made from the current template. */
function isObservedEverywhere(items: readonly AggregatedStatusItem[], templateGeneration: number): boolean {
  return (
    items.length > 0 &&
    items.every(
      (i) =>
        i.status !== undefined &&
        num(i.status['observedGeneration']) >= num(i.status['generation']) &&
        num(i.status['resourceTemplateGeneration']) >= templateGeneration,
    )
  );
}

export function aggregateDeploymentStatus(
  t: ResourceTemplate,
  items: readonly AggregatedStatusItem[],
): DeploymentStatus {
  const generation = t.metadata.generation ?? 0;
  const previous = t.status?.['observedGeneration'];
  const out: Record<string, number> = {};
  if (isObservedEverywhere(items, generation)) out['observedGeneration'] = generation;
  else if (typeof previous === 'number') out['observedGeneration'] = previous;
  for (const f of SUMMED) {
    const sum = items.reduce((acc, i) => acc + num(i.status?.[f]), 0);
    // Zero counts are left out, as Go's omitempty leaves them out of the API object.
    if (sum !== 0) out[f] = sum;
  }
  return out;
}

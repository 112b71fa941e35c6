/**
 * Replica assignment: turns the selected clusters into `spec.clusters` with the
 * placement's strategy.
 */
import type { TargetCluster } from '@kf/api';
import type { BindingView, StrategyView } from '../binding-view.ts';
import type { Candidate } from '../candidate.ts';
import { nameOrderFor } from '../name-order.ts';
import { fail, succeed, type Outcome } from '../outcome.ts';
import { assignDynamic } from './dynamic.ts';
import { assignStaticWeight } from './static-weight.ts';
import { assignByTiers } from './tiers.ts';

export interface AssignOptions {
  /** `--enable-empty-workload-propagation`: list selected clusters left without replicas too. */
  readonly emptyWorkloadPropagation: boolean;
  /** The affinity term has overflow affinities: fill tier by tier (dynamic strategies only). */
  readonly tiered: boolean;
}

/**
 * Workloads (replicas or replica requirements, at most one pod template) are divided by the
 * strategy and lose 0-replica entries; other bindings get every selected cluster without a
 * replica count. An empty selection is an error.
 */
export function assignReplicas(
  b: BindingView,
  strategy: StrategyView,
  selected: readonly Candidate[],
  options: AssignOptions,
): Outcome<readonly TargetCluster[]> {
  if (selected.length === 0) return fail('SchedulerError', 'no clusters available to schedule');
  let result: readonly TargetCluster[];
  if ((b.replicas > 0 || b.hasReplicaRequirements) && b.componentCount <= 1) {
    const out = divideReplicas(b, strategy, selected, options.tiered);
    if (!out.ok) return out;
    result = out.value.filter((t) => (t.replicas ?? 0) > 0);
  } else {
    result = selected.map((c) => ({ name: c.name }));
  }
  if (options.emptyWorkloadPropagation) {
    const listed = new Set(result.map((t) => t.name));
    result = [...result, ...selected.filter((c) => !listed.has(c.name)).map((c) => ({ name: c.name }))];
  }
  return succeed(result);
}

function divideReplicas(
  b: BindingView,
  strategy: StrategyView,
  selected: readonly Candidate[],
  tiered: boolean,
): Outcome<readonly TargetCluster[]> {
  const order = nameOrderFor(b.uid);
  switch (strategy.kind) {
    case 'Duplicated':
      return succeed(selected.map((c) => ({ name: c.name, replicas: b.replicas })));
    case 'StaticWeight':
      return succeed(assignStaticWeight(b.replicas, selected, strategy.rules, order));
    case 'DynamicWeight':
    case 'Aggregated': {
      const divide = (
        replicas: number,
        candidates: readonly Candidate[],
      ): Outcome<readonly TargetCluster[]> =>
        assignDynamic({
          replicas,
          candidates,
          previous: b.assigned,
          fresh: b.fresh,
          aggregated: strategy.kind === 'Aggregated',
          order,
        });
      return tiered ? assignByTiers(b.replicas, selected, divide) : divide(b.replicas, selected);
    }
    case 'Unsupported':
      return fail('SchedulerError', 'unsupported replica scheduling strategy');
  }
}

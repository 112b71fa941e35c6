/**
 * Dynamic division: DynamicWeight spreads replicas in proportion to what clusters can
 * take; Aggregated packs them into as few clusters as possible. Both keep the replicas that are
 * already placed and only divide the difference (Steady), unless a reschedule was asked for
 * (Fresh).
 */
import type { TargetCluster } from '@kf/api';
import type { Candidate } from '../candidate.ts';
import type { NameOrder } from '../name-order.ts';
import { fail, succeed, type Outcome } from '../outcome.ts';
import { apportion, type Party } from './webster.ts';

export interface DynamicInput {
  /** Replicas the candidates must hold in the end. */
  readonly replicas: number;
  /** In selection order. */
  readonly candidates: readonly Candidate[];
  /** Current replicas by cluster (`spec.clusters`); clusters that are not candidates are dropped. */
  readonly previous: ReadonlyMap<string, number>;
  /** Ignore the current placement and divide everything anew. */
  readonly fresh: boolean;
  readonly aggregated: boolean;
  readonly order: NameOrder;
}

interface Plan {
  /** Replicas to divide now. */
  readonly target: number;
  /** Weights, by weight descending (stable on candidate order). */
  readonly weights: readonly Party[];
  /** Replicas kept where they are; the divided ones are added on top. */
  readonly kept: ReadonlyMap<string, number>;
}

/**
 * The new placement, listing the divided clusters by name and then kept clusters that got no
 * new replicas; entries with 0 replicas are dropped. Unschedulable when the clusters cannot
 * take the replicas to divide.
 */
export function assignDynamic(input: DynamicInput): Outcome<readonly TargetCluster[]> {
  const scheduled = new Map<string, number>();
  for (const c of input.candidates) {
    const replicas = input.previous.get(c.name);
    if (replicas !== undefined) scheduled.set(c.name, replicas);
  }
  const plan = planDivision(input, scheduled);
  if (plan === undefined)
    return succeed(nonEmpty([...scheduled].map(([name, replicas]) => ({ name, replicas }))));
  const total = plan.weights.reduce((sum, p) => sum + p.votes, 0);
  if (total < plan.target) {
    return fail('Unschedulable', `Clusters available replicas ${total} are not enough to schedule.`);
  }
  const weights = input.aggregated ? packFirst(plan.weights, plan.kept, plan.target) : plan.weights;
  const divided = apportion(plan.target, weights, input.order);
  const merged: TargetCluster[] = divided.map((s) => ({
    name: s.name,
    replicas: s.seats + (plan.kept.get(s.name) ?? 0),
  }));
  const dividedNames = new Set(divided.map((s) => s.name));
  for (const [name, replicas] of plan.kept) if (!dividedNames.has(name)) merged.push({ name, replicas });
  return succeed(nonEmpty(merged));
}

/** What to divide; undefined when the current placement already holds the replicas. */
function planDivision(input: DynamicInput, scheduled: ReadonlyMap<string, number>): Plan | undefined {
  let assigned = 0;
  for (const r of scheduled.values()) assigned += r;
  const none = new Map<string, number>();
  if (input.fresh) {
    const weights = input.candidates.map((c) => ({
      name: c.name,
      votes: c.allocatable + (scheduled.get(c.name) ?? 0),
    }));
    return { target: input.replicas, weights: byVotes(weights), kept: none };
  }
  if (assigned > input.replicas) {
    const weights = input.candidates
      .filter((c) => scheduled.has(c.name))
      .map((c) => ({ name: c.name, votes: scheduled.get(c.name) ?? 0 }));
    return { target: input.replicas, weights: byVotes(weights), kept: none };
  }
  if (assigned < input.replicas) {
    const weights = input.candidates.map((c) => ({ name: c.name, votes: c.allocatable }));
    return { target: input.replicas - assigned, weights: byVotes(weights), kept: scheduled };
  }
  return undefined;
}

/** Stable: equal weights keep candidate order. */
function byVotes(parties: readonly Party[]): readonly Party[] {
  return [...parties].sort((a, b) => b.votes - a.votes);
}

/**
 * Aggregated: clusters already holding replicas first (order kept otherwise), then the shortest
 * prefix that can take `target`.
 */
function packFirst(
  weights: readonly Party[],
  kept: ReadonlyMap<string, number>,
  target: number,
): readonly Party[] {
  const holds = (p: Party): boolean => (kept.get(p.name) ?? 0) > 0;
  const ordered = [...weights.filter(holds), ...weights.filter((p) => !holds(p))];
  const prefix: Party[] = [];
  let sum = 0;
  for (const p of ordered) {
    if (sum >= target) break;
    prefix.push(p);
    sum += p.votes;
  }
  return prefix;
}

function nonEmpty(clusters: readonly TargetCluster[]): readonly TargetCluster[] {
  return clusters.filter((c) => (c.replicas ?? 0) > 0);
}

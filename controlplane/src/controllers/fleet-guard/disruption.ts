/**
 * The fleet disruption guard: stop evicting while so much of the fleet looks down at once that the
 * likelier cause is the control plane's own view (its network, its apiserver, an expired
 * credential) rather than the clusters. Upstream Karmada has no such guard and will evict from
 * every cluster it loses sight of; Kubernetes' node lifecycle controller has one per zone
 * (`--unhealthy-zone-threshold` 0.55, and a full stop when every node is not ready), which this
 * follows at fleet level.
 *
 * Rules:
 * - every cluster unhealthy (and at least one cluster): paused, whatever the fleet size — there is
 *   nowhere to move workloads to, and evicting would only empty placements;
 * - fleets smaller than `minFleetSize`: otherwise never paused, since one failure in a fleet of two
 *   is already half of it and the share says nothing about the cause;
 * - otherwise paused when the unhealthy share reaches `pauseAtUnhealthyShare`.
 * Pausing is immediate (each eviction it lets through is one too many). Resuming needs the share
 * to drop below the lower `resumeBelowUnhealthyShare` and stay there for `resumeAfterMs`, so a
 * fleet hovering around the threshold does not flap between the two modes.
 */

export type FleetMode = 'normal' | 'paused';

/** One cluster as the guard sees it; the caller decides health (Ready=True, not being deleted). */
export interface FleetMember {
  readonly name: string;
  readonly healthy: boolean;
}

export interface FleetGuardConfig {
  /** Unhealthy share (0–1) at or above which evictions pause. */
  readonly pauseAtUnhealthyShare: number;
  /** Unhealthy share below which a paused guard starts counting towards resuming; ≤ the above. */
  readonly resumeBelowUnhealthyShare: number;
  /** Fleets with fewer clusters are only paused when every cluster is unhealthy. */
  readonly minFleetSize: number;
  /** How long the share must stay below the resume threshold before evictions resume. */
  readonly resumeAfterMs: number;
}

export const DEFAULT_FLEET_GUARD: FleetGuardConfig = {
  // Kubernetes' --unhealthy-zone-threshold: "more than half" with a little margin.
  pauseAtUnhealthyShare: 0.55,
  // Ten points of hysteresis: in a fleet of ten, pause at 6 down, resume at 4 or fewer.
  resumeBelowUnhealthyShare: 0.45,
  // The smallest fleet where "most clusters are down" differs from "one cluster is down".
  minFleetSize: 3,
  // Longer than the agents' 30s success threshold, so recovering clusters have settled.
  resumeAfterMs: 60_000,
};

/** What the guard remembers between decisions. */
export interface FleetGuardState {
  readonly mode: FleetMode;
  /** While paused: since when the fleet has been calm enough to resume. */
  readonly calmSinceMs?: number;
}

export const INITIAL_FLEET_GUARD_STATE: FleetGuardState = { mode: 'normal' };

export interface FleetGuardDecision {
  readonly state: FleetGuardState;
  /** True when `state.mode` differs from the previous mode (emit an Event with `reason`). */
  readonly changed: boolean;
  /** A sentence for people: the mode, the numbers behind it and what would change it. */
  readonly reason: string;
  /** While paused and calm: milliseconds until evictions would resume. */
  readonly recheckInMs?: number;
}

interface Census {
  readonly total: number;
  readonly unhealthy: readonly string[];
  readonly share: number;
}

/** Folds the current fleet health into the guard's state. */
export function decideFleetMode(
  members: readonly FleetMember[],
  previous: FleetGuardState,
  nowMs: number,
  config: FleetGuardConfig,
): FleetGuardDecision {
  const census = takeCensus(members);
  const disrupted = isDisrupted(census, config);
  if (previous.mode === 'normal') {
    if (disrupted) return { state: { mode: 'paused' }, changed: true, reason: pausedReason(census, config) };
    return { state: { mode: 'normal' }, changed: false, reason: normalReason(census, config) };
  }
  if (!isCalm(census, config)) {
    const reason = disrupted ? pausedReason(census, config) : waitingReason(census, config);
    return { state: { mode: 'paused' }, changed: false, reason };
  }
  const calmSinceMs = previous.calmSinceMs ?? nowMs;
  const resumeAtMs = calmSinceMs + config.resumeAfterMs;
  if (nowMs >= resumeAtMs) {
    return { state: { mode: 'normal' }, changed: true, reason: resumedReason(census, config) };
  }
  return {
    state: { mode: 'paused', calmSinceMs },
    changed: false,
    reason: calmingReason(census, config, resumeAtMs - nowMs),
    recheckInMs: resumeAtMs - nowMs,
  };
}

function takeCensus(members: readonly FleetMember[]): Census {
  const unhealthy = members
    .filter((m) => !m.healthy)
    .map((m) => m.name)
    .sort();
  return {
    total: members.length,
    unhealthy,
    share: members.length === 0 ? 0 : unhealthy.length / members.length,
  };
}

function isAllDown(c: Census): boolean {
  return c.total > 0 && c.unhealthy.length === c.total;
}

function isGuarded(c: Census, config: FleetGuardConfig): boolean {
  return c.total >= config.minFleetSize;
}

function isDisrupted(c: Census, config: FleetGuardConfig): boolean {
  return isAllDown(c) || (isGuarded(c, config) && c.share >= config.pauseAtUnhealthyShare);
}

function isCalm(c: Census, config: FleetGuardConfig): boolean {
  if (isAllDown(c)) return false;
  return (
    !isGuarded(c, config) ||
    c.share < Math.min(config.resumeBelowUnhealthyShare, config.pauseAtUnhealthyShare)
  );
}

const MAX_NAMES = 5;

/** A configured share as a percentage, to one decimal. */
function percent(share: number): string {
  return `${Math.round(share * 1000) / 10}%`;
}

function count(c: Census): string {
  const verb = c.unhealthy.length === 1 ? 'is' : 'are';
  const tenths = c.total === 0 ? 0 : Math.floor((c.unhealthy.length * 1000) / c.total);
  return `${c.unhealthy.length} of ${c.total} clusters (${tenths / 10}%) ${verb} not ready`;
}

function names(c: Census): string {
  if (c.unhealthy.length === 0) return '';
  const shown = c.unhealthy.slice(0, MAX_NAMES).join(', ');
  const more = c.unhealthy.length - MAX_NAMES;
  return more > 0 ? ` (not ready: ${shown} and ${more} more)` : ` (not ready: ${shown})`;
}

function pausedReason(c: Census, config: FleetGuardConfig): string {
  if (isAllDown(c)) {
    return `Evictions paused: all ${c.total} clusters are not ready, so there is nowhere to move workloads to${names(c)}.`;
  }
  return (
    `Evictions paused: ${count(c)}, at or above the ${percent(config.pauseAtUnhealthyShare)} threshold; ` +
    `so many at once more likely means the control plane lost sight of them${names(c)}. ` +
    `Evictions resume once fewer than ${percent(config.resumeBelowUnhealthyShare)} are not ready ` +
    `for ${config.resumeAfterMs / 1000}s.`
  );
}

function waitingReason(c: Census, config: FleetGuardConfig): string {
  return (
    `Evictions stay paused: ${count(c)}, below the ${percent(config.pauseAtUnhealthyShare)} threshold ` +
    `but not yet below ${percent(config.resumeBelowUnhealthyShare)}${names(c)}.`
  );
}

function calmingReason(c: Census, config: FleetGuardConfig, remainingMs: number): string {
  return (
    `Evictions stay paused: ${count(c)}, below ${percent(config.resumeBelowUnhealthyShare)}; ` +
    `they resume in ${Math.ceil(remainingMs / 1000)}s if it stays that way.`
  );
}

function resumedReason(c: Census, config: FleetGuardConfig): string {
  return (
    `Evictions resumed: ${count(c)}, below ${percent(config.resumeBelowUnhealthyShare)} ` +
    `for ${config.resumeAfterMs / 1000}s.`
  );
}

function normalReason(c: Census, config: FleetGuardConfig): string {
  if (!isGuarded(c, config)) {
    return (
      `Evictions proceed: ${count(c)}; a fleet of fewer than ${config.minFleetSize} clusters ` +
      `is only paused when every cluster is not ready.`
    );
  }
  return `Evictions proceed: ${count(c)}, below the ${percent(config.pauseAtUnhealthyShare)} threshold.`;
}

/**
 * The fleet guard as evictions consult it: remembers the guard's mode between decisions, reads
 * fleet health from the Cluster cache, logs transitions and keeps the `fleet_guard_paused` gauge.
 * The rules themselves are in disruption.ts.
 */
import { clusterConditionTypes, isConditionTrue, type Cluster } from '@kf/api';
import type { Logger } from '@kf/runtime';
import {
  INITIAL_FLEET_GUARD_STATE,
  decideFleetMode,
  type FleetGuardConfig,
  type FleetGuardState,
  type FleetMember,
} from './disruption.ts';

export interface FleetVerdict {
  readonly paused: boolean;
  /** A sentence for people, for Events and logs. */
  readonly reason: string;
  /** While paused and calm: when evictions would resume. */
  readonly recheckInMs?: number;
}

export interface FleetGuardDeps {
  readonly clusters: () => readonly Cluster[];
  readonly config: FleetGuardConfig;
  readonly log: Logger;
  readonly onPausedChange: (paused: boolean) => void;
}

/** Healthy = Ready is True and the cluster is not being deleted. */
export function fleetMemberOf(cluster: Cluster): FleetMember {
  return {
    name: cluster.metadata.name ?? '',
    healthy:
      cluster.metadata.deletionTimestamp === undefined &&
      isConditionTrue(cluster.status, clusterConditionTypes.ready),
  };
}

export class FleetGuard {
  readonly #deps: FleetGuardDeps;
  #state: FleetGuardState = INITIAL_FLEET_GUARD_STATE;

  constructor(deps: FleetGuardDeps) {
    this.#deps = deps;
  }

  /** Folds the fleet's health now into the guard and says whether evictions may proceed. */
  check(nowMs: number): FleetVerdict {
    const members = this.#deps.clusters().map(fleetMemberOf);
    const decision = decideFleetMode(members, this.#state, nowMs, this.#deps.config);
    this.#state = decision.state;
    const paused = decision.state.mode === 'paused';
    if (decision.changed) {
      this.#deps.onPausedChange(paused);
      this.#deps.log.info(
        { paused, reason: decision.reason },
        paused ? 'evictions paused' : 'evictions resumed',
      );
    }
    return {
      paused,
      reason: decision.reason,
      ...(decision.recheckInMs === undefined ? {} : { recheckInMs: decision.recheckInMs }),
    };
  }
}

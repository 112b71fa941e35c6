/** The purge mode the taint manager writes into the graceful eviction tasks it creates. */
import { givenPurgeMode, purgeModes, type ClusterFailoverBehavior, type PurgeMode } from '@kf/api';

/** Values `--no-execute-taint-eviction-purge-mode` accepts. */
export type TaintEvictionPurgeMode = Exclude<PurgeMode, 'Never'>;

/** Upstream's default for `--no-execute-taint-eviction-purge-mode`. */
export const DEFAULT_NO_EXECUTE_TAINT_EVICTION_PURGE_MODE: TaintEvictionPurgeMode = purgeModes.gracefully;

/**
 * As upstream: the binding's `spec.failover.cluster.purgeMode` when given; `Gracefully` when
 * `spec.failover.cluster` is set without one (an empty `purgeMode: ""` counts as none); the flag's value when the binding has no
 * `spec.failover.cluster` at all.
 */
export function decidePurgeMode(
  clusterFailover: ClusterFailoverBehavior | undefined,
  flagDefault: TaintEvictionPurgeMode,
): TaintEvictionPurgeMode {
  if (clusterFailover === undefined) return flagDefault;
  return givenPurgeMode(clusterFailover.purgeMode) ?? purgeModes.gracefully;
}

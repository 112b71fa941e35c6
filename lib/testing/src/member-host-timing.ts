/**
 * The short periods of a member host in the harness, the agent's and the control plane's for Push
 * members alike (and Karmada's controller-manager's for its Push members): status every 1 s, Ready
 * debounced 3 s each way. The flags are built from these numbers, and the fault tests reason with
 * the same numbers.
 */
export const FAILOVER_MEMBER_HOST = {
  statusPeriodSeconds: 1,
  successThresholdSeconds: 3,
  failureThresholdSeconds: 3,
} as const;

/** `--cluster-status-update-frequency` and the two thresholds, as upstream's binaries name them. */
export const MEMBER_STATUS_FLAGS: readonly string[] = [
  `--cluster-status-update-frequency=${String(FAILOVER_MEMBER_HOST.statusPeriodSeconds)}s`,
  `--cluster-success-threshold=${String(FAILOVER_MEMBER_HOST.successThresholdSeconds)}s`,
  `--cluster-failure-threshold=${String(FAILOVER_MEMBER_HOST.failureThresholdSeconds)}s`,
];

/**
 * The timings and sizes of a member's host, and their flags: the agent (for its own cluster) and
 * the control plane (for each Push cluster) take the same flags, with karmada-agent's and
 * karmada-controller-manager's names and defaults (the two agree on these).
 */
import { InvalidArgumentError, type Command } from 'commander';
import { boolFlag, durationFlag, flag, parsePositiveInt, type Problems } from '@kf/runtime';

export interface MemberHostConfig {
  /** Period of the status sync (probe, collection, write). */
  readonly clusterStatusUpdateFrequencyMs: number;
  readonly clusterLeaseDurationMs: number;
  /** The Lease is renewed every duration × this fraction. */
  readonly clusterLeaseRenewIntervalFraction: number;
  /** How long the member must be seen healthy before Ready turns True. */
  readonly clusterSuccessThresholdMs: number;
  /** How long the member must be seen unhealthy before Ready turns False. */
  readonly clusterFailureThresholdMs: number;
  /** How long a status sync waits for the member's node and pod caches. */
  readonly clusterCacheSyncTimeoutMs: number;
  /** Works of one member applied at once. */
  readonly concurrentWorkSyncs: number;
  /** Collect node and resource summaries (the scheduler's replica estimates read them). */
  readonly enableClusterResourceModeling: boolean;
}

export const MEMBER_HOST_DEFAULTS: MemberHostConfig = {
  clusterStatusUpdateFrequencyMs: 10_000,
  clusterLeaseDurationMs: 40_000,
  clusterLeaseRenewIntervalFraction: 0.25,
  clusterSuccessThresholdMs: 30_000,
  clusterFailureThresholdMs: 30_000,
  clusterCacheSyncTimeoutMs: 120_000,
  concurrentWorkSyncs: 5,
  enableClusterResourceModeling: true,
};

/** Raw commander values of the flags {@link addMemberHostFlags} adds. */
export interface MemberHostOptions {
  clusterStatusUpdateFrequency: number;
  clusterLeaseDuration: number;
  clusterLeaseRenewIntervalFraction: number;
  clusterSuccessThreshold: number;
  clusterFailureThreshold: number;
  clusterCacheSyncTimeout: number;
  concurrentWorkSyncs: number;
  enableClusterResourceModeling: boolean;
}

function parseFraction(text: string): number {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(value))
    throw new InvalidArgumentError(`"${text}" is not a number`);
  return value;
}

/** Adds the member host's flags; `whose` says what they apply to in the help (`the member`, `each Push cluster`). */
export function addMemberHostFlags(cmd: Command, whose: string): Command {
  const d = MEMBER_HOST_DEFAULTS;
  return cmd
    .addOption(
      durationFlag(
        '--cluster-status-update-frequency <duration>',
        `period of the status checks of ${whose}`,
        d.clusterStatusUpdateFrequencyMs,
      ),
    )
    .addOption(
      durationFlag(
        '--cluster-lease-duration <duration>',
        `duration of the heartbeat Lease of ${whose}`,
        d.clusterLeaseDurationMs,
      ),
    )
    .addOption(
      flag(
        '--cluster-lease-renew-interval-fraction <fraction>',
        'the heartbeat Lease is renewed every lease duration × this fraction',
      )
        .argParser(parseFraction)
        .default(d.clusterLeaseRenewIntervalFraction),
    )
    .addOption(
      durationFlag(
        '--cluster-success-threshold <duration>',
        `how long ${whose} must be seen healthy before Ready turns True`,
        d.clusterSuccessThresholdMs,
      ),
    )
    .addOption(
      durationFlag(
        '--cluster-failure-threshold <duration>',
        `how long ${whose} must be seen unhealthy before Ready turns False`,
        d.clusterFailureThresholdMs,
      ),
    )
    .addOption(
      durationFlag(
        '--cluster-cache-sync-timeout <duration>',
        'how long a status sync waits for the member node and pod caches',
        d.clusterCacheSyncTimeoutMs,
      ),
    )
    .addOption(
      flag('--concurrent-work-syncs <n>', `Works of ${whose} applied concurrently`)
        .argParser(parsePositiveInt)
        .default(d.concurrentWorkSyncs),
    )
    .addOption(
      boolFlag(
        '--enable-cluster-resource-modeling',
        'collect nodeSummary and resourceSummary from member nodes and pods',
        d.enableClusterResourceModeling,
      ),
    );
}

/** Validates the member host's flags, recording problems in `p`. */
export function memberHostConfigOf(p: Problems, o: MemberHostOptions): MemberHostConfig {
  const f = o.clusterLeaseRenewIntervalFraction;
  p.check(
    f > 0 && f < 1,
    `--cluster-lease-renew-interval-fraction must be between 0 and 1 (exclusive), got ${f}`,
  );
  p.check(o.clusterLeaseDuration >= 1000, '--cluster-lease-duration must be at least 1s');
  return {
    clusterStatusUpdateFrequencyMs: o.clusterStatusUpdateFrequency,
    clusterLeaseDurationMs: o.clusterLeaseDuration,
    clusterLeaseRenewIntervalFraction: f,
    clusterSuccessThresholdMs: o.clusterSuccessThreshold,
    clusterFailureThresholdMs: o.clusterFailureThreshold,
    clusterCacheSyncTimeoutMs: o.clusterCacheSyncTimeout,
    concurrentWorkSyncs: o.concurrentWorkSyncs,
    enableClusterResourceModeling: o.enableClusterResourceModeling,
  };
}

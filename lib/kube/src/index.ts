export { callDeadline, type CallDeadline } from './call-deadline.ts';
export {
  KubeError,
  codeForStatus,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isNotFound,
  isRetryable,
  kubeErrorFromResponse,
  kubeErrorFromStatus,
  toKubeError,
  type KubeErrorCode,
  type KubeErrorOptions,
  type StatusLike,
} from './errors.ts';
export {
  commandFailure,
  reportServiceFailure,
  serviceFailure,
  type CommandFailure,
} from './command-failure.ts';
export {
  DEFAULT_API_TIMEOUT_MS,
  KubeConfigError,
  apiTimeout,
  kubeClients,
  loadKubeConfig,
  loadKubeConfigs,
  makeApiClient,
  serverOf,
  timeoutMiddleware,
  type ApiClientOptions,
  type KubeClients,
  type LoadKubeConfigOptions,
  type NeededKubeConfig,
} from './kubeconfig.ts';
export { kubeconfigEnvPaths } from './kubeconfig-merge.ts';
export {
  apiVersionOf,
  collectionPath,
  groupVersionPath,
  joinKey,
  keyOf,
  splitKey,
  type KubeObject,
  type ObjectRef,
  type ResourceDescriptor,
} from './resource.ts';
export {
  ResourceClient,
  type ApplyOptions,
  type CallOptions,
  type DeleteOptions,
  type ListOptions,
  type ListPage,
  type ListPageOptions,
  type ListResult,
  type ResourceClientOptions,
} from './resource-client.ts';
export {
  CONFLICT_BACKOFF,
  retryOnConflict,
  updateWithRetry,
  type RetryOnConflictOptions,
  type UpdateSteps,
} from './retry-on-conflict.ts';
export {
  DEFAULT_PING_INTERVAL_MS,
  KubeTransport,
  setDefaultPingInterval,
  type Connection,
  type TransportOptions,
} from './transport.ts';
export { getJson, getText, type GetJsonOptions, type TextResponse } from './get-json.ts';
export { requestWithin } from './request-within.ts';
export { LineSplitter } from './ndjson.ts';
export { WatchProtocolError, parseWatchEvent, type WatchEvent } from './watch-event.ts';
export { CacheIndex } from './cache-index.ts';
export { OwnWrites } from './own-writes.ts';
export { applyDeltas, deepFreeze, diffRelist, planWatchEvent, type CacheDelta } from './cache-store.ts';
export { WatchCache, type WatchCacheOptions, type WatchCacheStats } from './watch-cache.ts';
export { WATCH_BACKOFF } from './watch-recovery.ts';
export {
  WATCH_BACKOFF_NAME,
  WATCH_RESTARTS_NAME,
  createWatchCacheMetrics,
  type WatchCacheMetrics,
} from './watch-metrics.ts';
export {
  LEASE_RESOURCE,
  formatMicroTime,
  leaseDurationMs,
  leaseRenewedAtMs,
  parseMicroTime,
  type Lease,
  type LeaseSpec,
} from './lease.ts';
export {
  judgeLease,
  planLeaseRelease,
  planLeaseSpec,
  type LeaseClaim,
  type LeaseJudgement,
  type LeaseObservation,
  type LeaseVerdict,
} from './lease-claim.ts';
export {
  DEFAULT_JITTER_FACTOR,
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
  LEADER_GAUGE_NAME,
  LeaderElector,
  defaultIdentity,
  makeLeaderGauge,
  validateTimings,
  type LeaderElectionOptions,
  type LeaderGauge,
} from './leader-election.ts';
export {
  CORE_EVENT_RESOURCE,
  EventRecorder,
  eventRetryDelayMs,
  referenceOf,
  type CoreEvent,
  type EventRecorderOptions,
  type EventType,
  type InvolvedObject,
} from './events.ts';
export {
  MAX_EVENT_MESSAGE_LENGTH,
  decideEventWrite,
  eventDedupeKey,
  eventName,
  formatTime,
  type EventWrite,
  type RecordedEvent,
} from './event-dedupe.ts';
export { DEFAULT_EVENT_PACE, type EventPace } from './event-pace.ts';

/**
 * @kf/runtime: what every karmada-failover process runs on. Work queue and controller runner,
 * Manager (runnables, leadership hook, shutdown), health/metrics HTTP server, clock and backoff,
 * logger and metrics factories, CLI helpers and signal handling.
 */
export { DEFAULT_BACKOFF, backoffDelayMs, type BackoffPolicy } from './backoff.ts';
export { isSameBindAddress, parseBindAddress, type BindAddress } from './bind-address.ts';
export {
  DEFAULT_ENV_PREFIX,
  LOG_LEVELS,
  boolFlag,
  collectProblems,
  durationFlag,
  envVarName,
  exitCodeFor,
  flag,
  formatDuration,
  parseBool,
  parseGoDuration,
  parseLogLevel,
  parsePositiveInt,
  parseRatio,
  type DurationFlagOptions,
  type Problems,
} from './cli.ts';
export { systemClock, type Clock } from './clock.ts';
export { MAX_TIMER_DELAY_MS, timerDelayMs } from './timer-delay.ts';
export { whenAborted } from './abort.ts';
export { mapConcurrently } from './concurrently.ts';
export {
  DEFAULT_RESYNC_PERIOD_MS,
  converged,
  keysFrom,
  recheckIn,
  type ControllerSpec,
  type EchoRecord,
  type KeysFromOptions,
  type ObjectEventHandler,
  type ObjectEventType,
  type ObjectSource,
  type Outcome,
  type ReconcileContext,
  type Source,
} from './controller.ts';
export {
  RECONCILE_RESULTS,
  createControllerMetrics,
  type BoundControllerMetrics,
  type ControllerMetrics,
  type ControllerMetricsOptions,
  type ReconcileResult,
} from './controller-metrics.ts';
export { startEndpointServers, type EndpointServersOptions } from './endpoint-servers.ts';
export { ConfigError, ShutdownTimeoutError, TerminalError } from './errors.ts';
export { HealthChecks, type CheckResult, type HealthCheck } from './health.ts';
export { startHttpServer, type HttpServer, type HttpServerOptions } from './http-server.ts';
export { REDACT_PATHS, createLogger, type LogLevel, type Logger, type LoggerOptions } from './logger.ts';
export {
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  Manager,
  type Leadership,
  type ManagerOptions,
  type Runnable,
} from './manager.ts';
export { heapCompactionMetrics, idleCompaction, type IdleCompactionOptions } from './idle-compaction.ts';
export { ManualClock } from './manual-clock.ts';
export { CONTROLPLANE_NODE_FLAGS } from './node-flags.ts';
export {
  DEFAULT_METRIC_PREFIX,
  SECONDS_BUCKETS,
  createRegistry,
  makeCounter,
  makeGauge,
  makeHistogram,
  type RegistryOptions,
} from './metrics.ts';
export {
  DEFAULT_LEADER_ELECTION_TIMINGS,
  addLeaderElectionTimingFlags,
  addServingFlags,
  checkLeaderElectionTimings,
  leaderElectionTimingsOf,
  servingConfigOf,
  type LeaderElectionTimingHelp,
  type LeaderElectionTimingOptions,
  type LeaderElectionTimings,
  type ServingConfig,
  type ServingFlagsOptions,
  type ServingOptions,
} from './process-flags.ts';
export { retryWithBackoff, type RetryInfo, type RetryOptions } from './retry.ts';
export {
  controllerRunnable,
  runController,
  type ControllerRunnableOptions,
  type RunnerDeps,
} from './runner.ts';
export {
  onShutdownSignal,
  type ShutdownSignalOptions,
  type ShutdownSubscription,
  type SignalSource,
} from './signals.ts';
export { WorkQueue, type WorkQueueMetrics, type WorkQueueOptions } from './work-queue.ts';

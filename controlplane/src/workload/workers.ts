/**
 * Workers of each workload controller (resource detector, scheduler, binding, binding status).
 * Their reconciles are one binding (or template) each and independent of one another; what they
 * wait on is the API server's answer to one or two writes, some tens of milliseconds on a busy
 * server. With one worker, a mass failover would be paced by that round trip rather than by what
 * the API server can write. A key is never handed to two workers at once, so each binding is
 * still written in order. Upstream runs its binding and template controllers with 5 workers each
 * by default.
 */
export const WORKLOAD_WORKERS = 8;

import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  DEFAULT_METRIC_PREFIX,
  makeGauge,
  systemClock,
  type Clock,
  type Leadership,
  type Logger,
} from '@kf/runtime';
import { isAlreadyExists, isConflict, isNotFound, toKubeError } from './errors.ts';
import { LEASE_RESOURCE, type Lease, type LeaseSpec } from './lease.ts';
import { judgeLease, planLeaseRelease, planLeaseSpec, type LeaseObservation } from './lease-claim.ts';
import { ResourceClient } from './resource-client.ts';
import type { TransportOptions } from './transport.ts';

/** client-go's defaults: a lost leader stops its work 5 s before anyone else may take over. */
export const DEFAULT_LEASE_DURATION_MS = 15_000;
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
export const DEFAULT_RETRY_PERIOD_MS = 2_000;
export const DEFAULT_JITTER_FACTOR = 1.2;

/** A prom-client Gauge fits; see {@link makeLeaderGauge}. */
export interface LeaderGauge {
  set(value: number): void;
}

export const LEADER_GAUGE_NAME = `${DEFAULT_METRIC_PREFIX}leader_election_is_leader`;

/** `karmada_failover_leader_election_is_leader`: 1 while this replica leads, else 0. */
export function makeLeaderGauge(registry: Parameters<typeof makeGauge>[0]): LeaderGauge {
  return makeGauge(registry, {
    name: LEADER_GAUGE_NAME,
    help: '1 while this replica holds the leader election lease and runs leader work, else 0.',
  });
}

export interface LeaderElectionOptions {
  readonly kubeConfig: KubeConfig;
  /** How the elector's connections are made (default: HTTP/2 offered). */
  readonly transport?: TransportOptions;
  /** Where the Lease lives. */
  readonly namespace: string;
  readonly name: string;
  /** Unique per process (default: host name + random suffix, see {@link defaultIdentity}). */
  readonly identity?: string;
  /** How long others wait after the last renewal they saw before taking over (default 15 s). */
  readonly leaseDurationMs?: number;
  /** A leader that could not renew for this long stops leading (default 10 s). */
  readonly renewDeadlineMs?: number;
  /** Pause between tries (default 2 s). */
  readonly retryPeriodMs?: number;
  /** Candidates wait retryPeriod × a random factor in [1, jitterFactor) between tries (default 1.2). */
  readonly jitterFactor?: number;
  readonly log: Logger;
  readonly clock?: Clock;
  readonly random?: () => number;
  /** Called after every change of leadership, once leader work has stopped when losing it. */
  readonly onChange?: (isLeader: boolean) => void;
  /** Set to 1 while leading, 0 otherwise (0 from construction). */
  readonly gauge?: LeaderGauge;
}

/** `<host>_<8 random hex>`: unique per process, readable in `kubectl get lease -o yaml`. */
export function defaultIdentity(): string {
  return `${hostname()}_${randomUUID().slice(0, 8)}`;
}

type Attempt = 'leading' | 'following';

/**
 * Lease-based leader election (coordination.k8s.io/v1), as client-go's leaderelection does it.
 *
 * A candidate reads the Lease every retryPeriod (jittered). It takes over when the Lease does not
 * exist, has no holder, or its record has not changed for the holder's leaseDuration as measured
 * on this process's monotonic clock. Writes are PUTs of the object just read, so two candidates
 * racing produce one success and one Conflict. The leader renews every retryPeriod; when it
 * could not renew for renewDeadline (or sees another holder) it stops its work first and only
 * then reports not-leader. On stop it stops its work, then releases the Lease (empty holder,
 * 1 s duration) so another candidate takes over at its next try.
 */
export class LeaderElector implements Leadership {
  readonly identity: string;
  private readonly opts: LeaderElectionOptions;
  private readonly leases: ResourceClient<Lease>;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly jitterFactor: number;
  private observation: LeaseObservation | undefined;
  private lastHolder: string | undefined;
  /** Local monotonic time of the last successful write while leading. */
  private renewedAtMs = 0;
  private leader = false;

  constructor(opts: LeaderElectionOptions) {
    this.opts = opts;
    this.identity = opts.identity ?? defaultIdentity();
    this.leaseDurationMs = opts.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
    this.renewDeadlineMs = opts.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
    this.retryPeriodMs = opts.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
    this.jitterFactor = opts.jitterFactor ?? DEFAULT_JITTER_FACTOR;
    validateTimings(this.leaseDurationMs, this.renewDeadlineMs, this.retryPeriodMs, this.jitterFactor);
    this.leases = new ResourceClient<Lease>(opts.kubeConfig, LEASE_RESOURCE, {
      timeoutMs: this.renewDeadlineMs,
      transport: opts.transport,
    });
    this.log = opts.log.child({ lease: `${opts.namespace}/${opts.name}`, identity: this.identity });
    this.clock = opts.clock ?? systemClock;
    this.random = opts.random ?? Math.random;
    opts.gauge?.set(0);
  }

  isLeader(): boolean {
    return this.leader;
  }

  /**
   * Campaigns until `signal` aborts. Each time it gains the Lease it calls `lead(term)`; `term`
   * aborts when the Lease is lost or `signal` aborts. While leader work stops after an abort of
   * `signal`, the Lease is still renewed, so nobody else starts that work meanwhile; then it is
   * released. After a loss it campaigns again. Resolves once stopped, work ended and the Lease
   * released.
   */
  async run(signal: AbortSignal, lead: (term: AbortSignal) => Promise<void>): Promise<void> {
    while (!signal.aborted) {
      if (!(await this.acquire(signal))) break;
      const term = new AbortController();
      this.setLeader(true);
      const work = this.lead(lead, term.signal);
      const outcome = await this.renewUntilLost(signal);
      term.abort(new Error(outcome === 'lost' ? 'leadership lost' : 'shutting down'));
      if (outcome === 'lost') {
        await work;
        this.setLeader(false);
        continue;
      }
      const hold = new AbortController();
      const holding = this.renewUntilLost(hold.signal);
      await work;
      hold.abort();
      const held = await holding;
      this.setLeader(false);
      if (held === 'stopped') await this.release();
    }
  }

  /** Tries every retryPeriod (jittered) until it holds the Lease; false when stopped first. */
  private async acquire(signal: AbortSignal): Promise<boolean> {
    this.log.debug({}, 'campaigning for the lease');
    for (;;) {
      if (signal.aborted) return false;
      if ((await this.tryOnce(signal, this.renewDeadlineMs)) === 'leading') {
        this.renewedAtMs = this.clock.monotonic();
        return true;
      }
      const jittered = this.retryPeriodMs * (1 + this.random() * (this.jitterFactor - 1));
      try {
        await this.clock.sleep(jittered, signal);
      } catch {
        return false;
      }
    }
  }

  /** Renews every retryPeriod until `signal` aborts ('stopped') or renewing fails ('lost'). */
  private async renewUntilLost(signal: AbortSignal): Promise<'lost' | 'stopped'> {
    for (;;) {
      try {
        await this.clock.sleep(this.retryPeriodMs, signal);
      } catch {
        return 'stopped';
      }
      const startedAtMs = this.clock.monotonic();
      const leftMs = this.renewedAtMs + this.renewDeadlineMs - startedAtMs;
      if (leftMs <= 0) {
        this.log.warn({ renewDeadlineMs: this.renewDeadlineMs }, 'could not renew the lease in time');
        return 'lost';
      }
      const result = await this.tryOnce(signal, leftMs);
      if (signal.aborted) return 'stopped';
      if (result === 'leading') this.renewedAtMs = startedAtMs;
      else if (this.lastHolder !== this.identity && this.lastHolder !== undefined) {
        this.log.warn({ holder: this.lastHolder }, 'lease taken by another holder');
        return 'lost';
      }
    }
  }

  /** One read-decide-write round. Errors are logged and count as not leading this time. */
  private async tryOnce(signal: AbortSignal, timeoutMs: number): Promise<Attempt> {
    try {
      return await this.claim({ signal, timeoutMs });
    } catch (err) {
      if (signal.aborted) return 'following';
      if (isConflict(err) || isAlreadyExists(err)) this.log.debug({}, 'lost a race for the lease');
      else this.log.warn({ err: toKubeError(err) }, 'lease read or write failed');
      return 'following';
    }
  }

  /** Reads the Lease, judges it, and writes it when allowed. */
  private async claim(call: { signal: AbortSignal; timeoutMs: number }): Promise<Attempt> {
    const lease = await this.leases.find(this.key(), call);
    const verdict = judgeLease({
      current: lease === undefined ? undefined : (lease.spec ?? {}),
      previous: this.observation,
      identity: this.identity,
      nowMs: this.clock.monotonic(),
      defaultLeaseDurationMs: this.leaseDurationMs,
    });
    if (verdict.kind !== 'create') {
      this.observation = verdict.observation;
      this.noteHolder(verdict.observation.record.holderIdentity ?? '');
    }
    if (verdict.kind === 'wait') return 'following';
    const spec = planLeaseSpec(verdict.kind, lease?.spec, {
      identity: this.identity,
      leaseDurationSeconds: Math.max(1, Math.ceil(this.leaseDurationMs / 1000)),
      nowMs: this.clock.now(),
    });
    const written =
      lease === undefined
        ? await this.leases.create(this.leaseObject(spec), call)
        : await this.leases.replace({ ...lease, spec }, call);
    this.observation = { record: written.spec ?? spec, observedAtMs: this.clock.monotonic() };
    this.noteHolder(this.identity);
    if (verdict.kind !== 'renew') this.log.debug({ transitions: spec.leaseTransitions }, 'lease acquired');
    return 'leading';
  }

  /** Gives the Lease up if this process still holds it (after leader work stopped). */
  private async release(): Promise<void> {
    const call = { timeoutMs: this.renewDeadlineMs };
    try {
      const lease = await this.leases.get(this.key(), call);
      if (lease.spec?.holderIdentity !== this.identity) return;
      await this.leases.replace({ ...lease, spec: planLeaseRelease(lease.spec, this.clock.now()) }, call);
      this.log.info({}, 'lease released');
    } catch (err) {
      if (isNotFound(err)) return;
      this.log.warn({ err: toKubeError(err) }, 'could not release the lease');
    }
  }

  private async lead(lead: (term: AbortSignal) => Promise<void>, term: AbortSignal): Promise<void> {
    try {
      await lead(term);
    } catch (err) {
      this.log.error({ err }, 'leader work failed');
    }
  }

  private setLeader(leader: boolean): void {
    if (this.leader === leader) return;
    this.leader = leader;
    this.opts.gauge?.set(leader ? 1 : 0);
    this.log.info({ leader }, leader ? 'became leader' : 'stopped leading');
    try {
      this.opts.onChange?.(leader);
    } catch (err) {
      this.log.error({ err }, 'leadership change handler threw');
    }
  }

  private noteHolder(holder: string): void {
    if (holder !== this.lastHolder && holder !== this.identity && holder !== '') {
      this.log.info({ holder }, 'new leader observed');
    }
    this.lastHolder = holder;
  }

  private key(): string {
    return `${this.opts.namespace}/${this.opts.name}`;
  }

  private leaseObject(spec: LeaseSpec): Lease {
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.opts.name, namespace: this.opts.namespace },
      spec,
    };
  }
}

/** Throws a RangeError unless leaseDuration > renewDeadline > retryPeriod × jitterFactor. */
export function validateTimings(
  leaseDurationMs: number,
  renewDeadlineMs: number,
  retryPeriodMs: number,
  jitterFactor: number,
): void {
  if (!(retryPeriodMs > 0) || !(jitterFactor >= 1)) {
    throw new RangeError('retryPeriod must be > 0 and jitterFactor >= 1');
  }
  if (!(leaseDurationMs > renewDeadlineMs))
    throw new RangeError('leaseDuration must be greater than renewDeadline');
  if (!(renewDeadlineMs > retryPeriodMs * jitterFactor)) {
    throw new RangeError('renewDeadline must be greater than retryPeriod × jitterFactor');
  }
}

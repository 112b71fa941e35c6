import { parseTime } from '@kf/api';
import { toKubeError } from '@kf/kube';
import type { Clock, HealthCheck, Logger, Runnable } from '@kf/runtime';
import type { RecordType } from '../dns/message.ts';
import { readResolvConf } from '../dns/resolv-conf-file.ts';
import { parseResolvConf, type ResolvConf } from '../dns/resolv-conf.ts';
import { lookup, type LookupResult } from '../dns/resolver.ts';
import type { Exchanger } from '../dns/transport.ts';
import {
  observe,
  untilFlipMs,
  type HoldTimes,
  type Hysteresis,
  type Observed,
} from '../health/hysteresis.ts';
import { planNodeWrite, type NodeCondition, type NodeReport } from '../health/node-condition.ts';
import type { ProbeMetrics } from '../metrics.ts';
import type { NodeConditionStore } from './node-status.ts';

export interface ProberConfig {
  /** Names resolved every round; the node is fine only when all of them resolve. */
  readonly names: readonly string[];
  readonly recordType: RecordType;
  readonly resolvConfPath: string;
  /** Port of the name servers (resolv.conf has no port syntax). */
  readonly nameserverPort: number;
  /** Override resolv.conf's `timeout` / `attempts` when set. */
  readonly dnsTimeoutMs?: number;
  readonly dnsAttempts?: number;
  /** A round starts this long after the previous one started (or at once if that one overran). */
  readonly periodMs: number;
  readonly hold: HoldTimes;
  /** The leader counts a verdict with an older heartbeat as Unknown. */
  readonly staleThresholdMs: number;
  /** An unchanged condition is rewritten (heartbeat) this often. */
  readonly heartbeatIntervalMs: number;
}

export interface ProberDeps {
  readonly config: ProberConfig;
  readonly store: NodeConditionStore;
  readonly exchanger: Exchanger;
  readonly clock: Clock;
  readonly log: Logger;
  readonly metrics: ProbeMetrics;
  /** Reads resolv.conf (default: the file at `config.resolvConfPath`). */
  readonly readResolvConf?: () => Promise<string>;
}

/** What one round saw: every configured name resolved, or not, and why. */
interface Observation {
  readonly seen: Observed;
  readonly message: string;
}

/** A round that could not look anything up: resolv.conf is unreadable or not a resolv.conf. */
interface Unusable {
  readonly problem: string;
}

/**
 * The per-node loop every probe pod runs, leader or not. Each round it resolves the configured
 * names as a pod's stub resolver would (re-reading resolv.conf), folds the outcome into the
 * debounced node verdict ({@link observe}) and writes `ServiceDomainNameResolutionReady` on its
 * Node when the verdict or its cause changes, and as a heartbeat. Rounds start every period;
 * while a flip is pending the next round is timed for the moment the threshold is reached.
 * Nothing a DNS server or the API server does ends the loop: failures are observations or
 * warnings. On start it reads the condition already on the Node, so that a restarted pod
 * continues a fresh verdict instead of flipping on its first lookup.
 */
export class NodeProber implements Runnable {
  readonly name = 'dns-probe';
  private readonly deps: ProberDeps;
  private readonly log: Logger;
  /** The condition as on the Node; known only once loaded. */
  private published: { readonly condition: NodeCondition | undefined } | undefined;
  private state: Hysteresis | undefined;
  private readonly lastMessage = new Map<Observed, string>();
  private lastRoundAtMs: number | undefined;
  private startedAtMs: number | undefined;
  private writeFailing = false;
  /** Why the last round could not look anything up (resolv.conf unusable); undefined: it could. */
  private configProblem: string | undefined;
  private rotation = 0;

  constructor(deps: ProberDeps) {
    this.deps = deps;
    this.log = deps.log.child({ component: 'dns-probe' });
  }

  async start(signal: AbortSignal): Promise<void> {
    const { clock, config } = this.deps;
    this.startedAtMs = clock.monotonic();
    while (!signal.aborted) {
      const roundStartMs = clock.monotonic();
      await this.round(signal);
      const nowMs = clock.monotonic();
      let waitMs = Math.max(0, roundStartMs + config.periodMs - nowMs);
      const flipMs = this.state === undefined ? undefined : untilFlipMs(this.state, nowMs, config.hold);
      if (flipMs !== undefined) waitMs = Math.min(waitMs, flipMs);
      try {
        await clock.sleep(waitMs, signal);
      } catch {
        break; // aborted
      }
    }
  }

  /**
   * Fails when no round finished for `stuckAfterMs`: the loop is wedged and a restart helps.
   * By then the leader counts this node as Unknown anyway.
   */
  liveness(stuckAfterMs: number): HealthCheck {
    return () => {
      const since = this.lastRoundAtMs ?? this.startedAtMs;
      if (since !== undefined && this.deps.clock.monotonic() - since > stuckAfterMs) {
        throw new Error(`no probe round finished for ${stuckAfterMs} ms`);
      }
    };
  }

  /**
   * Ready once a round finished and the node condition is written (or nothing was due), and while
   * resolv.conf can be used.
   */
  readiness(): HealthCheck {
    return () => {
      if (this.configProblem !== undefined) throw new Error(this.configProblem);
      if (this.lastRoundAtMs === undefined) throw new Error('no probe round finished yet');
      if (this.published === undefined) throw new Error('the Node could not be read yet');
      if (this.writeFailing) throw new Error('writing the Node condition fails');
    };
  }

  private async round(signal: AbortSignal): Promise<void> {
    const { clock } = this.deps;
    // Before the first observation, so that a verdict found on the Node can seed the state; later
    // retries come after the lookups, so that a slow API server never delays an observation.
    if (this.published === undefined && this.state === undefined) await this.load(signal);
    const obs = await this.observeNames(signal);
    const observedAtMs = clock.monotonic();
    if (signal.aborted) return;
    if (this.noteConfigProblem(obs) || !('seen' in obs)) {
      this.lastRoundAtMs = clock.monotonic(); // the loop is alive; only its input is wrong
      return;
    }
    if (this.published === undefined && this.state !== undefined) await this.load(signal);
    const reported = this.fold(obs, observedAtMs);
    await this.publish({ status: reported, message: this.lastMessage.get(reported) ?? obs.message }, signal);
    this.lastRoundAtMs = clock.monotonic();
  }

  /** Folds one observation into the debounced verdict; returns the verdict to report now. */
  private fold(obs: Observation, observedAtMs: number): Observed {
    const before = this.state?.reported;
    this.state = observe(this.state, obs.seen, observedAtMs, this.deps.config.hold);
    this.lastMessage.set(obs.seen, obs.message);
    const reported = this.state.reported;
    this.deps.metrics.nodeVerdict.set({ status: reported }, 1);
    this.deps.metrics.nodeVerdict.set({ status: reported === 'True' ? 'False' : 'True' }, 0);
    if (before !== reported)
      this.log.info({ from: before ?? 'none', to: reported, message: obs.message }, 'node verdict changed');
    else if (this.state.pending !== undefined)
      this.log.debug({ pending: this.state.pending.value, message: obs.message }, 'verdict change pending');
    return reported;
  }

  /**
   * A resolv.conf that cannot be used is a configuration error, not a DNS failure: the round
   * reports nothing (the verdict on the Node stays as it is and, without heartbeats, turns stale,
   * which the leader counts as Unknown, never as False). Logged at error once, and shown by
   * /readyz and the resolv_conf_usable metric until the file is usable again.
   */
  private noteConfigProblem(obs: Observation | Unusable): boolean {
    const problem = 'problem' in obs ? obs.problem : undefined;
    if (problem !== undefined && problem !== this.configProblem) {
      this.log.error({ problem }, 'resolv.conf cannot be used; reporting nothing until it can');
    } else if (problem === undefined && this.configProblem !== undefined) {
      this.log.info({}, 'resolv.conf can be used again');
    }
    this.configProblem = problem;
    this.deps.metrics.resolvConfUsable.set(problem === undefined ? 1 : 0);
    return problem !== undefined;
  }

  /** Reads the condition on the Node; a fresh one seeds the verdict. Failures are retried next round. */
  private async load(signal: AbortSignal): Promise<void> {
    try {
      const condition = await this.deps.store.load(signal);
      this.published = { condition };
      if (this.state !== undefined || condition === undefined) return;
      const heartbeatAtMs = parseTime(condition.lastHeartbeatTime);
      const fresh =
        heartbeatAtMs !== undefined &&
        this.deps.clock.now() - heartbeatAtMs <= this.deps.config.staleThresholdMs;
      if (fresh && (condition.status === 'True' || condition.status === 'False')) {
        this.state = { reported: condition.status };
        this.lastMessage.set(condition.status, condition.message ?? '');
        this.log.info({ status: condition.status }, 'continuing the verdict found on the Node');
      }
    } catch (err: unknown) {
      if (signal.aborted) return;
      this.log.warn({ err: toKubeError(err) }, 'cannot read the Node; retrying next round');
    }
  }

  private async publish(report: NodeReport, signal: AbortSignal): Promise<void> {
    const { clock, config, metrics, store } = this.deps;
    if (this.published === undefined) return; // writing blind would reset lastTransitionTime
    const next = planNodeWrite(this.published.condition, report, clock.now(), config.heartbeatIntervalMs);
    if (next === undefined) return;
    try {
      const stored = await store.write(next, signal);
      this.published = { condition: stored ?? next };
      metrics.nodeWrites.inc({ result: 'success' });
      if (this.writeFailing) this.log.info({}, 'writing the Node condition works again');
      this.writeFailing = false;
    } catch (err: unknown) {
      if (signal.aborted) return;
      metrics.nodeWrites.inc({ result: 'error' });
      this.log[this.writeFailing ? 'debug' : 'warn'](
        { err: toKubeError(err) },
        'cannot write the Node condition; retrying next round',
      );
      this.writeFailing = true;
    }
  }

  private async observeNames(signal: AbortSignal): Promise<Observation | Unusable> {
    const inject = this.deps.readResolvConf;
    const read = await readResolvConf(this.deps.config.resolvConfPath, inject && (() => inject()));
    if ('problem' in read) return read;
    const conf = this.resolvConf(read.text);
    const results: LookupResult[] = [];
    for (const name of this.deps.config.names) results.push(await this.lookupOne(name, conf, signal));
    const failed = results.filter((r) => r.result !== 'success');
    this.log.debug(
      { results: results.map((r) => ({ name: r.name, result: r.result, rcode: r.rcode })) },
      'probe round',
    );
    if (failed.length === 0) return { seen: 'True', message: results.map((r) => r.message).join('; ') };
    return { seen: 'False', message: failed.map((r) => r.message).join('; ') };
  }

  private async lookupOne(name: string, conf: ResolvConf, signal: AbortSignal): Promise<LookupResult> {
    const { config, metrics, clock } = this.deps;
    const startedAtMs = clock.monotonic();
    const result = await lookup(
      name,
      { conf, port: config.nameserverPort, type: config.recordType, rotation: this.rotation++, signal },
      this.deps.exchanger,
    );
    metrics.lookupSeconds.observe({ result: result.result }, (clock.monotonic() - startedAtMs) / 1000);
    return result;
  }

  private resolvConf(text: string): ResolvConf {
    const c = this.deps.config;
    const parsed = parseResolvConf(text);
    return {
      ...parsed,
      ...(c.dnsTimeoutMs === undefined ? {} : { timeoutMs: c.dnsTimeoutMs }),
      ...(c.dnsAttempts === undefined ? {} : { attempts: c.dnsAttempts }),
    };
  }
}

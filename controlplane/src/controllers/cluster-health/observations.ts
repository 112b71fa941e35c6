/**
 * What this control-plane process has seen of each member, on its own clocks.
 *
 * A member's Lease `renewTime` and its conditions' `lastTransitionTime` are written on the
 * member's clock. Compared with the control plane's clock they mislead by exactly the skew between
 * the two: a member whose clock runs 60 s ahead looks alive for 60 s after it died, one that runs
 * 20 s behind looks silent while it renews every second. So those values are used here only as
 * change signals: a renewal counts at the moment this process saw `renewTime` take a value it had
 * not seen, and a status post at the moment it saw Ready take a new status or transition time,
 * both measured on the monotonic clock. The remote value itself is only read to estimate the skew
 * (the member's `renewTime` minus the moment it was seen, the least delayed of the last ten), which is shown, never obeyed.
 *
 * First sight counts as a sign of life: a process that starts (or becomes leader, or was cut off
 * from its API server, see {@link MemberObservations.forgetAll}) did not witness any silence, so
 * every member gets a full grace period from then.
 *
 * Several readers look at the same member through caches that may lag one another and through
 * direct reads from the API server. A value seen recently is therefore never new again: a cache
 * that catches up with a renewal a direct read already showed does not make the member look alive
 * a second time.
 */
import { conditionStatuses, parseTime, type Cluster, type ClusterCondition } from '@kf/api';
import { parseMicroTime, type Lease } from '@kf/kube';
import type { Clock } from '@kf/runtime';

/** What one look reads of a member: the raw values its agent and probes wrote. */
export interface MemberSignals {
  /** The heartbeat Lease's `spec.renewTime` as written, undefined when there is no Lease. */
  readonly renewTime: string | undefined;
  /** The Cluster's status conditions. */
  readonly conditions: readonly ClusterCondition[] | undefined;
}

/** The signals of `cluster` and its heartbeat Lease. */
export function memberSignals(cluster: Cluster, lease: Lease | undefined): MemberSignals {
  return { renewTime: lease?.spec?.renewTime, conditions: cluster.status?.conditions };
}

/** The outcome of a look, all on this process's clocks. */
export interface MemberLook {
  /** Milliseconds since the latest sign of life (first sight, a renewal, a Ready post). */
  readonly silentForMs: number;
  /** True when this look is the first since the member was (or all members were) forgotten. */
  readonly firstSight: boolean;
}

/** Renewal values remembered per member, so a lagging reader never counts an old one again. */
const RECENT_RENEWALS = 4;
/**
 * Offset samples kept per member. A sample is the renewal's stamp minus the moment it was seen:
 * the offset less the renewal's delay (writing, then delivering it), which is never negative. The
 * largest recent sample is the least delayed, so it stands for the offset: a slow API server makes
 * the others smaller, not the estimate (unless every one of these renewals was slow).
 */
const OFFSET_SAMPLES = 10;
/** Samples needed before an offset is told: one slow renewal after a restart is not a clock. */
const OFFSET_MIN_SAMPLES = 3;

interface ConditionSighting {
  /** `status` and `lastTransitionTime` as written: a change of either is a transition. */
  readonly key: string;
  /** When the transition counts from, on this process's wall clock. */
  readonly sinceWallMs: number;
}

interface Member {
  lastSignMono: number;
  readonly recentRenewals: string[];
  readonly conditions: Map<string, ConditionSighting>;
  /** The latest offset samples, oldest first. */
  readonly offsetSamples: number[];
}

export class MemberObservations {
  readonly #clock: Clock;
  readonly #members = new Map<string, Member>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /**
   * Takes in what a reader sees of member `name` now and says how long it has been silent. Any
   * reader may call it with what it has; a value already seen changes nothing.
   */
  look(name: string, signals: MemberSignals): MemberLook {
    const mono = this.#clock.monotonic();
    const wall = this.#clock.now();
    const known = this.#members.get(name);
    const member = known ?? this.#firstSight(name, signals, mono);
    const firstSight = known === undefined;
    if (!firstSight) this.#takeRenewal(member, signals.renewTime, mono, wall);
    for (const condition of signals.conditions ?? []) {
      const key = `${condition.status}@${condition.lastTransitionTime ?? ''}`;
      if (member.conditions.get(condition.type)?.key === key) continue;
      member.conditions.set(condition.type, {
        key,
        sinceWallMs: firstSight ? sinceAtFirstSight(condition, wall) : wall,
      });
      // A Ready post by the agent is a sign of life; Unknown is only ever written by the
      // control plane's own health monitor, so seeing it says nothing about the member.
      if (!firstSight && condition.type === 'Ready' && condition.status !== conditionStatuses.unknown) {
        member.lastSignMono = mono;
      }
    }
    return { silentForMs: Math.max(0, mono - member.lastSignMono), firstSight };
  }

  #firstSight(name: string, signals: MemberSignals, mono: number): Member {
    const member: Member = {
      lastSignMono: mono,
      recentRenewals: signals.renewTime === undefined ? [] : [signals.renewTime],
      conditions: new Map(),
      offsetSamples: [],
    };
    this.#members.set(name, member);
    return member;
  }

  /** A renewal value not seen recently is a sign of life now, and a sample of the clock offset. */
  #takeRenewal(member: Member, renewTime: string | undefined, mono: number, wall: number): void {
    if (renewTime === undefined || member.recentRenewals.includes(renewTime)) return;
    member.lastSignMono = mono;
    member.recentRenewals.push(renewTime);
    if (member.recentRenewals.length > RECENT_RENEWALS) member.recentRenewals.shift();
    const renewedAtMs = parseMicroTime(renewTime);
    if (renewedAtMs === undefined) return;
    member.offsetSamples.push(renewedAtMs - wall);
    if (member.offsetSamples.length > OFFSET_SAMPLES) member.offsetSamples.shift();
  }

  /**
   * Since when `condition` has had its current status, on this process's wall clock: the moment
   * this process saw it change; for a condition already so at first sight, its own
   * `lastTransitionTime` but never later than that first sight. Undefined for a member or a
   * condition not looked at yet.
   */
  conditionSinceMs(name: string, condition: ClusterCondition): number | undefined {
    const seen = this.#members.get(name)?.conditions.get(condition.type);
    if (seen?.key !== `${condition.status}@${condition.lastTransitionTime ?? ''}`) return undefined;
    return seen.sinceWallMs;
  }

  /** The member's clock minus this process's (least delayed recent sample); undefined until three renewals were seen change. */
  clockOffsetMs(name: string): number | undefined {
    const member = this.#members.get(name);
    return member === undefined ? undefined : offsetOf(member);
  }

  /** Every member with a known clock offset. */
  clockOffsets(): ReadonlyMap<string, number> {
    const offsets = new Map<string, number>();
    for (const [name, m] of this.#members) {
      const offset = offsetOf(m);
      if (offset !== undefined) offsets.set(name, offset);
    }
    return offsets;
  }

  /** Forgets a deleted member, so that one created again under its name starts afresh. */
  forget(name: string): void {
    this.#members.delete(name);
  }

  /** Every member is seen for the first time again at its next look. */
  forgetAll(): void {
    this.#members.clear();
  }
}

/**
 * A condition already present at first sight: its transition time is the member's word, so it
 * may be late by the member's skew; it is believed only as far as first sight (a restarted
 * process keeps the hold a condition had already served, but a member clock running ahead cannot
 * push it into the future).
 */
function sinceAtFirstSight(condition: ClusterCondition, wallMs: number): number {
  const transition = parseTime(condition.lastTransitionTime);
  return transition === undefined ? wallMs : Math.min(transition, wallMs);
}

/** The member's offset: its least delayed recent sample (see OFFSET_SAMPLES). */
function offsetOf(member: Member): number | undefined {
  return member.offsetSamples.length < OFFSET_MIN_SAMPLES ? undefined : Math.max(...member.offsetSamples);
}

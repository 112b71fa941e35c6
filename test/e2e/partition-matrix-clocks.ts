/**
 * Heartbeats that arrive late or carry a wrong time (run by partitions.int.test.ts, side by side
 * with the agent-link cells), with the shipped ClusterTaintPolicy's hold time (15 s) and the test
 * timings (grace 5 s, monitor every 1 s), the agents' Lease lasting the grace period and renewed
 * every second (as at the defaults, 40 s both), a member per cell on one federation of their own:
 * - an agent whose clock is 60 s behind, 60 s ahead or 10 min ahead of the control plane's
 *   (restarted with the offset, as on a host whose clock was set wrong): alive, its cluster stays
 *   Ready (not one transition), untainted and keeps its workload for 3 × grace and more; killed
 *   right after a renewal, its cluster is Ready=Unknown as soon as with a right clock (target
 *   grace + one monitor period, asserted with 2 s to spare for a busy machine).
 *   The timestamps an agent writes say when by its clock, not when the control plane saw them.
 * - latency added to the agent's link to the control plane, each way, of ⅛, ¼ and ⅜ of grace
 *   (round trips of ¼, ½ and ¾ of it) for 3 × grace: a slow heartbeat is still a heartbeat, Ready
 *   stays True at ⅛ and ¼, and nothing is evicted at any of them.
 * Every Ready transition and taint is recorded from a watch (ClusterHistory): with no NoExecute
 * taint, nothing can have been evicted, which the end of each cell confirms (the binding still
 * places the workload there, the member's copy is the one from before). No sampling loop: these
 * cells run beside the whole matrix on a 2-core machine. The figures are printed in a table.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { annotations } from '@kf/api';
import { leaseRenewedAtMs } from '@kf/kube';
import {
  ClusterHistory,
  DEFAULT_FAILOVER_TIMING,
  SHIPPED_TAINT_HOLD_SECONDS,
  isHealthy,
  parseClockOffset,
  readyTransitions,
  settleMs,
  startFailoverFederation,
  taintsAdded,
  taintsHeld,
  waitUntil,
  type FailoverFederation,
  type FailoverTiming,
  type ReadyTransition,
  type TaintAdded,
} from '@kf/testing';
import { READY_BOUND_MS, placeOn } from './partition-cells.ts';
import { agentMetric, eventsAbout, memberCopy, placement } from './support.ts';

const OFFSETS = ['-60s', '+60s', '+10m'] as const;
/** Latency added each way, as a fraction of the grace period. */
const LATENCIES = [
  { label: '⅛', fraction: 1 / 8 },
  { label: '¼', fraction: 1 / 4 },
  { label: '⅜', fraction: 3 / 8 },
] as const;
/** Up to these, Ready must not leave True; past them (a ¾-grace round trip) only nothing may be evicted. */
const READY_HOLDS_UP_TO = 1 / 4;

/**
 * How long a killed member is watched for Ready=Unknown: far past the bound, so that a late one is
 * measured (an agent 60 s ahead is seen dead 60 s late when its timestamps are believed), yet
 * bounded (one 10 min ahead would be seen 10 min late).
 */
const UNKNOWN_WAIT_MS = 90_000;
/**
 * The target from the kill to Ready=Unknown: grace + one monitor period, printed for every cell.
 * The agent is killed right after a renewal (killAfterRenewal), so the whole of grace runs after
 * the kill, and the monitor period is all that is left for the control plane's tick.
 */
const unknownTargetMs = (timing: FailoverTiming): number =>
  (timing.monitorGraceSeconds + timing.monitorPeriodSeconds) * 1000;
/**
 * What the tests assert: the target + 2 s for the control plane to see the renewal through its
 * watch and write Ready, and the harness to see that, on a busy 2-core machine. With these cells
 * alone every offset, and a right clock, took 4.8–5.0 s; beside the whole matrix 6.2–7.2 s. An
 * agent whose timestamps were believed would be seen dead its offset late: a minute, ten.
 */
const unknownBoundMs = (timing: FailoverTiming): number => unknownTargetMs(timing) + 2_000;

const RENEW_FAILURES = 'karmada_failover_agent_lease_renew_failures_total';

type Cell =
  | { readonly kind: 'clock'; readonly offset: (typeof OFFSETS)[number]; readonly member: string }
  | { readonly kind: 'latency'; readonly label: string; readonly fraction: number; readonly member: string };

const cells: readonly Cell[] = [
  ...OFFSETS.map((offset, i): Cell => ({ kind: 'clock', offset, member: `member${String(i + 1)}` })),
  ...LATENCIES.map(({ label, fraction }, i): Cell => ({
    kind: 'latency',
    label,
    fraction,
    member: `member${String(OFFSETS.length + i + 1)}`,
  })),
];

/** What one cell showed; windows are [fromMs, toMs] on the harness's clock. */
interface Watched {
  readonly member: string;
  readonly initialUid: string;
  readonly fromMs: number;
  readonly toMs: number;
  /** Ready transitions and taints added in the window, from the watch. */
  readonly transitions: readonly ReadyTransition[];
  readonly taintsAdded: readonly TaintAdded[];
  readonly taintsHeld: readonly string[];
  /** How the workload had left the member by the window's end; undefined: it had not. */
  readonly evicted: string | undefined;
}

interface ClockReport extends Watched {
  /** When the agent was restarted with the offset (the window starts once that settled). */
  readonly restartedAtMs: number;
  /** The agent's Lease renewTime minus when the harness read it: its clock's offset, seen from outside. */
  readonly leaseSkewMs: number;
  readonly killedAtMs: number;
  /** When Ready was first Unknown after the kill (undefined: not within UNKNOWN_WAIT_MS). */
  readonly unknownAtMs: number | undefined;
  /** The offset the control plane recorded on the Cluster by the end of the alive window. */
  readonly recordedOffset: string | undefined;
  /** ClusterClockOffset Warning Events about the Cluster by then. */
  readonly offsetWarnings: number;
}

interface LatencyReport extends Watched {
  /** The offset recorded on the Cluster at the end of the slow period (none: the clocks agree). */
  readonly recordedOffset: string | undefined;
  /** ClusterClockOffset Warning Events about the Cluster by the end of the window. */
  readonly offsetWarnings: number;
  readonly restoredAtMs: number;
  readonly readyAtMs: number;
  readonly renewalsFailed: number;
}

let fed: FailoverFederation | undefined;
/** The federation's timings (kept once it is stopped, for the verdicts). */
let timing: FailoverTiming | undefined;
/** How long the federation took to come up. */
let upMs = 0;
let history: ClusterHistory | undefined;
const clockReports = new Map<string, Promise<ClockReport>>();
const latencyReports = new Map<string, Promise<LatencyReport>>();

/** Starts the federation of the cells (a member each). */
export async function startClockFederation(): Promise<void> {
  const startedAtMs = Date.now();
  fed = await startFailoverFederation({
    members: cells.length,
    nodes: 1,
    timing: { taintHoldSeconds: SHIPPED_TAINT_HOLD_SECONDS },
    // The Lease lasts the grace period, as at the defaults: how long a slow renewal may take
    // follows from it.
    agentFlags: [
      `--cluster-lease-duration=${String(DEFAULT_FAILOVER_TIMING.monitorGraceSeconds)}s`,
      `--cluster-lease-renew-interval-fraction=${String(1 / DEFAULT_FAILOVER_TIMING.monitorGraceSeconds)}`,
    ],
    // Three killed members at once are three failures, not a fleet outage.
    controlPlaneFlags: ['--fleet-guard-pause-threshold=0.95', '--fleet-guard-resume-threshold=0.9'],
  });
  upMs = Date.now() - startedAtMs;
  timing = fed.timing;
}

/** Plays every cell side by side; resolves when all have settled. */
export async function runClockCells(): Promise<void> {
  const f = fed;
  if (f === undefined) throw new Error('the federation did not start');
  const upAtMs = Date.now();
  const h = await ClusterHistory.start(f);
  history = h;
  for (const cell of cells) {
    if (cell.kind === 'clock') clockReports.set(cell.member, runClockCell(f, h, cell));
    else latencyReports.set(cell.member, runLatencyCell(f, h, cell));
  }
  await Promise.allSettled([...clockReports.values(), ...latencyReports.values()]);
  await printFigures(f, { upMs, cellsMs: Date.now() - upAtMs });
}

/** Stops the federation (again: a no-op). */
export async function stopClockCells(): Promise<void> {
  const [h, f] = [history, fed];
  history = undefined;
  fed = undefined;
  await h?.stop();
  await f?.destroy();
}

/** The workload off the member: its binding no longer places it there, or its copy is gone or new. */
async function evictedFrom(
  f: FailoverFederation,
  where: { readonly member: string; readonly deployment: string; readonly initialUid: string },
): Promise<string | undefined> {
  const [placed, copy] = await Promise.all([
    placement(f, where.deployment),
    memberCopy(f, where.member, where.deployment),
  ]);
  if (placed?.[where.member] !== 1) return `placed ${JSON.stringify(placed ?? {})}`;
  if (copy === undefined) return 'its copy is gone';
  return copy.uid === where.initialUid ? undefined : 'its copy was replaced';
}

/** What the window showed of the member, and whether its workload was still there at its end. */
async function watched(
  f: FailoverFederation,
  h: ClusterHistory,
  where: { readonly member: string; readonly deployment: string; readonly initialUid: string },
  window: { readonly fromMs: number; readonly toMs: number },
): Promise<Watched> {
  const { member, initialUid } = where;
  const { fromMs, toMs } = window;
  return {
    member,
    initialUid,
    fromMs,
    toMs,
    transitions: readyTransitions(h.changes, member, fromMs, toMs),
    taintsAdded: taintsAdded(h.changes, member, fromMs, toMs),
    taintsHeld: taintsHeld(h.changes, member, fromMs, toMs),
    evicted: await evictedFrom(f, where),
  };
}

/**
 * The agent restarted with its clock off; watched alive for 3 × grace, and past the moment a
 * lasting Unknown would have been tainted NoExecute, once that settled; then killed, and watched
 * until its cluster is Ready=Unknown.
 */
async function runClockCell(
  f: FailoverFederation,
  h: ClusterHistory,
  cell: Extract<Cell, { kind: 'clock' }>,
): Promise<ClockReport> {
  const { member } = cell;
  const deployment = `web-clock-${member}`;
  const initialUid = await placeOn(f, deployment, { member });
  const restartedAtMs = Date.now();
  await f.agent(member).stop();
  const stoppedAtMs = Date.now();
  await f.startAgent(member, { clockOffset: cell.offset });
  const { seenAtMs, leaseSkewMs } = await skewedRenewal(f, member, {
    offsetMs: parseClockOffset(cell.offset),
    sinceMs: stoppedAtMs,
  });
  // A restart on a busy machine can outlast grace (Ready Unknown for a moment, whatever the
  // clock): the window starts once the cluster is Ready and untainted after the first renewal by
  // the new clock (or at that renewal, if it never is).
  const fromMs = (await h.firstMatchWithin(member, seenAtMs, isHealthy, 30_000)) ?? seenAtMs;
  const aliveMs = Math.max(3 * f.timing.monitorGraceSeconds * 1000, settleMs(f.timing));
  await sleep(Math.max(0, fromMs + aliveMs - Date.now()));
  const toMs = Date.now();
  const alive = await watched(f, h, { member, deployment, initialUid }, { fromMs, toMs });
  const recordedOffset = (await f.clusters.get(member)).metadata.annotations?.[
    annotations.clockOffsetSeconds
  ];
  const offsetWarnings = (await eventsAbout(f, member, 'ClusterClockOffset')).length;
  const killedAtMs = await killAfterRenewal(f, member);
  const unknownAtMs = await h.firstMatchWithin(
    member,
    killedAtMs,
    (c) => c.ready === 'Unknown',
    UNKNOWN_WAIT_MS,
  );
  return { ...alive, restartedAtMs, leaseSkewMs, killedAtMs, unknownAtMs, recordedOffset, offsetWarnings };
}

/**
 * Kills the member's agent as soon as the harness sees it renew its Lease: the worst moment for
 * the bound, its death counted from its freshest heartbeat. Resolves with the moment of the kill.
 */
async function killAfterRenewal(f: FailoverFederation, member: string): Promise<number> {
  const renewedAt = async (): Promise<number | undefined> =>
    leaseRenewedAtMs(await f.leases.get(`karmada-cluster/${member}`));
  const before = await renewedAt();
  await waitUntil(`${member} Lease renewed`, async () => (await renewedAt()) !== before, {
    timeoutMs: 30_000,
    intervalMs: 50,
    retryErrors: true,
  });
  await f.killAgent(member);
  return Date.now();
}

/**
 * The first renewal of the member's Lease by the agent started after `sinceMs` with its clock
 * `offsetMs` off: a renewTime that, less the offset, falls between then and when it was read
 * (renewals of the agent stopped before carry other times). Its renewTime minus when it was read:
 * the offset seen from outside, less the renewal's age.
 */
async function skewedRenewal(
  f: FailoverFederation,
  member: string,
  clock: { readonly offsetMs: number; readonly sinceMs: number },
): Promise<{ seenAtMs: number; leaseSkewMs: number }> {
  let leaseSkewMs = Number.NaN;
  const seenAtMs = await waitUntil(
    `${member} Lease renewed by a clock ${String(clock.offsetMs)} ms off`,
    async () => {
      const renewedAtMs = leaseRenewedAtMs(await f.leases.get(`karmada-cluster/${member}`));
      const readAtMs = Date.now();
      if (renewedAtMs === undefined) return false;
      leaseSkewMs = renewedAtMs - readAtMs;
      const writtenAtMs = renewedAtMs - clock.offsetMs;
      // 500 ms for the rounding of renewTime and of the offset seen by libfaketime.
      return writtenAtMs >= clock.sinceMs && writtenAtMs <= readAtMs + 500;
    },
    { timeoutMs: 60_000, intervalMs: 100, retryErrors: true },
  );
  return { seenAtMs, leaseSkewMs };
}

/** The latency a cell adds each way: its fraction of grace. */
const delayOf = (f: FailoverFederation, cell: { readonly fraction: number }): number =>
  Math.round(cell.fraction * f.timing.monitorGraceSeconds * 1000);

/**
 * The agent's link to the control plane slowed by a fraction of grace each way for 3 × grace, then
 * restored; watched from the slowdown until past the moment a stale Unknown from it would have
 * been tainted NoExecute.
 */
async function runLatencyCell(
  f: FailoverFederation,
  h: ClusterHistory,
  cell: Extract<Cell, { kind: 'latency' }>,
): Promise<LatencyReport> {
  const { member } = cell;
  const deployment = `web-slow-${member}`;
  const initialUid = await placeOn(f, deployment, { member });
  const failedBefore = await agentMetric(f, member, RENEW_FAILURES);
  const link = f.links.agentToControlPlane(member);
  const fromMs = Date.now();
  let restoredAtMs: number;
  let recordedOffset: string | undefined;
  try {
    link.delay(delayOf(f, cell));
    await sleep(3 * f.timing.monitorGraceSeconds * 1000);
    recordedOffset = (await f.clusters.get(member)).metadata.annotations?.[annotations.clockOffsetSeconds];
  } finally {
    link.restore();
    restoredAtMs = Date.now();
  }
  const readyAtMs = await h.firstMatchWithin(member, restoredAtMs, (c) => c.ready === 'True', 90_000);
  if (readyAtMs === undefined)
    throw new Error(`${member} not Ready=True within 90 s of the link's restoration`);
  await sleep(Math.max(0, fromMs + settleMs(f.timing) - Date.now()));
  const toMs = Date.now();
  const renewalsFailed = (await agentMetric(f, member, RENEW_FAILURES)) - failedBefore;
  const offsetWarnings = (await eventsAbout(f, member, 'ClusterClockOffset')).length;
  return {
    ...(await watched(f, h, { member, deployment, initialUid }, { fromMs, toMs })),
    recordedOffset,
    offsetWarnings,
    restoredAtMs,
    readyAtMs,
    renewalsFailed,
  };
}

/** `cluster.karmada.io/unreachable:NoSchedule` → `unreachable:NoSchedule`. */
const shortTaint = (t: string): string => t.replace(/^cluster\.karmada\.io\//, '');
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** Ready left True n times (first at +x s); taints added, by kind; evicted or not. */
function summary(r: Watched): string {
  const left = r.transitions.filter((t) => t.from === 'True');
  const ready =
    left.length === 0
      ? 'Ready stayed True'
      : `Ready left True ${String(left.length)}× (first +${seconds((left[0]?.atMs ?? 0) - r.fromMs)})`;
  const counts = new Map<string, number>();
  for (const t of r.taintsAdded) counts.set(t.taint, (counts.get(t.taint) ?? 0) + 1);
  const taints =
    r.taintsHeld.length === 0
      ? 'no taint'
      : [...new Set([...r.taintsHeld, ...counts.keys()])]
          .map((t) => `${shortTaint(t)} ×${String(counts.get(t) ?? 0)}`)
          .join(', ');
  return `${ready}, ${taints}, ${r.evicted === undefined ? 'not evicted' : `EVICTED (${r.evicted})`}`;
}

/** A clock cell's line: the offset seen, the live window, and how soon the killed member was Unknown. */
function clockLine(f: FailoverFederation, r: ClockReport): string {
  const afterMs = r.unknownAtMs === undefined ? undefined : r.unknownAtMs - r.killedAtMs;
  const targetMs = unknownTargetMs(f.timing);
  const unknown =
    afterMs === undefined
      ? `not Unknown within ${seconds(UNKNOWN_WAIT_MS)}`
      : `Unknown +${seconds(afterMs)}${afterMs > targetMs ? ` (over the ${seconds(targetMs)} target)` : ''}`;
  return (
    `Lease ${seconds(r.leaseSkewMs)} off; alive ${seconds(r.toMs - r.fromMs)} from +${seconds(r.fromMs - r.restartedAtMs)}: ` +
    `${summary(r)}; killed: ${unknown}`
  );
}

/** A latency cell's line: heartbeats lost, the window, Ready after the link was restored. */
function latencyLine(r: LatencyReport): string {
  return (
    `${String(r.renewalsFailed)} renewals failed; ${seconds(r.toMs - r.fromMs)}: ${summary(r)}; ` +
    `Ready=True +${seconds(r.readyAtMs - r.restoredAtMs)} after`
  );
}

/** What a report's promise gave: its line, or why the cell did not finish. */
async function lineOf<R>(report: Promise<R> | undefined, line: (r: R) => string): Promise<string> {
  if (report === undefined) return 'did not run';
  return report.then(line, (err: unknown) => String(err));
}

/** One line per cell: what the window showed, and for a killed member how soon it was Unknown. */
async function printFigures(
  f: FailoverFederation,
  took: { readonly upMs: number; readonly cellsMs: number },
): Promise<void> {
  const lines: string[] = [];
  for (const cell of cells) {
    if (cell.kind === 'clock') {
      const line = await lineOf(clockReports.get(cell.member), (r) => clockLine(f, r));
      lines.push(`clock ${cell.offset.padEnd(5)}            ${line}`);
    } else {
      const line = await lineOf(latencyReports.get(cell.member), latencyLine);
      lines.push(`latency ${cell.label} grace (${String(delayOf(f, cell)).padStart(4)} ms) ${line}`);
    }
  }
  const t = f.timing;
  process.stdout.write(
    `agent clocks and slow agent links (grace ${String(t.monitorGraceSeconds)} s, monitor ${String(t.monitorPeriodSeconds)} s, hold ${String(t.taintHoldSeconds)} s; ` +
      `federation up in ${seconds(took.upMs)}, cells done ${seconds(took.cellsMs)} later):\n${lines.join('\n')}\n`,
  );
}

/** Ready transitions as `+1.2 s True→Unknown (reason)`, for assertion messages. */
const described = (r: Watched): string[] =>
  r.transitions.map(
    (t) =>
      `+${seconds(t.atMs - r.fromMs)} ${t.from ?? '?'}→${t.to}${t.reason === undefined ? '' : ` (${t.reason})`}`,
  );

/** Nothing was evicted: never tainted NoExecute in the window, still placed there with the same copy. */
function expectNotEvicted(r: Watched): void {
  expect(r.taintsHeld.filter((t) => t.endsWith(':NoExecute'))).toEqual([]);
  expect(r.evicted).toBeUndefined();
}

/** The verdict of every cell, once runClockCells() settled. */
export function defineClockTests(): void {
  describe('an agent clock off the control plane’s', () => {
    const clockCells = cells.filter((c) => c.kind === 'clock');
    it.each(clockCells)(
      '$offset: alive, its cluster stays Ready, untainted, in place ($member)',
      async (cell) => {
        const r = await clockReports.get(cell.member);
        if (r === undefined) throw new Error('cell did not run');
        // The agent did run with the offset: its Lease's renewTime says so.
        expect(Math.abs(r.leaseSkewMs - parseClockOffset(cell.offset))).toBeLessThanOrEqual(3_000);
        expect(described(r)).toEqual([]);
        expect(r.taintsHeld.map(shortTaint)).toEqual([]);
        expectNotEvicted(r);
        // The offset is shown, not obeyed: recorded on the Cluster, with one Warning Event.
        expect(Math.abs(Number(r.recordedOffset) * 1000 - parseClockOffset(cell.offset))).toBeLessThanOrEqual(
          3_000,
        );
        expect(r.offsetWarnings).toBe(1);
      },
    );

    it.each(clockCells)(
      '$offset: killed, its cluster is Ready=Unknown as soon as with a right clock ($member)',
      async (cell) => {
        const r = await clockReports.get(cell.member);
        if (r === undefined || timing === undefined) throw new Error('cell did not run');
        expect(r.unknownAtMs, `Ready=Unknown within ${seconds(UNKNOWN_WAIT_MS)} of the kill`).toBeDefined();
        expect((r.unknownAtMs ?? Number.POSITIVE_INFINITY) - r.killedAtMs).toBeLessThanOrEqual(
          unknownBoundMs(timing),
        );
      },
    );
  });

  describe('latency on the agent link', () => {
    it.each(cells.filter((c) => c.kind === 'latency'))(
      '$label of grace each way for 3 × grace ($member)',
      async (cell) => {
        const r = await latencyReports.get(cell.member);
        if (r === undefined) throw new Error('cell did not run');
        if (cell.fraction <= READY_HOLDS_UP_TO) {
          expect(described(r)).toEqual([]);
          expect(r.taintsHeld.map(shortTaint)).toEqual([]);
        }
        expectNotEvicted(r);
        expect(r.readyAtMs - r.restoredAtMs).toBeLessThanOrEqual(READY_BOUND_MS);
        // A slow link is no clock offset: its delay only lowers the samples, the least delayed counts.
        expect(r.recordedOffset).toBeUndefined();
        expect(r.offsetWarnings).toBe(0);
      },
    );
  });
}

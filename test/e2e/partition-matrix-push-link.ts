/**
 * The partition matrix on the control plane's link to Push members (run by
 * push-partitions.int.test.ts): ten members joined in Push mode, each reached by the control plane
 * through its own proxy, which a cell cuts (RST) or blackholes (silence) for 1, 5, 15, 30 or 60 s,
 * all cells side by side (a member each), with the shipped ClusterTaintPolicy's hold time
 * (15 s) and the test timings (status every 1 s, failure and success thresholds 3 s). Ready is
 * False (ClusterNotReachable, never Unknown) from the failure threshold after the first unanswered
 * probe was sent (once it has given up: 5 s on a blackhole) until the success threshold after the
 * link is back: a fault whose not-ready spell is
 * shorter than the hold moves nothing, a longer one fails over and comes back cleanly, and one
 * within 2 s of the hold (a 15 s cut or blackhole) may do either, cleanly (pushLinkOutcome). In every cell no
 * NoExecute taint lands once Ready is True again.
 */
import { describe, expect, it } from 'vitest';
import { clusterReadyReasons } from '@kf/api';
import {
  SHIPPED_TAINT_HOLD_SECONDS,
  copiesSeen,
  everNoExecute,
  leftAfter,
  noExecuteAddedAfter,
  partitionPushLink,
  pushLinkOutcome,
  startFailoverFederation,
  versionsSeen,
  type FailoverFederation,
  type LinkPartitionRun,
} from '@kf/testing';
import { LINK_CELLS, cameBackCleanly, placeOn, type LinkCell } from './partition-cells.ts';
import { NAMESPACE, placement } from './support.ts';

/**
 * Ready is True again within the success threshold (3 s) after the first answer, which a probe
 * left hanging by a blackhole gives only once it timed out (5 s), + a status period and 1 s.
 */
const PUSH_READY_BOUND_MS = 10_000;

const cells = LINK_CELLS;
type Cell = LinkCell;

interface CellReport extends LinkPartitionRun {
  readonly initialUid: string;
  /** Ready reasons seen while the cell ran, in order, repeats collapsed. */
  readonly readyReasons: readonly string[];
}

let fed: FailoverFederation;
const reports = new Map<string, Promise<CellReport>>();

/** Starts the federation and plays every cell side by side; resolves when all have settled. */
export async function runPushLinkCells(): Promise<void> {
  fed = await startFailoverFederation({
    members: cells.length,
    nodes: 1,
    pushMembers: cells.map((c) => c.member),
    timing: { taintHoldSeconds: SHIPPED_TAINT_HOLD_SECONDS },
    // Cells fail side by side: several members are not ready at once, which is not a fleet outage.
    controlPlaneFlags: ['--fleet-guard-pause-threshold=0.95', '--fleet-guard-resume-threshold=0.9'],
  });
  for (const cell of cells) reports.set(cell.member, runCell(cell));
  await Promise.allSettled(reports.values());
  await printFigures();
  restart = restartControlPlane();
  await restart.catch(() => undefined);
}

/** What every member's Ready and the cells' placements did across a control-plane restart. */
interface RestartReport {
  readonly readyBefore: Record<string, string>;
  /** Every Ready status seen per member from the restart until 15 s after it was ready. */
  readonly readySeen: Record<string, string[]>;
  readonly placementsBefore: string;
  readonly placementsAfter: string;
}

let restart: Promise<RestartReport>;

async function readyOf(member: string): Promise<string> {
  const c = await fed.clusters.find(member).catch(() => undefined);
  return c?.status?.conditions?.find((x) => x.type === 'Ready')?.status ?? 'absent';
}

/**
 * Every cell's placement, cluster → replicas, in cluster-name order: which clusters and how many
 * replicas, not the order of `spec.clusters` (a restart's scheduler may list the same ones in
 * another order).
 */
async function placements(): Promise<string> {
  const out: Record<string, unknown> = {};
  for (const cell of cells) {
    const p = (await placement(fed, `web-${cell.member}`)) ?? {};
    out[cell.member] = Object.fromEntries(Object.entries(p).sort(([a], [b]) => a.localeCompare(b)));
  }
  return JSON.stringify(out);
}

/** Restarts the control plane once every cell settled, watching every Push member throughout. */
async function restartControlPlane(): Promise<RestartReport> {
  const members = cells.map((c) => c.member);
  const readyBefore: Record<string, string> = {};
  const readySeen: Record<string, string[]> = {};
  for (const m of members) {
    readyBefore[m] = await readyOf(m);
    readySeen[m] = [];
  }
  const placementsBefore = await placements();
  const stop = new AbortController();
  const watcher = (async () => {
    while (!stop.signal.aborted) {
      for (const m of members) {
        const seen = (readySeen[m] ??= []);
        const r = await readyOf(m);
        if (seen.at(-1) !== r) seen.push(r);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  await fed.restartControlPlaneProcess();
  await new Promise((r) => setTimeout(r, 15_000));
  stop.abort();
  await watcher;
  return { readyBefore, readySeen, placementsBefore, placementsAfter: await placements() };
}

async function printFigures(): Promise<void> {
  const lines: string[] = [];
  for (const cell of cells) {
    const r = await reports.get(cell.member)?.catch(() => undefined);
    if (r === undefined) continue;
    lines.push(
      `${cell.mode.padEnd(9)} ${String(cell.seconds).padStart(2)} s: Ready ${r.readyReasons.join(' → ')}, ` +
        `Ready=True +${String(r.readyAtMs - r.restoredAtMs)} ms, ${everNoExecute(r.samples) ? 'failed over' : 'nothing moved'}`,
    );
  }
  process.stdout.write(
    `partition matrix (control plane → Push member link), after the link came back:\n${lines.join('\n')}\n`,
  );
}

export async function stopPushLinkCells(): Promise<void> {
  await (fed as FailoverFederation | undefined)?.destroy();
}

async function runCell(cell: Cell): Promise<CellReport> {
  const deployment = `web-${cell.member}`;
  const mayFailOver = pushLinkOutcome(fed.timing, cell) !== 'holds';
  const spare = mayFailOver ? cells[0]?.member : undefined;
  const initialUid = await placeOn(fed, deployment, {
    member: cell.member,
    ...(spare === undefined ? {} : { spare }),
  });
  const reasons: string[] = [];
  const watching = new AbortController();
  const watcher = watchReadyReasons(cell.member, reasons, watching.signal);
  try {
    const run = await partitionPushLink(
      fed,
      { member: cell.member, namespace: NAMESPACE, deployment },
      cell,
      // Clean at once when nothing moved; after a failover, once the copy is back.
      () => cameBackCleanly(fed, cell.member, deployment),
    );
    return { ...run, initialUid, readyReasons: reasons };
  } finally {
    watching.abort();
    await watcher;
  }
}

/** Records `status/reason` of the member's Ready every 250 ms until aborted (repeats collapsed). */
async function watchReadyReasons(member: string, into: string[], signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    const c = await fed.clusters.find(member).catch(() => undefined);
    const ready = c?.status?.conditions?.find((x) => x.type === 'Ready');
    const seen = ready === undefined ? 'absent' : `${ready.status}/${ready.reason ?? ''}`;
    if (into.at(-1) !== seen) into.push(seen);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export function definePushLinkTests(): void {
  describe('a control-plane restart with ten Push members', () => {
    it('leaves every one Ready and every placement as it was', async () => {
      const r = await restart;
      for (const cell of cells) {
        expect(r.readyBefore[cell.member]).toBe('True');
        expect(r.readySeen[cell.member]).toEqual(['True']);
      }
      expect(r.placementsAfter).toBe(r.placementsBefore);
    });
  });

  describe('partition matrix: the control plane → Push member link', () => {
    it.each(cells)('$mode for $seconds s ($member)', async (cell) => {
      const r = await reports.get(cell.member);
      if (r === undefined) throw new Error('cell did not run');
      // Seen, not waited for: a Push member is never Unknown, only False for want of an answer.
      expect(r.readyReasons.filter((x) => x.startsWith('Unknown'))).toEqual([]);
      expect(
        r.readyReasons
          .filter((x) => x.startsWith('False'))
          .every((x) => x === `False/${clusterReadyReasons.clusterNotReachable}`),
      ).toBe(true);
      // No NoExecute taint once Ready is True again, and the binding stays from then on.
      expect(noExecuteAddedAfter(r.samples, r.readyAtMs)).toEqual([]);
      const failedOver = everNoExecute(r.samples);
      const placedAgainAtMs = failedOver ? r.settledAtMs : r.readyAtMs;
      expect(leftAfter(r.samples, cell.member, placedAgainAtMs).map((s) => s.atMs)).toEqual([]);
      expect(r.readyAtMs - r.restoredAtMs).toBeLessThanOrEqual(PUSH_READY_BOUND_MS);
      const outcome = pushLinkOutcome(fed.timing, cell);
      if (outcome === 'fails over') {
        expect(r.readyReasons).toContain(`False/${clusterReadyReasons.clusterNotReachable}`);
        expect(everNoExecute(r.samples)).toBe(true);
        expect(leftAfter(r.samples, cell.member, 0).length).toBeGreaterThan(0);
      } else if (outcome === 'holds') {
        expect(everNoExecute(r.samples)).toBe(false);
        expect(leftAfter(r.samples, cell.member, 0)).toEqual([]);
        expect(copiesSeen(r.samples)).toEqual([r.initialUid]);
        expect(versionsSeen(r.samples)).toHaveLength(1);
      } else if (!failedOver) {
        // At the boundary and it held: then nothing moved at all.
        expect(leftAfter(r.samples, cell.member, 0)).toEqual([]);
        expect(copiesSeen(r.samples)).toEqual([r.initialUid]);
      }
    });
  });
}

/**
 * The partition matrix on the control plane's side (run by partitions-control-plane.int.test.ts):
 * the control-plane process's link to its API server cut or blackholed, its API server killed and restarted, and the whole control plane
 * (process and API server) killed and restarted, for 1, 5, 15, 30 and 60 s, with the shipped
 * policy's hold time (15 s) and the test timings. Nothing is wrong with any member in these cells,
 * so however long the fault, nothing may be tainted NoExecute, no binding may leave a cluster and
 * no member copy may change; Ready is True again within one status period + 1 s of the control
 * plane being back. Each kind of fault has a federation of its own (its cells in turn), all side by
 * side; so has the two-minute outage of the whole control plane during which an agent restarts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  SHIPPED_TAINT_HOLD_SECONDS,
  copiesSeen,
  everNoExecute,
  leftAfter,
  readyAgainAt,
  settleMs,
  startFailoverFederation,
  versionsSeen,
  type FailoverFederation,
  type Sample,
} from '@kf/testing';
import { READY_BOUND_MS, observe, placeOn, LINK_FAULT_SECONDS } from './partition-cells.ts';
const SECONDS = LINK_FAULT_SECONDS;
const KINDS = ['link-cut', 'link-blackhole', 'api-restart', 'control-plane-restart'] as const;
type Kind = (typeof KINDS)[number];
const OUTAGE_SECONDS = 120;
const MEMBER = 'member1';

interface CellReport {
  readonly seconds: number;
  readonly backAtMs: number;
  readonly readyAtMs: number;
}

interface KindReport {
  readonly cells: readonly CellReport[];
  readonly initialUid: string;
  readonly samples: readonly Sample[];
}

const feds: FailoverFederation[] = [];
/** A federation per kind of fault (one member), and one of two members for the outage. */
const kindFeds = new Map<Kind, FailoverFederation>();
let outageFed: FailoverFederation | undefined;
const kindReports = new Map<Kind, Promise<KindReport>>();
let outage: Promise<OutageReport>;

/** Starts the federations of the cells: one per kind of fault, one for the outage. */
export async function startControlPlaneFederations(): Promise<void> {
  await Promise.all([
    ...KINDS.map(async (kind) => {
      kindFeds.set(kind, await federation(1));
    }),
    (async () => {
      outageFed = await federation(2);
    })(),
  ]);
}

/** Plays every kind of fault and the two-minute outage side by side; resolves when all settled. */
export async function runControlPlaneCells(): Promise<void> {
  for (const kind of KINDS) kindReports.set(kind, runKind(kind));
  outage = runOutage();
  await Promise.allSettled([...kindReports.values(), outage]);
  await printFigures();
}

/** How soon Ready was True after each fault, per kind and length. */
async function printFigures(): Promise<void> {
  const lines: string[] = [];
  for (const kind of KINDS) {
    const r = await kindReports.get(kind)?.catch(() => undefined);
    const cells = (r?.cells ?? []).map(
      (c) => `${String(c.seconds)} s +${String(c.readyAtMs - c.backAtMs)} ms`,
    );
    lines.push(`${kind.padEnd(21)} ${cells.join(', ')}`);
  }
  const o = await outage.catch(() => undefined);
  if (o !== undefined) {
    const after = Object.entries(o.readyAtMs).map(([m, at]) => `${m} +${String(at - o.backAtMs)} ms`);
    lines.push(`two-minute outage     ${after.join(', ')}`);
  }
  process.stdout.write(
    `control-plane faults, Ready=True after the control plane was back:\n${lines.join('\n')}\n`,
  );
}

export async function stopControlPlaneCells(): Promise<void> {
  await Promise.allSettled(feds.map((f) => f.destroy()));
}

async function federation(members: number): Promise<FailoverFederation> {
  const fed = await startFailoverFederation({
    members,
    nodes: 1,
    timing: { taintHoldSeconds: SHIPPED_TAINT_HOLD_SECONDS },
  });
  feds.push(fed);
  return fed;
}

/** Breaks the control plane in the way `kind` says for `seconds`; resolves when it is back. */
async function fault(fed: FailoverFederation, kind: Kind, seconds: number): Promise<void> {
  const ms = seconds * 1000;
  switch (kind) {
    case 'link-cut':
      await fed.links.controlPlane.breakFor('cut', ms);
      return;
    case 'link-blackhole':
      await fed.links.controlPlane.breakFor('blackhole', ms);
      return;
    case 'api-restart':
      await fed.federation.controlPlane.killApiServer();
      await sleep(ms);
      await fed.federation.controlPlane.resumeApiServer();
      return;
    case 'control-plane-restart':
      await fed.killControlPlane();
      await sleep(ms);
      await fed.resumeControlPlane();
      return;
  }
}

/** The cells of one kind in turn on one federation, observed throughout. */
async function runKind(kind: Kind): Promise<KindReport> {
  const fed = kindFeds.get(kind);
  if (fed === undefined) throw new Error(`no federation for ${kind}`);
  const deployment = `web-${kind}`;
  const initialUid = await placeOn(fed, deployment, { member: MEMBER });
  const observer = observe(fed, MEMBER, deployment);
  observer.start();
  const cells: CellReport[] = [];
  try {
    for (const seconds of SECONDS) {
      await fault(fed, kind, seconds);
      const backAtMs = Date.now();
      const readyAtMs = await readyAgainAt(fed, MEMBER);
      cells.push({ seconds, backAtMs, readyAtMs });
    }
    // Past the moment a stale Unknown from the last fault would have been tainted. The cells follow
    // each other without this wait: the member must never be tainted NoExecute at all, so a late
    // taint from any cell fails the kind whenever it lands.
    await sleep(settleMs(fed.timing));
  } finally {
    await observer.stop();
  }
  return { cells, initialUid, samples: observer.samples };
}

interface OutageReport {
  readonly initialUids: Readonly<Record<string, string>>;
  readonly samples: Readonly<Record<string, readonly Sample[]>>;
  readonly backAtMs: number;
  readonly readyAtMs: Readonly<Record<string, number>>;
}

/**
 * The whole control plane down for two minutes, member1's agent restarted in the middle of it:
 * both members are watched every 250 ms from before the outage until grace + hold + 5 s after it.
 */
async function runOutage(): Promise<OutageReport> {
  const fed = outageFed;
  if (fed === undefined) throw new Error('no federation for the outage');
  const members = ['member1', 'member2'];
  const initialUids: Record<string, string> = {};
  const observers = members.map((m) => observe(fed, m, `web-${m}`));
  for (const m of members) initialUids[m] = await placeOn(fed, `web-${m}`, { member: m });
  for (const o of observers) o.start();
  try {
    await fed.killControlPlane();
    await sleep((OUTAGE_SECONDS * 1000) / 2);
    await fed.restartAgent('member1');
    await sleep((OUTAGE_SECONDS * 1000) / 2);
    await fed.resumeControlPlane();
    const backAtMs = Date.now();
    const readyAtMs: Record<string, number> = {};
    await Promise.all(
      members.map(async (m) => {
        readyAtMs[m] = await readyAgainAt(fed, m);
      }),
    );
    // Past the moment a stale Unknown from the outage would have been tainted.
    await sleep(settleMs(fed.timing));
    // Complete once `finally` has stopped the observers.
    const samples = Object.fromEntries(members.map((m, i) => [m, observers[i]?.samples ?? []]));
    return { initialUids, samples, backAtMs, readyAtMs };
  } finally {
    await Promise.all(observers.map((o) => o.stop()));
  }
}

/** The verdicts, once runControlPlaneCells() settled. */
export function defineControlPlaneTests(): void {
  describe('partition matrix: the control plane', () => {
    it.each(KINDS)('%s for 1, 5, 15, 30 and 60 s moves nothing', async (kind) => {
      const r = await kindReports.get(kind);
      if (r === undefined) throw new Error('cells did not run');
      expect(r.cells.map((c) => c.seconds)).toEqual([...SECONDS]);
      // Nothing was wrong with the member: never tainted NoExecute, never moved, the same copy.
      expect(everNoExecute(r.samples)).toBe(false);
      expect(leftAfter(r.samples, MEMBER, 0).map((s) => s.atMs)).toEqual([]);
      expect(copiesSeen(r.samples)).toEqual([r.initialUid]);
      expect(versionsSeen(r.samples)).toHaveLength(1);
      // Ready again within one status period (1 s) + 1 s of the control plane being back.
      for (const c of r.cells) {
        expect(c.readyAtMs - c.backAtMs, `Ready after the ${String(c.seconds)} s cell`).toBeLessThanOrEqual(
          READY_BOUND_MS,
        );
      }
    });
  });

  describe('the whole control plane down for two minutes, an agent restarted meanwhile', () => {
    it('deletes, recreates and changes nothing on the members, taints nothing, evicts nothing', async () => {
      const r = await outage;
      for (const m of ['member1', 'member2']) {
        const samples = r.samples[m] ?? [];
        // Sampled more often than once a second throughout (every 250 ms when the reads are quick):
        // the member's copy never went away nor came back with a new uid...
        const spanS = ((samples.at(-1)?.atMs ?? 0) - (samples[0]?.atMs ?? 0)) / 1000;
        expect(spanS).toBeGreaterThan(OUTAGE_SECONDS);
        expect(samples.length).toBeGreaterThan(spanS);
        expect(copiesSeen(samples)).toEqual([r.initialUids[m]]);
        // ...nor changed: one generation of it all along.
        expect(versionsSeen(samples)).toHaveLength(1);
        expect(everNoExecute(samples)).toBe(false);
        expect(samples.flatMap((s) => s.taints ?? []).map((t) => `${t.key}:${t.effect}`)).toEqual([]);
        expect(leftAfter(samples, m, 0).map((s) => s.atMs)).toEqual([]);
        expect((r.readyAtMs[m] ?? Number.POSITIVE_INFINITY) - r.backAtMs).toBeLessThanOrEqual(READY_BOUND_MS);
      }
    });
  });
}

/**
 * Random partitions for a long time, to count false failovers:
 *
 *   node controlplane/bench/partition-soak.bench.ts [--minutes=30] [--members=3] [--seed=N]
 *
 * A failover federation on loopback (control plane, `members` members, their agents behind
 * fault-injection proxies) with the shipped ClusterTaintPolicy's hold time (15 s) and the test
 * timings (grace 5 s, status every 1 s). Each member runs a Deployment Duplicated onto it and the
 * next member. Until the time is up, one member at a time has its agent's link to the control
 * plane cut or blackholed for a random length (1 to 90 s, log-uniform: mostly blips), then a random
 * pause of 5 to 30 s. Every partition is watched every 250 ms and judged:
 * - false eviction: a NoExecute taint added after the Lease was renewed again, the binding leaving
 *   the member after that, or any NoExecute taint in a partition shorter than grace + hold;
 * - true failover: a NoExecute taint during a partition longer than grace + hold.
 * Prints the counts (false evictions must be 0) and the distribution of the time from the link
 * coming back to Ready=True, against the target of one status period + 1 s. Loopback only; every loop is bounded by the time given.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import {
  SHIPPED_TAINT_HOLD_SECONDS,
  demoDeployment,
  duplicatedOnto,
  everNoExecute,
  failsOver,
  leftAfter,
  noExecuteAddedAfter,
  partitionAgentLink,
  READY_TARGET_MS,
  startFailoverFederation,
  waitUntil,
  type FailoverFederation,
  type FailoverTiming,
} from '@kf/testing';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: process.env['KF_SOAK_MINUTES'] ?? '30' },
    members: { type: 'string', default: '3' },
    seed: { type: 'string', default: String(Date.now() % 100_000) },
  },
});
const MINUTES = Number(values.minutes);
const MEMBERS = Number(values.members);
const NAMESPACE = 'default';

function log(msg: string): void {
  process.stderr.write(`[partition-soak] ${msg}\n`);
}

/** mulberry32: a small seeded generator, so that a run can be replayed with --seed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Outcome {
  readonly member: string;
  readonly mode: 'cut' | 'blackhole';
  readonly seconds: number;
  readonly readyAfterMs: number;
  readonly falseEviction: string | undefined;
  readonly failedOver: boolean;
}

async function propagateTo(
  fed: FailoverFederation,
  name: string,
  clusters: readonly string[],
): Promise<void> {
  await fed.policies.create({
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name, namespace: NAMESPACE },
    spec: {
      resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name }],
      placement: duplicatedOnto(clusters),
    },
  });
  await fed.apps.createNamespacedDeployment({ namespace: NAMESPACE, body: demoDeployment(name, 1) });
}

async function partitionOnce(
  fed: FailoverFederation,
  p: { member: string; mode: 'cut' | 'blackhole'; seconds: number },
): Promise<Outcome> {
  const deployment = `soak-${p.member}`;
  const longFault = failsOver(fed.timing, p.seconds);
  const placedAgain = (): Promise<number> =>
    waitUntil(
      'placed again',
      async () => {
        const b = await fed.bindings.find(`${NAMESPACE}/${deployment}-deployment`);
        return (b?.spec.clusters ?? []).some((c) => c.name === p.member);
      },
      { timeoutMs: 180_000, intervalMs: 500, retryErrors: true },
    );
  const run = await partitionAgentLink(
    fed,
    { member: p.member, namespace: NAMESPACE, deployment },
    p,
    longFault ? placedAgain : undefined,
  );
  const late = noExecuteAddedAfter(run.samples, run.renewedAtMs);
  const left = leftAfter(run.samples, p.member, longFault ? run.settledAtMs : run.renewedAtMs);
  const failedOver = everNoExecute(run.samples);
  const shortFault = p.seconds < fed.timing.monitorGraceSeconds + fed.timing.taintHoldSeconds;
  const falseEviction =
    late.length > 0
      ? `NoExecute after the renewal: ${late.join(', ')}`
      : left.length > 0
        ? 'binding left after the renewal'
        : failedOver && shortFault
          ? 'NoExecute in a partition shorter than grace + hold'
          : undefined;
  return { ...p, readyAfterMs: run.readyAtMs - run.restoredAtMs, falseEviction, failedOver };
}

function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

async function main(): Promise<void> {
  const random = seeded(Number(values.seed));
  log(`seed ${values.seed}, ${String(MINUTES)} minutes, ${String(MEMBERS)} members`);
  const fed = await startFailoverFederation({
    members: MEMBERS,
    nodes: 1,
    timing: { taintHoldSeconds: SHIPPED_TAINT_HOLD_SECONDS },
  });
  const timing: FailoverTiming = fed.timing;
  const outcomes: Outcome[] = [];
  try {
    const names = fed.memberNames;
    for (const [i, m] of names.entries())
      await propagateTo(fed, `soak-${m}`, [m, names[(i + 1) % names.length] ?? m]);
    await sleep(10_000);
    const endAtMs = Date.now() + MINUTES * 60_000;
    while (Date.now() < endAtMs) {
      const member = names[Math.floor(random() * names.length)] ?? 'member1';
      const mode = random() < 0.5 ? 'cut' : 'blackhole';
      const seconds = Math.max(1, Math.round(Math.exp(random() * Math.log(90))));
      const o = await partitionOnce(fed, { member, mode, seconds });
      outcomes.push(o);
      log(
        `${member} ${mode} ${String(seconds)} s: Ready +${String(o.readyAfterMs)} ms, ` +
          `${o.failedOver ? 'failed over' : 'nothing moved'}${o.falseEviction === undefined ? '' : `, FALSE EVICTION (${o.falseEviction})`}`,
      );
      await sleep(5_000 + random() * 25_000);
    }
  } finally {
    await fed.destroy();
  }
  const ready = outcomes.map((o) => o.readyAfterMs).sort((a, b) => a - b);
  const falseEvictions = outcomes.filter((o) => o.falseEviction !== undefined).length;
  process.stdout.write(
    [
      `partitions: ${String(outcomes.length)} (${String(outcomes.filter((o) => o.mode === 'cut').length)} cut, ${String(outcomes.filter((o) => o.mode === 'blackhole').length)} blackholed)`,
      `false evictions: ${String(falseEvictions)} (must be 0)`,
      `true failovers: ${String(outcomes.filter((o) => o.failedOver && o.falseEviction === undefined).length)} (partitions longer than grace + hold: ${String(outcomes.filter((o) => failsOver(timing, o.seconds)).length)})`,
      `time to Ready=True after the link came back: p50 ${String(percentile(ready, 0.5))} ms, p90 ${String(percentile(ready, 0.9))} ms, p99 ${String(percentile(ready, 0.99))} ms, max ${String(ready.at(-1) ?? Number.NaN)} ms`,
      `within one status period + 1 s (${String(READY_TARGET_MS)} ms): ${String(ready.filter((ms) => ms <= READY_TARGET_MS).length)} of ${String(ready.length)}; max / target = ${((ready.at(-1) ?? Number.NaN) / READY_TARGET_MS).toFixed(2)}`,
      '',
    ].join('\n'),
  );
  if (falseEvictions > 0) process.exitCode = 1;
}

await main();

import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LEASE_RESOURCE, ResourceClient, leaseRenewedAtMs, type Lease } from '../src/index.ts';
import { startTestControlPlane, testNamespace, type TestControlPlane } from './control-plane.ts';

const CANDIDATE = fileURLToPath(new URL('./leader-candidate.ts', import.meta.url));

/** Shorter than the defaults to keep the test short, in the same proportions. */
const TIMINGS = { leaseDurationMs: 6_000, renewDeadlineMs: 4_000, retryPeriodMs: 1_000, jitterFactor: 1.2 };
/** Slack for a loaded 2-core machine: process scheduling, API latency. */
const MARGIN_MS = 3_000;

interface Line {
  readonly event: string;
  readonly identity: string;
  readonly atMs: number;
}

/** A candidate process and the JSON lines it printed, stamped on arrival. */
class Candidate {
  readonly identity: string;
  readonly lines: Line[] = [];
  private readonly proc: ChildProcess;
  private readonly waiters = new Set<() => void>();

  constructor(kubeconfig: string, namespace: string, lease: string, identity: string) {
    this.identity = identity;
    this.proc = spawn(
      process.execPath,
      [CANDIDATE, kubeconfig, namespace, lease, identity, JSON.stringify(TIMINGS)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const rl = createInterface({ input: this.proc.stdout! });
    rl.on('line', (text) => {
      const parsed = JSON.parse(text) as { event: string; identity: string };
      this.lines.push({ ...parsed, atMs: performance.now() });
      for (const w of [...this.waiters]) w();
    });
  }

  /** Arrival time of the first `event` line, waiting up to `timeoutMs` for it. */
  async waitFor(event: string, timeoutMs: number): Promise<number> {
    const found = (): Line | undefined => this.lines.find((l) => l.event === event);
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const line = found();
      if (line !== undefined) return line.atMs;
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`${this.identity} did not print ${event} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, left);
        function done(): void {
          clearTimeout(timer);
          resolve();
        }
        this.waiters.add(done);
      }).finally(() => {
        this.waiters.clear();
      });
    }
  }

  has(event: string): boolean {
    return this.lines.some((l) => l.event === event);
  }

  /** Sends a signal and resolves with the exit code (null when killed by the signal). */
  async kill(signal: NodeJS.Signals): Promise<number | null> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return this.proc.exitCode;
    const exited = once(this.proc, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    this.proc.kill(signal);
    const [code] = await exited;
    return code;
  }
}

describe('LeaderElector against a real API server', () => {
  let cp: TestControlPlane;
  let leases: ResourceClient<Lease>;
  const candidates: Candidate[] = [];

  beforeAll(async () => {
    cp = await startTestControlPlane('kube-leader');
    leases = new ResourceClient<Lease>(cp.cluster.kubeConfig(), LEASE_RESOURCE);
  });

  afterEach(async () => {
    await Promise.all(candidates.splice(0).map((c) => c.kill('SIGKILL')));
  });

  afterAll(async () => {
    await cp.destroy();
  });

  /** Starts two candidates for one lease in the default namespace; resolves with [leader, follower]. */
  async function race(lease: string): Promise<[Candidate, Candidate]> {
    const path = cp.cluster.kubeconfigPath;
    const a = new Candidate(path, 'default', lease, `${lease}-a`);
    const b = new Candidate(path, 'default', lease, `${lease}-b`);
    candidates.push(a, b);
    await Promise.race([a.waitFor('leading', 60_000), b.waitFor('leading', 60_000)]);
    const [leader, follower] = a.has('leading') ? [a, b] : [b, a];
    expect(follower.has('leading')).toBe(false);
    await leader.waitFor('work-started', 5_000);
    return [leader, follower];
  }

  it('hands leadership to the other candidate within leaseDuration + retryPeriod after the leader is killed', async () => {
    const name = testNamespace('killed');
    const [leader, follower] = await race(name);
    const before = await leases.get(`default/${name}`);
    expect(before.spec?.holderIdentity).toBe(leader.identity);
    expect(before.spec?.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

    const killedAtMs = performance.now();
    await leader.kill('SIGKILL');
    const ledAtMs = await follower.waitFor('leading', 60_000);

    const tookMs = ledAtMs - killedAtMs;
    expect(tookMs).toBeLessThan(TIMINGS.leaseDurationMs + TIMINGS.retryPeriodMs + MARGIN_MS);
    const after = await leases.get(`default/${name}`);
    expect(after.spec?.holderIdentity).toBe(follower.identity);
    expect(after.spec?.leaseTransitions).toBe((before.spec?.leaseTransitions ?? 0) + 1);
    expect(after.spec?.acquireTime).not.toBe(before.spec?.acquireTime);
  });

  it('releases the lease on SIGTERM so that the other candidate takes over at its next try', async () => {
    const name = testNamespace('released');
    const [leader, follower] = await race(name);

    const stoppedAtMs = performance.now();
    const code = await leader.kill('SIGTERM');
    expect(code).toBe(0);
    expect(leader.lines.map((l) => l.event)).toEqual([
      'started',
      'leading',
      'work-started',
      'work-stopped',
      'not-leading',
      'exited',
    ]);
    const ledAtMs = await follower.waitFor('leading', 60_000);

    // Without the release the follower would wait a whole leaseDuration.
    const tookMs = ledAtMs - stoppedAtMs;
    expect(tookMs).toBeLessThan(TIMINGS.retryPeriodMs * TIMINGS.jitterFactor + MARGIN_MS);
    expect(tookMs).toBeLessThan(TIMINGS.leaseDurationMs);
    const after = await leases.get(`default/${name}`);
    expect(after.spec?.holderIdentity).toBe(follower.identity);
    expect(after.spec?.leaseDurationSeconds).toBe(TIMINGS.leaseDurationMs / 1000);
  });

  it('keeps renewing and one leader while both run', async () => {
    const name = testNamespace('steady');
    const [leader, follower] = await race(name);
    const startMs = leaseRenewedAtMs(await leases.get(`default/${name}`)) ?? 0;
    // Long enough for a leader that stopped renewing to have lost the lease.
    const horizonMs = startMs + TIMINGS.leaseDurationMs + TIMINGS.renewDeadlineMs;
    await expect
      .poll(async () => leaseRenewedAtMs(await leases.get(`default/${name}`)) ?? 0, {
        timeout: 30_000,
        interval: 500,
      })
      .toBeGreaterThan(horizonMs);
    const lease = await leases.get(`default/${name}`);
    expect(lease.spec?.holderIdentity).toBe(leader.identity);
    expect(lease.spec?.leaseTransitions).toBe(0);
    expect(leader.lines.map((l) => l.event)).toEqual(['started', 'leading', 'work-started']);
    expect(follower.lines.map((l) => l.event)).toEqual(['started']);
  });
});

/**
 * The control plane as a process (`node controlplane/src/main.ts run …`): exit codes for bad
 * flags, /metrics and /readyz against a real Karmada API server, and a clean stop on SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@kf/testing';
import { startPlane, type Plane } from './harness.ts';

const MAIN = join(import.meta.dirname, '..', 'src', 'main.ts');

function start(args: readonly string[]): {
  child: ChildProcess;
  exited: Promise<number | null>;
  stderr: () => string;
} {
  const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => {
      resolve(code);
    });
  });
  return { child, exited, stderr: () => stderr };
}

let plane: Plane;

beforeAll(async () => {
  plane = await startPlane();
});

afterAll(async () => {
  await (plane as Plane | undefined)?.cluster.destroy();
});

describe('controlplane process', () => {
  it('exits 2 listing every bad flag value', async () => {
    const p = start([
      'run',
      '--no-execute-taint-eviction-purge-mode=Never',
      '--failover',
      '--feature-gates=Nope=true',
    ]);
    expect(await p.exited).toBe(2);
    expect(p.stderr()).toContain('--no-execute-taint-eviction-purge-mode');
    expect(p.stderr()).toContain('unknown feature gate');
  });

  it('exits 2 for an unknown controller name', async () => {
    const p = start(['run', `--kubeconfig=${plane.controlPlaneKubeconfig}`, '--controllers=*,-taint-manger']);
    expect(await p.exited).toBe(2);
    expect(p.stderr()).toContain('unknown controller(s) -taint-manger');
  });

  it('serves /metrics and /readyz, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const p = start([
      'run',
      `--kubeconfig=${plane.controlPlaneKubeconfig}`,
      '--failover',
      `--metrics-bind-address=127.0.0.1:${port}`,
      `--health-probe-bind-address=127.0.0.1:${port}`,
      '--leader-elect-lease-duration=4s',
      '--leader-elect-renew-deadline=3s',
      '--leader-elect-retry-period=1s',
    ]);
    try {
      await expect
        .poll(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status, {
          timeout: 30_000,
          interval: 250,
        })
        .toBe(200);
      await expect
        .poll(async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text(), { timeout: 20_000 })
        .toContain('karmada_failover_leader_election_is_leader 1');
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      for (const family of [
        'karmada_failover_evictions_total',
        'karmada_failover_eviction_queue_depth',
        'karmada_failover_health_to_taint_seconds_bucket',
        'karmada_failover_clusters',
        'karmada_failover_fleet_guard_paused',
        'karmada_failover_reconcile_total{controller="taint-manager"',
      ]) {
        expect(metrics).toContain(family);
      }
    } finally {
      p.child.kill('SIGTERM');
    }
    expect(await p.exited).toBe(0);
  });
});

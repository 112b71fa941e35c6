/**
 * The control plane as a process (`node controlplane/src/main.ts run …`): exit codes for bad
 * flags, /metrics and /readyz against a real Karmada API server, and a clean stop on SIGTERM.
 */
import { KubeTransport, getText } from '@kf/kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlaneProcess, LEADER_ELECTION_FLAGS, startPlane, type Plane } from './harness.ts';

let plane: Plane;

beforeAll(async () => {
  plane = await startPlane();
});

afterAll(async () => {
  await (plane as Plane | undefined)?.cluster.destroy();
});

describe('controlplane process', () => {
  it('exits 2 listing every bad flag value', async () => {
    const p = ControlPlaneProcess.spawn([
      'run',
      '--no-execute-taint-eviction-purge-mode=Never',
      '--failover',
      '--feature-gates=Nope=true',
    ]);
    expect((await p.exited).code).toBe(2);
    expect(p.stderr()).toContain('--no-execute-taint-eviction-purge-mode');
    expect(p.stderr()).toContain('unknown feature gate');
  });

  it('exits 2 for an unknown controller name', async () => {
    const p = ControlPlaneProcess.spawn([
      'run',
      `--kubeconfig=${plane.controlPlaneKubeconfig}`,
      '--controllers=*,-taint-manger',
    ]);
    expect((await p.exited).code).toBe(2);
    expect(p.stderr()).toContain('unknown controller(s) -taint-manger');
  });

  it('serves /metrics and /readyz, and stops cleanly on SIGTERM', async () => {
    const kinds = ['clusters', 'resourcebindings', 'clusterresourcebindings'];
    const before = await watchesServed(kinds);
    const p = await ControlPlaneProcess.start(plane.controlPlaneKubeconfig, LEADER_ELECTION_FLAGS);
    try {
      await p.ready(30_000);
      await expect
        .poll(() => p.metric('karmada_failover_leader_election_is_leader'), { timeout: 20_000 })
        .toBe(1);
      const metrics = await (await fetch(`http://127.0.0.1:${p.port}/metrics`)).text();
      // One watch per kind for the whole process, failover and workload controllers alike (counted
      // by the API server, beyond those it served before the process started).
      await expect
        .poll(async () => {
          const now = await watchesServed(kinds);
          return Object.fromEntries(kinds.map((k) => [k, (now[k] ?? 0) - (before[k] ?? 0)]));
        })
        .toEqual({ clusters: 1, resourcebindings: 1, clusterresourcebindings: 1 });
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
    expect((await p.exited).code).toBe(0);
  });
});

/** How many watches of each resource the API server is serving now (its long-running request gauge). */
async function watchesServed(resources: readonly string[]): Promise<Record<string, number>> {
  const { body } = await getText(new KubeTransport(plane.cluster.kubeConfig()), '/metrics', {
    accept: 'text/plain',
  });
  const served: Record<string, number> = {};
  for (const resource of resources) {
    served[resource] = body
      .split('\n')
      .filter(
        (l) =>
          l.startsWith('apiserver_longrunning_requests{') &&
          l.includes(`resource="${resource}"`) &&
          l.includes('verb="WATCH"'),
      )
      .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  }
  return served;
}

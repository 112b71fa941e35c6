/**
 * A cold start whose caches cannot all fill. The controllers' first passes over every key wait
 * until the process is warm (every cache has listed); a resource the API server does not serve
 * ends its cache's first list with a failure, and must not hold back the controllers that do not
 * read it.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { executionNamespaceFor } from '@kf/api';
import { ResourceClient, type KubeObject } from '@kf/kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NAMESPACE_RESOURCE } from '../src/controllers/cluster/controller.ts';
import { FakeAgents, runControlPlane, startPlane, type Plane, type RunningControlPlane } from './harness.ts';

const execFileAsync = promisify(execFile);

describe('control plane cold start', () => {
  let plane: Plane;
  let agents: FakeAgents;
  let app: RunningControlPlane | undefined;

  beforeAll(async () => {
    plane = await startPlane();
    agents = new FakeAgents(plane);
  });

  afterAll(async () => {
    agents.stop();
    await app?.stop();
    await plane.cluster.destroy();
  });

  it('runs the first passes although the Remedy CRD is missing', async () => {
    await execFileAsync(
      plane.cluster.kubectlPath,
      plane.cluster.kubectlArgs('delete', 'crd', 'remedies.remedy.karmada.io', '--wait=true'),
    );
    await agents.register('member1');
    app = await runControlPlane(plane, []);
    // The cluster controller's first pass (not one that waits for nothing) makes the member's
    // execution namespace.
    const namespaces = new ResourceClient<KubeObject>(plane.cluster.kubeConfig(), NAMESPACE_RESOURCE);
    await expect
      .poll(async () => (await namespaces.find(executionNamespaceFor('member1'))) !== undefined, {
        timeout: 20_000,
        interval: 250,
      })
      .toBe(true);
    // The remedies cache is still failing, and says so.
    const metrics = await app.registry.metrics();
    expect(metrics).toMatch(
      /karmada_failover_watch_restarts_total\{resource="remedies\.remedy\.karmada\.io",reason="error"\} [1-9]/,
    );
  });
});

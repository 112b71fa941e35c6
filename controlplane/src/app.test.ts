import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ConfigError, createRegistry, systemClock, type ControllerSpec } from '@kf/runtime';
import { EventRecorder } from '@kf/kube';
import { BUILT_IN_CONTROLLERS, buildControllers, kubeconfigPath } from './app.ts';
import { EXTRA_CONTROLLER_SETS } from './extra-controllers.ts';
import { buildControlPlaneCommand, type ControlPlaneConfig } from './cli.ts';
import { SharedCaches, type ControlPlaneWiring } from './wiring.ts';

async function configFor(...args: string[]): Promise<ControlPlaneConfig> {
  let config: ControlPlaneConfig | undefined;
  await buildControlPlaneCommand((c) => {
    config = c;
    return Promise.resolve();
  }).parseAsync(['run', ...args], { from: 'user' });
  if (config === undefined) throw new Error('no config');
  return config;
}

/** Wiring that never talks to a server: building controllers only creates clients and caches. */
function wiring(config: ControlPlaneConfig): ControlPlaneWiring {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  const log = pino({ level: 'silent' });
  return {
    config,
    kubeConfig,
    log,
    clock: systemClock,
    random: Math.random,
    registry: createRegistry({ component: 'controlplane', version: 'test' }),
    events: new EventRecorder({ kubeConfig, component: 'test', log }),
    caches: new SharedCaches(kubeConfig, log, { clock: systemClock, random: Math.random }),
    runner: { log },
  };
}

const names = (specs: readonly ControllerSpec[]): string[] => specs.map((s) => s.name);
const extra = (name: string): ControllerSpec => ({ name, sources: [], reconcile: () => Promise.resolve({}) });

describe('buildControllers', () => {
  it('without --failover runs what upstream runs without gate Failover', async () => {
    expect(names(buildControllers(wiring(await configFor()), []))).toEqual([
      'cluster',
      'cluster-health',
      'cluster-taints',
      'fence-release',
      'graceful-eviction',
      'remedy',
      'ingress-traffic',
      'workload-rebalancer',
    ]);
  });

  it('with --failover adds the taint policy controller and the taint manager', async () => {
    expect(names(buildControllers(wiring(await configFor('--failover')), []))).toEqual(BUILT_IN_CONTROLLERS);
  });

  it('applies --controllers to built-in and extra controllers alike', async () => {
    const w = wiring(await configFor('--controllers=cluster-health,-detector,*'));
    expect(names(buildControllers(w, [{ controllers: [extra('detector'), extra('scheduler')] }]))).toEqual([
      'cluster',
      'cluster-health',
      'cluster-taints',
      'fence-release',
      'graceful-eviction',
      'remedy',
      'ingress-traffic',
      'workload-rebalancer',
      'scheduler',
    ]);
  });

  it('refuses names no controller has', async () => {
    const w = wiring(await configFor('--controllers=*,-taint-manger'));
    expect(() => buildControllers(w, [])).toThrow(ConfigError);
  });
});

describe('the workload controller set', () => {
  it('reads through the shared caches and event recorder, and names its template caches until they list', async () => {
    const w = wiring(await configFor('--failover'));
    const sets = EXTRA_CONTROLLER_SETS.map((set) => set(w));
    buildControllers(w, sets);
    const names = w.caches.created().map((c) => c.name.replace(/^cache-\d+-/, ''));
    for (const kind of [
      'clusters.cluster.karmada.io',
      'resourcebindings.work.karmada.io',
      'works.work.karmada.io',
    ]) {
      expect(names.filter((n) => n === kind)).toEqual([kind]);
    }
    expect(names.filter((n) => n.startsWith('resourceinterpretercustomizations.'))).toHaveLength(1);
    // Its own runnables are only what the shared caches cannot hold: templates, kind discovery and
    // the resource interpreter fed from the customizations' cache; the Push clusters' set closes
    // its interpreter of the same cache when the process stops.
    expect(
      sets
        .flatMap((s) => s.runnables ?? [])
        .map((r) => r.name)
        .sort(),
    ).toEqual(['kind-discovery', 'push-interpreter', 'resource-interpreter', 'templates']);
    expect(sets.flatMap((s) => s.unsynced?.() ?? [])).toEqual([
      'templates/apps/v1/Deployment',
      'resource-interpreter',
    ]);
  });
});

describe('kubeconfigPath', () => {
  it.each([
    ['the flag first', '/flag', { KUBECONFIG: '/env' }, '/flag'],
    ['every file of $KUBECONFIG next, to be merged', '', { KUBECONFIG: ':/a:/b' }, ['/a', '/b']],
    ['in-cluster when nothing is found', '', {}, undefined],
  ] as const)('%s', (_name, flagValue, env, expected) => {
    expect(kubeconfigPath(flagValue, env, '/nonexistent-home')).toEqual(expected);
  });
});

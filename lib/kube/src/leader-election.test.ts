import { KubeConfig } from '@kubernetes/client-node';
import { createLogger, createRegistry } from '@kf/runtime';
import { describe, expect, it } from 'vitest';
import {
  LEADER_GAUGE_NAME,
  LeaderElector,
  defaultIdentity,
  makeLeaderGauge,
  validateTimings,
} from './leader-election.ts';

const log = createLogger({ component: 'test', level: 'silent' });

function kubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
    currentContext: 'c',
  });
  return kc;
}

describe('validateTimings', () => {
  it.each([
    ['the defaults', [15_000, 10_000, 2_000, 1.2]],
    ['short test timings', [6_000, 4_000, 1_000, 1.2]],
  ] as const)('accepts %s', (_name, [lease, renew, retry, jitter]) => {
    expect(() => {
      validateTimings(lease, renew, retry, jitter);
    }).not.toThrow();
  });

  it.each([
    ['renewDeadline not below leaseDuration', [10_000, 10_000, 2_000, 1.2]],
    ['retry × jitter not below renewDeadline', [15_000, 2_400, 2_000, 1.2]],
    ['a zero retry period', [15_000, 10_000, 0, 1.2]],
    ['a jitter factor below 1', [15_000, 10_000, 2_000, 0.5]],
  ] as const)('rejects %s', (_name, [lease, renew, retry, jitter]) => {
    expect(() => {
      validateTimings(lease, renew, retry, jitter);
    }).toThrow(RangeError);
  });
});

describe('LeaderElector', () => {
  it('reports not-leader and exports 0 before it ever ran', async () => {
    const registry = createRegistry({ component: 'test', version: '0' });
    const elector = new LeaderElector({
      kubeConfig: kubeConfig(),
      namespace: 'karmada-system',
      name: 'karmada-agent',
      log,
      gauge: makeLeaderGauge(registry),
    });
    expect(elector.isLeader()).toBe(false);
    const metric = await registry.getSingleMetricAsString(LEADER_GAUGE_NAME);
    expect(metric).toContain(`${LEADER_GAUGE_NAME} 0`);
  });

  it('refuses inconsistent timings', () => {
    expect(
      () =>
        new LeaderElector({
          kubeConfig: kubeConfig(),
          namespace: 'ns',
          name: 'n',
          log,
          leaseDurationMs: 5_000,
          renewDeadlineMs: 10_000,
        }),
    ).toThrow(RangeError);
  });

  it('returns at once when stopped before it started', async () => {
    const elector = new LeaderElector({ kubeConfig: kubeConfig(), namespace: 'ns', name: 'n', log });
    let led = false;
    await elector.run(AbortSignal.abort(), () => {
      led = true;
      return Promise.resolve();
    });
    expect(led).toBe(false);
  });
});

describe('defaultIdentity', () => {
  it('is unique per call and starts with the host name', () => {
    const a = defaultIdentity();
    expect(a).toMatch(/^.+_[0-9a-f]{8}$/);
    expect(defaultIdentity()).not.toBe(a);
  });
});

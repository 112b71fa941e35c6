import { describe, expect, it } from 'vitest';
import type { Cluster } from '@kf/api';
import type { Secret } from '../registration/credentials-plan.ts';
import { pushMemberAccess, pushSecretKey } from './push-access.ts';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const CA = b64('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');

const cluster = (spec: Partial<Cluster['spec']> = {}): Cluster => ({
  metadata: { name: 'member1' },
  spec: {
    syncMode: 'Push',
    apiEndpoint: 'https://10.0.0.1:6443/',
    secretRef: { namespace: 'karmada-cluster', name: 'member1' },
    ...spec,
  },
});
const secret = (data: Record<string, string>): Secret => ({
  metadata: { name: 'member1', namespace: 'karmada-cluster' },
  data,
});

describe('pushMemberAccess', () => {
  it('reaches the endpoint with the bearer token, verifying TLS against the caBundle', () => {
    const access = pushMemberAccess(cluster(), secret({ token: b64('t0ken\n'), caBundle: CA }));
    expect(access.kind).toBe('ready');
    if (access.kind !== 'ready') return;
    const kc = access.kubeConfig;
    expect(kc.getCurrentCluster()).toMatchObject({
      server: 'https://10.0.0.1:6443',
      skipTLSVerify: false,
      caData: CA,
    });
    expect(kc.getCurrentUser()?.token).toBe('t0ken');
  });

  it('skips verification only when the Cluster says so, and goes through its proxy', () => {
    const access = pushMemberAccess(
      cluster({ insecureSkipTLSVerification: true, proxyURL: 'http://proxy:3128' }),
      secret({ token: b64('t'), caBundle: CA }),
    );
    expect(access.kind === 'ready' && access.kubeConfig.getCurrentCluster()).toMatchObject({
      skipTLSVerify: true,
      proxyUrl: 'http://proxy:3128',
    });
    expect(access.kind === 'ready' && access.kubeConfig.getCurrentCluster()?.caData).toBeUndefined();
  });

  it('falls back on the system roots without a caBundle, still verifying', () => {
    const access = pushMemberAccess(cluster(), secret({ token: b64('t') }));
    expect(access.kind === 'ready' && access.kubeConfig.getCurrentCluster()).toMatchObject({
      skipTLSVerify: false,
    });
    expect(access.kind === 'ready' && access.kubeConfig.getCurrentCluster()?.caData).toBeUndefined();
  });

  it.each<[string, Cluster, Secret | undefined, string]>([
    [
      'no endpoint',
      cluster({ apiEndpoint: '' }),
      secret({ token: b64('t') }),
      'cluster member1 has no spec.apiEndpoint',
    ],
    [
      'an endpoint that is no URL',
      cluster({ apiEndpoint: '10.0.0.1:6443' }),
      secret({ token: b64('t') }),
      'cluster member1: spec.apiEndpoint 10.0.0.1:6443 is not an http(s) URL',
    ],
    [
      'no secretRef',
      cluster({ secretRef: undefined as never }),
      secret({ token: b64('t') }),
      'cluster member1 has no spec.secretRef',
    ],
    ['a Secret not found', cluster(), undefined, 'cluster member1: Secret karmada-cluster/member1 not found'],
    [
      'a Secret without token',
      cluster(),
      secret({ caBundle: CA }),
      'cluster member1: Secret karmada-cluster/member1 has no token',
    ],
    [
      'proxy headers',
      cluster({ proxyHeader: { 'X-Auth': 'x' } }),
      secret({ token: b64('t') }),
      'cluster member1: spec.proxyHeader is not supported yet',
    ],
  ])('says what is missing: %s', (_name, c, s, problem) => {
    expect(pushMemberAccess(c, s)).toEqual({ kind: 'problem', problem });
  });
});

describe('pushSecretKey', () => {
  it('names the Secret of the Cluster, or nothing', () => {
    expect(pushSecretKey(cluster())).toBe('karmada-cluster/member1');
    expect(pushSecretKey(cluster({ secretRef: { namespace: '', name: 'x' } }))).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import type { Cluster } from '@kf/api';
import { decideRegistration, type RegistrationInput } from './registration-plan.ts';

const input: RegistrationInput = {
  name: 'member1',
  id: 'uid-1',
  apiEndpoint: 'https://10.0.0.1:6443',
  proxyURL: '',
  insecureSkipTLSVerification: false,
  provider: '',
  region: 'eu-west',
  zones: [],
};
const cluster = (name: string, spec: Partial<Cluster['spec']>): Cluster => ({
  metadata: { name, resourceVersion: '5' },
  spec: { syncMode: 'Pull', ...spec },
  status: { conditions: [] },
});

describe('decideRegistration', () => {
  it('creates a Pull cluster with the member id and flag fields', () => {
    expect(decideRegistration(undefined, [], input)).toEqual({
      kind: 'create',
      cluster: {
        apiVersion: 'cluster.karmada.io/v1alpha1',
        kind: 'Cluster',
        metadata: { name: 'member1' },
        spec: {
          syncMode: 'Pull',
          id: 'uid-1',
          apiEndpoint: 'https://10.0.0.1:6443',
          insecureSkipTLSVerification: false,
          region: 'eu-west',
        },
      },
    });
  });

  it('is unchanged when the stored spec already matches', () => {
    const existing = cluster('member1', {
      id: 'uid-1',
      apiEndpoint: 'https://10.0.0.1:6443',
      insecureSkipTLSVerification: false,
      region: 'eu-west',
    });
    expect(decideRegistration(existing, [existing], input).kind).toBe('unchanged');
  });

  it.each<[string, Partial<Cluster['spec']>, Partial<Cluster['spec']>]>([
    [
      'adopts a Cluster without id (e.g. made by an operator)',
      { syncMode: 'Push' },
      { syncMode: 'Pull', id: 'uid-1' },
    ],
    [
      'clears an apiEndpoint the flag no longer gives',
      { id: 'uid-1', apiEndpoint: 'https://old' },
      { id: 'uid-1' },
    ],
    [
      'keeps taints, resource models and a region it is not told to change',
      { id: 'uid-1', taints: [{ key: 'k', effect: 'NoSchedule' }], region: 'us' },
      { taints: [{ key: 'k', effect: 'NoSchedule' }], region: 'eu-west' },
    ],
  ])('updates: %s', (_name, stored, expected) => {
    const existing = cluster('member1', stored);
    const d = decideRegistration(existing, [existing], input);
    expect(d.kind).toBe('update');
    if (d.kind === 'update') {
      expect(d.cluster.spec).toMatchObject(expected);
      expect(d.cluster.metadata.resourceVersion).toBe('5');
      expect(d.cluster.status).toEqual({ conditions: [] });
    }
    if (d.kind === 'update' && stored.apiEndpoint === 'https://old') {
      expect(d.cluster.spec.apiEndpoint).toBe('https://10.0.0.1:6443');
    }
  });

  it('never clears provider, region or zones when their flags are empty', () => {
    const existing = cluster('member1', {
      id: 'uid-1',
      provider: 'aws',
      zones: ['a'],
      apiEndpoint: input.apiEndpoint,
      insecureSkipTLSVerification: false,
      region: 'eu-west',
    });
    expect(decideRegistration(existing, [], { ...input, region: '' }).kind).toBe('unchanged');
  });

  it('refuses a Cluster of the same name with another id', () => {
    const d = decideRegistration(cluster('member1', { id: 'uid-other' }), [], input);
    expect(d).toEqual({
      kind: 'refuse',
      reason: expect.stringMatching(/already registered with id uid-other/) as unknown,
    });
  });

  it('refuses when the member is already registered under another name', () => {
    const d = decideRegistration(undefined, [cluster('old-name', { id: 'uid-1' })], input);
    expect(d).toEqual({
      kind: 'refuse',
      reason: expect.stringMatching(/already registered as cluster old-name/) as unknown,
    });
  });

  describe('secret references', () => {
    const refs = {
      secretRef: { namespace: 'karmada-cluster', name: 'member1' },
      impersonatorSecretRef: { namespace: 'karmada-cluster', name: 'member1-impersonator' },
    };
    const registered = cluster('member1', {
      id: 'uid-1',
      apiEndpoint: input.apiEndpoint,
      insecureSkipTLSVerification: false,
      region: 'eu-west',
    });

    it('sets the references of the reported secrets on create', () => {
      const d = decideRegistration(undefined, [], { ...input, ...refs });
      expect(d.kind === 'create' ? d.cluster.spec : undefined).toMatchObject(refs);
    });

    it('adds them to a registered Cluster, then is unchanged', () => {
      const d = decideRegistration(registered, [registered], { ...input, ...refs });
      expect(d.kind).toBe('update');
      const updated = d.kind === 'update' ? d.cluster : registered;
      expect(updated.spec).toMatchObject(refs);
      expect(decideRegistration(updated, [updated], { ...input, ...refs }).kind).toBe('unchanged');
    });

    it.each([
      ['an operator pointed both elsewhere', { name: 'shared', namespace: 'kube-system' }],
      ['another cluster wrote its own names', { name: 'member2', namespace: 'karmada-cluster' }],
    ])('keeps references already set (%s): never changes them', (_name, elsewhere) => {
      const existing = cluster('member1', {
        ...registered.spec,
        secretRef: elsewhere,
        impersonatorSecretRef: elsewhere,
      });
      expect(decideRegistration(existing, [existing], { ...input, ...refs }).kind).toBe('unchanged');
      const d = decideRegistration(existing, [existing], { ...input, ...refs, region: 'us' });
      expect(d.kind === 'update' ? d.cluster.spec : undefined).toMatchObject({
        region: 'us',
        secretRef: elsewhere,
        impersonatorSecretRef: elsewhere,
      });
    });

    it.each([
      ['secretRef', { secretRef: { namespace: 'kube-system', name: 'member1' } }],
      [
        'impersonatorSecretRef',
        { impersonatorSecretRef: { namespace: 'kube-system', name: 'member1-impersonator' } },
      ],
    ])('refuses a reported %s outside karmada-cluster, before anything else', (_name, outside) => {
      for (const existing of [undefined, registered, cluster('member1', { id: 'uid-other' })]) {
        expect(decideRegistration(existing, [], { ...input, ...outside })).toEqual({
          kind: 'refuse',
          reason: expect.stringMatching(
            /--cluster-namespace=kube-system with --report-secrets: .* only in karmada-cluster/,
          ) as unknown,
        });
      }
    });

    it('never clears references when the secrets are no longer reported', () => {
      const withRefs = cluster('member1', { ...registered.spec, ...refs });
      expect(decideRegistration(withRefs, [withRefs], input).kind).toBe('unchanged');
      const d = decideRegistration(withRefs, [withRefs], { ...input, secretRef: refs.secretRef });
      expect(d.kind).toBe('unchanged');
    });
  });
});

describe('decideRegistration in Push mode (controlplane join)', () => {
  const push: RegistrationInput = {
    ...input,
    syncMode: 'Push',
    secretRef: { namespace: 'karmada-cluster', name: 'member1' },
  };

  it('creates a Push cluster that points at its credential Secret', () => {
    const decision = decideRegistration(undefined, [], push);
    expect(decision.kind).toBe('create');
    expect(decision.kind === 'create' && decision.cluster.spec).toEqual({
      syncMode: 'Push',
      id: 'uid-1',
      apiEndpoint: 'https://10.0.0.1:6443',
      insecureSkipTLSVerification: false,
      region: 'eu-west',
      secretRef: { namespace: 'karmada-cluster', name: 'member1' },
    });
  });

  it('refuses a name a Pull cluster holds, even with the same id', () => {
    const pulled = cluster('member1', { syncMode: 'Pull', id: 'uid-1' });
    expect(decideRegistration(pulled, [pulled], push)).toEqual({
      kind: 'refuse',
      reason:
        'cluster member1 is registered in Pull mode (its agent reports it); remove that agent and its Cluster first, or join under another name',
    });
  });

  it('joins again over its own Push cluster, keeping taints and status', () => {
    const joined = cluster('member1', {
      syncMode: 'Push',
      id: 'uid-1',
      apiEndpoint: 'https://old:6443',
      secretRef: { namespace: 'karmada-cluster', name: 'member1' },
      taints: [{ key: 'k', effect: 'NoSchedule' }],
    });
    const decision = decideRegistration(joined, [joined], push);
    expect(decision.kind).toBe('update');
    expect(decision.kind === 'update' && decision.cluster.spec.apiEndpoint).toBe('https://10.0.0.1:6443');
    expect(decision.kind === 'update' && decision.cluster.spec.taints).toEqual([
      { key: 'k', effect: 'NoSchedule' },
    ]);
    expect(decision.kind === 'update' && decision.cluster.status).toEqual(joined.status);
  });

  it.each<[string, Cluster | undefined, Cluster[], RegExp]>([
    [
      'another member holds the name',
      cluster('member1', { syncMode: 'Push', id: 'uid-9' }),
      [],
      /already registered with id uid-9/,
    ],
    [
      'this member is joined under another name',
      undefined,
      [cluster('other', { syncMode: 'Push', id: 'uid-1' })],
      /already registered as cluster other/,
    ],
  ])('refuses when %s', (_name, existing, others, reason) => {
    const decision = decideRegistration(
      existing,
      existing === undefined ? others : [existing, ...others],
      push,
    );
    expect(decision.kind === 'refuse' && decision.reason).toMatch(reason);
  });
});

import { describe, expect, it } from 'vitest';
import type { Cluster } from '@kf/api';
import {
  controlPlaneSecrets,
  credentialObjectsToRemove,
  filledToken,
  memberCredentialSteps,
  tokenSecret,
  type Secret,
} from './credentials-plan.ts';
import { credentialNames } from './credential-names.ts';

const names = credentialNames('member1', 'karmada-cluster');
const kinds = (credentials: boolean, impersonator: boolean): string[] =>
  memberCredentialSteps(names, { credentials, impersonator }).map(
    (s) => `${s.object.kind ?? ''}/${s.object.metadata.name ?? ''}`,
  );

describe('memberCredentialSteps', () => {
  it.each<[boolean, boolean, string[]]>([
    [
      true,
      true,
      [
        'Namespace/karmada-cluster',
        'ServiceAccount/karmada-impersonator',
        'ServiceAccount/karmada-member1',
        'ClusterRole/karmada-controller-manager:karmada-member1',
        'ClusterRoleBinding/karmada-controller-manager:karmada-member1',
      ],
    ],
    [
      true,
      false,
      [
        'Namespace/karmada-cluster',
        'ServiceAccount/karmada-member1',
        'ClusterRole/karmada-controller-manager:karmada-member1',
        'ClusterRoleBinding/karmada-controller-manager:karmada-member1',
      ],
    ],
    [false, true, ['Namespace/karmada-cluster', 'ServiceAccount/karmada-impersonator']],
    [false, false, []],
  ])('credentials=%s impersonator=%s: %j', (credentials, impersonator, expected) => {
    expect(kinds(credentials, impersonator)).toEqual(expected);
  });

  it('grants the role the rules it is given (a Push join grants the member-access rules)', () => {
    const rules = [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'patch'] }];
    const steps = memberCredentialSteps(names, { credentials: true, impersonator: false }, rules);
    expect(steps.find((s) => s.object.kind === 'ClusterRole')?.object).toMatchObject({ rules });
  });

  it('grants the credentials ServiceAccount every verb on every resource and get on every URL', () => {
    const steps = memberCredentialSteps(names, { credentials: true, impersonator: false });
    const role = steps.find((s) => s.object.kind === 'ClusterRole')?.object;
    expect(role).toMatchObject({
      rules: [
        { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
        { nonResourceURLs: ['*'], verbs: ['get'] },
      ],
    });
    const binding = steps.find((s) => s.object.kind === 'ClusterRoleBinding')?.object;
    expect(binding).toMatchObject({
      roleRef: { kind: 'ClusterRole', name: 'karmada-controller-manager:karmada-member1' },
      subjects: [{ kind: 'ServiceAccount', name: 'karmada-member1', namespace: 'karmada-cluster' }],
    });
    for (const s of steps) expect(s.object.metadata.labels).toEqual({ 'karmada.io/system': 'true' });
    const sa = steps.find((s) => s.object.kind === 'ServiceAccount');
    expect(sa?.object.metadata.namespace).toBe('karmada-cluster');
    expect(sa?.resource).toMatchObject({ plural: 'serviceaccounts', namespaced: true });
  });
});

describe('token secrets', () => {
  it('asks the token controller for a legacy token of the ServiceAccount', () => {
    expect(tokenSecret('karmada-member1', 'karmada-cluster')).toMatchObject({
      type: 'kubernetes.io/service-account-token',
      metadata: {
        name: 'karmada-member1',
        namespace: 'karmada-cluster',
        annotations: { 'kubernetes.io/service-account.name': 'karmada-member1' },
      },
    });
  });

  it.each<[string, Secret | undefined, ReturnType<typeof filledToken>]>([
    ['missing', undefined, undefined],
    ['not filled yet', tokenSecret('sa', 'ns'), undefined],
    ['empty token', { ...tokenSecret('sa', 'ns'), data: { token: '' } }, undefined],
    [
      'filled',
      { ...tokenSecret('sa', 'ns'), data: { token: 'dG9r', 'ca.crt': 'Y2E=' } },
      { token: 'dG9r', caCrt: 'Y2E=' },
    ],
    [
      'filled without CA',
      { ...tokenSecret('sa', 'ns'), data: { token: 'dG9r' } },
      { token: 'dG9r', caCrt: '' },
    ],
  ])('filledToken: %s', (_name, secret, expected) => {
    expect(filledToken(secret)).toEqual(expected);
  });
});

describe('controlPlaneSecrets', () => {
  const owner: Cluster = { metadata: { name: 'member1', uid: 'uid-c' }, spec: { syncMode: 'Pull' } };
  const credentials = { token: 'dG9rLWM=', caCrt: 'Y2E=' };
  const impersonator = { token: 'dG9rLWk=', caCrt: 'Y2E=' };

  it('copies the member tokens and CA under upstream keys, owned by the Cluster', () => {
    const secrets = controlPlaneSecrets(names, { credentials, impersonator }, owner);
    expect(secrets.map((s) => [s.metadata.namespace, s.metadata.name, s.data])).toEqual([
      ['karmada-cluster', 'member1-impersonator', { token: 'dG9rLWk=' }],
      ['karmada-cluster', 'member1', { token: 'dG9rLWM=', caBundle: 'Y2E=' }],
    ]);
    for (const s of secrets) {
      expect(s.metadata.labels).toEqual({ 'karmada.io/system': 'true' });
      expect(s.metadata.ownerReferences).toEqual([
        {
          apiVersion: 'cluster.karmada.io/v1alpha1',
          kind: 'Cluster',
          name: 'member1',
          uid: 'uid-c',
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    }
  });

  it('creates only the secrets whose token is reported', () => {
    expect(controlPlaneSecrets(names, { impersonator }, owner).map((s) => s.metadata.name)).toEqual([
      'member1-impersonator',
    ]);
    expect(controlPlaneSecrets(names, {}, owner)).toEqual([]);
  });
});

describe('credentialObjectsToRemove', () => {
  it('takes the binding and the role first, then the token and its ServiceAccount, never the namespace', () => {
    expect(credentialObjectsToRemove(names).map((o) => `${o.resource.kind ?? ''}/${o.key}`)).toEqual([
      'ClusterRoleBinding/karmada-controller-manager:karmada-member1',
      'ClusterRole/karmada-controller-manager:karmada-member1',
      'Secret/karmada-cluster/karmada-member1',
      'ServiceAccount/karmada-cluster/karmada-member1',
    ]);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { annotations, labels, type PropagationPolicy, type ResourceSelector } from '@kf/api';
import type { ResourceTemplate } from '../template.ts';
import {
  choosePolicy,
  candidatePolicies,
  policyConcerns,
  policySelects,
  selectorIndexKeys,
  selectorPriority,
  type PolicyChoice,
  type PolicyIndex,
  type PolicyScope,
} from './policy-match.ts';

const web: ResourceTemplate = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
};
const sel = (extra: Partial<ResourceSelector> = {}): ResourceSelector => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  ...extra,
});

const policy = (
  name: string,
  selectors: readonly ResourceSelector[],
  extra: { namespace?: string; priority?: number; deleting?: boolean } = {},
): PropagationPolicy => ({
  metadata: {
    name,
    ...(extra.namespace === undefined ? {} : { namespace: extra.namespace }),
    uid: `uid-${name}`,
    ...(extra.deleting === true ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
  },
  spec: {
    resourceSelectors: selectors,
    ...(extra.priority === undefined ? {} : { priority: extra.priority }),
  },
});

function index(pps: readonly PropagationPolicy[], cpps: readonly PropagationPolicy[] = []): PolicyIndex {
  return {
    propagationPolicy: (key) => pps.find((p) => `${p.metadata.namespace}/${p.metadata.name}` === key),
    clusterPropagationPolicy: (name) => cpps.find((p) => p.metadata.name === name),
    propagationPoliciesFor: (t) => pps.filter((p) => p.metadata.namespace === t.metadata.namespace),
    clusterPropagationPoliciesFor: () => cpps,
  };
}

describe('selectorPriority', () => {
  it.each([
    ['name match', sel({ name: 'web' }), 3],
    [
      'name mismatch ignores the label selector',
      sel({ name: 'api', labelSelector: { matchLabels: { app: 'web' } } }),
      0,
    ],
    ['label selector match', sel({ labelSelector: { matchLabels: { app: 'web' } } }), 2],
    ['label selector mismatch', sel({ labelSelector: { matchLabels: { app: 'api' } } }), 0],
    ['match all', sel(), 1],
    ['other namespace', sel({ namespace: 'prod' }), 0],
    ['other kind', { apiVersion: 'v1', kind: 'ConfigMap' }, 0],
  ] as const)('%s → %d', (_n, s, expected) => {
    expect(selectorPriority(s, web)).toBe(expected);
  });
});

describe('choosePolicy', () => {
  /** The chosen policy's name, or the kind of the choice when none applies. */
  const chosen = (pps: readonly PropagationPolicy[]): string | undefined => {
    const c = choosePolicy(web, index(pps));
    return c.kind === 'Apply' ? c.policy.metadata.name : c.kind;
  };

  it.each([
    [
      'explicit priority wins over implicit',
      [
        policy('a', [sel({ name: 'web' })], { namespace: 'default' }),
        policy('b', [sel()], { namespace: 'default', priority: 5 }),
      ],
      'b',
    ],
    [
      'implicit priority breaks explicit ties',
      [
        policy('a', [sel()], { namespace: 'default' }),
        policy('b', [sel({ name: 'web' })], { namespace: 'default' }),
      ],
      'b',
    ],
    [
      'the smaller name breaks full ties',
      [policy('b', [sel()], { namespace: 'default' }), policy('a', [sel()], { namespace: 'default' })],
      'a',
    ],
    [
      'deleting policies are ignored',
      [
        policy('a', [sel()], { namespace: 'default', deleting: true }),
        policy('b', [sel()], { namespace: 'default' }),
      ],
      'b',
    ],
    ['policies of other namespaces are ignored', [policy('a', [sel()], { namespace: 'prod' })], 'None'],
  ] as const)('%s', (_n, pps, expected) => {
    expect(chosen(pps)).toBe(expected);
  });

  it('falls back to a ClusterPropagationPolicy', () => {
    const c = choosePolicy(web, index([], [policy('global', [sel()])]));
    expect(c).toMatchObject({ kind: 'Apply', scope: 'Cluster', policy: { metadata: { name: 'global' } } });
  });

  const claimed: ResourceTemplate = {
    ...web,
    metadata: {
      ...web.metadata,
      labels: { ...web.metadata.labels, [labels.propagationPolicyPermanentId]: 'uid-z' },
      annotations: {
        [annotations.propagationPolicyNamespace]: 'default',
        [annotations.propagationPolicyName]: 'z',
      },
    },
  };

  it('keeps the claiming policy even when a better one appears', () => {
    const pps = [
      policy('z', [sel()], { namespace: 'default' }),
      policy('a', [sel({ name: 'web' })], { namespace: 'default', priority: 9 }),
    ];
    expect(choosePolicy(claimed, index(pps))).toMatchObject({
      kind: 'Apply',
      policy: { metadata: { name: 'z' } },
    });
  });

  it.each([
    [
      'waits while the claiming policy is deleted',
      [policy('z', [sel()], { namespace: 'default', deleting: true })],
      'Wait',
    ],
    [
      'keeps the binding when the claiming policy stops selecting',
      [policy('z', [sel({ name: 'api' })], { namespace: 'default' })],
      'Keep',
    ],
    [
      'chooses afresh when the claiming policy is gone',
      [policy('a', [sel()], { namespace: 'default' })],
      'Apply',
    ],
  ] as const)('%s', (_n, pps, kind) => {
    expect(choosePolicy(claimed, index(pps)).kind).toBe(kind);
  });
});

describe('policyConcerns', () => {
  /** `t` as the policy `name` (of `scope`, in `default` when namespaced) has claimed it. */
  const claimedBy = (t: ResourceTemplate, scope: PolicyScope, name: string): ResourceTemplate => ({
    ...t,
    metadata: {
      ...t.metadata,
      labels: {
        ...t.metadata.labels,
        [scope === 'Namespaced'
          ? labels.propagationPolicyPermanentId
          : labels.clusterPropagationPolicyPermanentId]: `uid-${name}`,
      },
      annotations:
        scope === 'Namespaced'
          ? {
              [annotations.propagationPolicyNamespace]: 'default',
              [annotations.propagationPolicyName]: name,
            }
          : { [annotations.clusterPropagationPolicyName]: name },
    },
  });
  const db: ResourceTemplate = { ...web, metadata: { ...web.metadata, name: 'db', labels: { app: 'db' } } };
  const namespaced = (p: PropagationPolicy) => ({ scope: 'Namespaced' as const, policy: p });

  it.each<[string, PropagationPolicy, ResourceTemplate, boolean]>([
    ['a policy that selects the template', policy('a', [sel()], { namespace: 'default' }), web, true],
    [
      'a policy whose labels do not match',
      policy('a', [sel({ labelSelector: { matchLabels: { app: 'db' } } })], { namespace: 'default' }),
      web,
      false,
    ],
    ['a policy of another namespace', policy('a', [sel()], { namespace: 'other' }), web, false],
    [
      'the claiming policy that no longer selects it',
      policy('a', [sel({ name: 'api' })], { namespace: 'default' }),
      claimedBy(web, 'Namespaced', 'a'),
      true,
    ],
    [
      'a policy of the same name in another namespace',
      policy('a', [sel({ name: 'api' })], { namespace: 'other' }),
      claimedBy(web, 'Namespaced', 'a'),
      false,
    ],
  ])('%s', (_n, p, t, expected) => {
    expect(policyConcerns(namespaced(p), t)).toBe(expected);
  });

  it('tells the claims of both scopes apart', () => {
    const cpp = policy('a', [sel({ name: 'api' })]);
    expect(policyConcerns({ scope: 'Cluster', policy: cpp }, claimedBy(web, 'Cluster', 'a'))).toBe(true);
    expect(policyConcerns({ scope: 'Cluster', policy: cpp }, claimedBy(web, 'Namespaced', 'a'))).toBe(false);
  });

  // Every change of policy `a` (added, edited, deleted) over templates claimed by nobody, by `a`
  // or by `b`: wherever the choice for a template changes, `a` before or after concerns it.
  const versions: readonly (PropagationPolicy | undefined)[] = [
    undefined,
    policy('a', [sel()], { namespace: 'default' }),
    policy('a', [sel({ labelSelector: { matchLabels: { app: 'web' } } })], { namespace: 'default' }),
    policy('a', [sel({ labelSelector: { matchLabels: { app: 'db' } } })], { namespace: 'default' }),
    policy('a', [sel({ name: 'web' })], { namespace: 'default' }),
    policy('a', [sel()], { namespace: 'default', priority: 5 }),
    policy('a', [sel()], { namespace: 'default', deleting: true }),
    policy('a', [sel({ kind: 'StatefulSet' })], { namespace: 'default' }),
  ];
  const b = policy('b', [sel({ labelSelector: { matchLabels: { app: 'web' } } })], { namespace: 'default' });
  const templates = [web, db].flatMap((t) => [
    t,
    claimedBy(t, 'Namespaced', 'a'),
    claimedBy(t, 'Namespaced', 'b'),
  ]);
  const outcome = (c: PolicyChoice): string =>
    c.kind === 'Apply' ? `Apply ${c.policy.metadata.name ?? ''}` : c.kind;
  const pairs = versions.flatMap((before, i) => versions.map((after, j) => [i, j, before, after] as const));

  it.each(pairs)('version %i to %i', (_i, _j, before, after) => {
    const with_ = (a: PropagationPolicy | undefined) => index(a === undefined ? [b] : [a, b]);
    for (const t of templates) {
      const changed = outcome(choosePolicy(t, with_(before))) !== outcome(choosePolicy(t, with_(after)));
      const concerned = [before, after].some((a) => a !== undefined && policyConcerns(namespaced(a), t));
      if (changed)
        expect(concerned, `${t.metadata.name ?? ''} ${JSON.stringify(t.metadata.annotations)}`).toBe(true);
    }
  });
});

describe('the policy index keys', () => {
  const names = ['web', 'api'];
  const labelArb = fc.dictionary(
    fc.constantFrom('app', 'tier', 'env'),
    fc.constantFrom('web', 'api', 'gold'),
    {
      maxKeys: 3,
    },
  );
  const selectorArb = fc.record(
    {
      apiVersion: fc.constantFrom('apps/v1', 'v1'),
      kind: fc.constantFrom('Deployment', 'ConfigMap'),
      name: fc.constantFrom('', ...names),
      namespace: fc.constantFrom('', 'default', 'prod'),
      labelSelector: fc.record(
        {
          matchLabels: labelArb,
          matchExpressions: fc.constant([{ key: 'env', operator: 'NotIn' as const, values: ['gold'] }]),
        },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: ['apiVersion', 'kind'] },
  );
  const templateArb = fc.record({
    apiVersion: fc.constantFrom('apps/v1', 'v1'),
    kind: fc.constantFrom('Deployment', 'ConfigMap'),
    name: fc.constantFrom(...names),
    namespace: fc.constantFrom('default', 'prod'),
    labels: labelArb,
  });

  /** An index of `policies` by their keys, as the policy caches keep it (a policy once per key). */
  const indexOf = (policies: readonly PropagationPolicy[]) => {
    const byKey = new Map<string, Set<PropagationPolicy>>();
    for (const p of policies) {
      for (const key of selectorIndexKeys(p)) byKey.set(key, (byKey.get(key) ?? new Set()).add(p));
    }
    return (key: string): readonly PropagationPolicy[] => [...(byKey.get(key) ?? [])];
  };

  it('find every policy that selects a template', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(selectorArb, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }),
        templateArb,
        fc.constantFrom<[PolicyScope, string | undefined]>(
          ['Namespaced', 'default'],
          ['Namespaced', 'prod'],
          ['Cluster', undefined],
        ),
        (selectorLists, tt, [scope, namespace]) => {
          const policies = selectorLists.map((selectors, i) =>
            policy(`p${i}`, selectors, namespace === undefined ? {} : { namespace }),
          );
          const t: ResourceTemplate = {
            apiVersion: tt.apiVersion,
            kind: tt.kind,
            metadata: { name: tt.name, namespace: tt.namespace, labels: tt.labels },
          };
          const found = candidatePolicies(t, scope === 'Namespaced' ? tt.namespace : '', indexOf(policies));
          const selecting = policies.filter((p) => policySelects({ scope, policy: p }, t));
          expect(found).toEqual(expect.arrayContaining(selecting));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('leave out policies whose labels the template lacks, however many share one it has', () => {
    const policies = Array.from({ length: 50 }, (_, i) =>
      policy(`p${i}`, [sel({ labelSelector: { matchLabels: { app: 'web', pair: String(i) } } })], {
        namespace: 'default',
      }),
    );
    const t: ResourceTemplate = { ...web, metadata: { ...web.metadata, labels: { app: 'web', pair: '7' } } };
    expect(candidatePolicies(t, 'default', indexOf(policies)).map((p) => p.metadata.name)).toEqual(['p7']);
    expect(candidatePolicies(t, 'prod', indexOf(policies))).toEqual([]);
  });

  it('find a policy by name and one selecting every template of the type', () => {
    const byName = policy('by-name', [sel({ name: 'web', labelSelector: { matchLabels: { no: 'such' } } })], {
      namespace: 'default',
    });
    const all = policy('all', [sel()], { namespace: 'default' });
    const other = policy('other', [sel({ name: 'api' })], { namespace: 'default' });
    const found = candidatePolicies(web, 'default', indexOf([byName, all, other]));
    expect(found.map((p) => p.metadata.name).sort()).toEqual(['all', 'by-name']);
  });
});

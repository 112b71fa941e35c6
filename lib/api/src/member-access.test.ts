import { describe, expect, it } from 'vitest';
import {
  DEFAULT_WORKLOAD_RULES,
  MEMBER_STATUS_RULES,
  workloadRuleProblems,
  type PolicyRule,
} from './member-access.ts';

describe('member access', () => {
  it('grants nothing that changes who may do what', () => {
    expect(workloadRuleProblems(DEFAULT_WORKLOAD_RULES)).toEqual([]);
    for (const rule of [...MEMBER_STATUS_RULES, ...DEFAULT_WORKLOAD_RULES]) {
      expect(rule.verbs.filter((v) => ['bind', 'escalate', 'impersonate', '*'].includes(v))).toEqual([]);
      expect(rule.apiGroups ?? []).not.toContain('rbac.authorization.k8s.io');
      expect((rule.resources ?? []).filter((r) => r.includes('*'))).toEqual([]);
    }
  });

  it.each<[string, PolicyRule, string[]]>([
    ['a plain rule', { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'patch'] }, []],
    [
      'a wildcard group',
      { apiGroups: ['*'], resources: ['deployments'], verbs: ['get'] },
      ['rule 1: no wildcard in apiGroups'],
    ],
    [
      'a wildcard resource',
      { apiGroups: [''], resources: ['pods/*'], verbs: ['get'] },
      ['rule 1: no wildcard in resources'],
    ],
    [
      'a wildcard verb',
      { apiGroups: [''], resources: ['pods'], verbs: ['*'] },
      ['rule 1: no wildcard in verbs'],
    ],
    [
      'escalating verbs',
      { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate', 'bind'] },
      ['rule 1: the verb bind is never granted', 'rule 1: the verb impersonate is never granted'],
    ],
    [
      'RBAC objects',
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['get'] },
      ['rule 1: RBAC objects are not workload kinds'],
    ],
    [
      'non-resource URLs',
      { nonResourceURLs: ['/metrics'], verbs: ['get'] },
      ['rule 1: resources must not be empty', 'rule 1: nonResourceURLs are not workload kinds'],
    ],
    ['no verbs', { apiGroups: [''], resources: ['pods'], verbs: [] }, ['rule 1: verbs must not be empty']],
  ])('%s', (_name, rule, problems) => {
    expect(workloadRuleProblems([rule])).toEqual(problems);
  });

  it('numbers the rule each problem is in', () => {
    const ok: PolicyRule = { apiGroups: [''], resources: ['pods'], verbs: ['get'] };
    expect(workloadRuleProblems([ok, { ...ok, verbs: ['*'] }])).toEqual(['rule 2: no wildcard in verbs']);
  });
});

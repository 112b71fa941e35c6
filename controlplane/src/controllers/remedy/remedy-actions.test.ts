import { describe, expect, it } from 'vitest';
import type { Cluster, ClusterCondition, DecisionMatch, Remedy, RemedySpec } from '@kf/api';
import { areDecisionMatchesMet, decideRemedyActions, isRemedyForCluster } from './remedy-actions.ts';

const dns = (status: 'True' | 'False' | 'Unknown'): ClusterCondition => ({
  type: 'ServiceDomainNameResolutionReady',
  status,
});
const dnsIs = (status: string, operator: 'Equal' | 'NotEqual' = 'Equal'): DecisionMatch => ({
  clusterConditionMatch: {
    conditionType: 'ServiceDomainNameResolutionReady',
    operator,
    conditionStatus: status,
  },
});
const remedy = (name: string, spec: RemedySpec): Remedy => ({ metadata: { name }, spec });
const cluster = (name: string, conditions?: ClusterCondition[]): Cluster => ({
  metadata: { name },
  spec: { syncMode: 'Pull' },
  ...(conditions === undefined ? {} : { status: { conditions } }),
});

describe('isRemedyForCluster', () => {
  it.each<[string, RemedySpec, boolean]>([
    ['no affinity: every cluster', {}, true],
    ['named', { clusterAffinity: { clusterNames: ['m0', 'm1'] } }, true],
    ['not named', { clusterAffinity: { clusterNames: ['m0'] } }, false],
    ['affinity with an empty list: no cluster', { clusterAffinity: { clusterNames: [] } }, false],
    ['affinity without a list: no cluster', { clusterAffinity: {} }, false],
  ])('%s', (_name, spec, expected) => {
    expect(isRemedyForCluster(remedy('r', spec), 'm1')).toBe(expected);
  });
});

describe('areDecisionMatchesMet', () => {
  it.each<[string, ClusterCondition[], DecisionMatch[] | undefined, boolean]>([
    ['absent: at once', [], undefined, true],
    ['differs from upstream: explicit empty list acts at once too', [], [], true],
    ['Equal holds', [dns('False')], [dnsIs('False')], true],
    ['Equal does not hold', [dns('True')], [dnsIs('False')], false],
    ['NotEqual holds', [dns('Unknown')], [dnsIs('True', 'NotEqual')], true],
    ['NotEqual does not hold', [dns('True')], [dnsIs('True', 'NotEqual')], false],
    ['a missing condition never holds, even NotEqual', [], [dnsIs('True', 'NotEqual')], false],
    ['any one of several is enough', [dns('Unknown')], [dnsIs('False'), dnsIs('Unknown')], true],
    ['a match without clusterConditionMatch is skipped', [dns('False')], [{}], false],
    [
      'a match without clusterConditionMatch does not hide the others',
      [dns('False')],
      [{}, dnsIs('False')],
      true,
    ],
    [
      'an unknown operator never holds',
      [dns('False')],
      [
        {
          clusterConditionMatch: {
            conditionType: 'ServiceDomainNameResolutionReady',
            operator: 'In' as 'Equal',
            conditionStatus: 'False',
          },
        },
      ],
      false,
    ],
    ['status comparison is exact', [dns('False')], [dnsIs('false')], false],
  ])('%s', (_name, conditions, matches, expected) => {
    expect(areDecisionMatchesMet(conditions, matches)).toBe(expected);
  });
});

describe('decideRemedyActions', () => {
  const onDnsFailure = remedy('dns', {
    clusterAffinity: { clusterNames: ['m1'] },
    decisionMatches: [dnsIs('False')],
    actions: ['TrafficControl'],
  });
  const always = remedy('always', { actions: ['TrafficControl'] });
  const other = remedy('other', {
    decisionMatches: [dnsIs('False')],
    actions: ['Zeta' as 'TrafficControl', 'Alpha' as 'TrafficControl'],
  });
  const noActions = remedy('none', {});

  it.each<[string, Cluster, Remedy[], string[]]>([
    ['no remedies: nothing', cluster('m1', [dns('False')]), [], []],
    ['a matching remedy for the cluster', cluster('m1', [dns('False')]), [onDnsFailure], ['TrafficControl']],
    ['conditions cleared: nothing (removes the field)', cluster('m1', [dns('True')]), [onDnsFailure], []],
    ['another cluster: not named', cluster('m2', [dns('False')]), [onDnsFailure], []],
    ['a cluster without status with an unconditional remedy', cluster('m2'), [always], ['TrafficControl']],
    ['a cluster without status with a conditional remedy', cluster('m1'), [onDnsFailure], []],
    [
      'deduplicated and sorted',
      cluster('m1', [dns('False')]),
      [always, onDnsFailure, other, noActions],
      ['Alpha', 'TrafficControl', 'Zeta'],
    ],
  ])('%s', (_name, c, remedies, expected) => {
    expect(decideRemedyActions(c, remedies)).toEqual(expected);
  });

  it('does not depend on the order of remedies', () => {
    const c = cluster('m1', [dns('False')]);
    expect(decideRemedyActions(c, [other, always, onDnsFailure])).toEqual(
      decideRemedyActions(c, [onDnsFailure, always, other]),
    );
  });
});

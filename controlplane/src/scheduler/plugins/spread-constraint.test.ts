import type { SpreadConstraint } from '@kf/api';
import { describe, expect, it } from 'vitest';
import { attemptFor, binding, cluster } from '../test-builders.ts';
import { spreadConstraint } from './spread-constraint.ts';

const full = cluster('full', { provider: 'aws', region: 'r', zones: ['z'] });
const bare = cluster('bare');

describe('SpreadConstraint', () => {
  it.each<[string, readonly SpreadConstraint[], string | undefined]>([
    ['no constraints', [], undefined],
    ['cluster needs nothing', [{ spreadByField: 'cluster', maxGroups: 2 }], undefined],
    ['default field (cluster) needs nothing', [{ maxGroups: 2 }], undefined],
    ['label constraints need nothing here', [{ spreadByLabel: 'team' }], undefined],
    ['provider', [{ spreadByField: 'provider' }], 'cluster(s) did not have provider property'],
    [
      'region',
      [{ spreadByField: 'cluster' }, { spreadByField: 'region' }],
      'cluster(s) did not have region property',
    ],
    ['zone', [{ spreadByField: 'zone' }], 'cluster(s) did not have zones property'],
    [
      'the first missing property is reported',
      [{ spreadByField: 'zone' }, { spreadByField: 'provider' }],
      'cluster(s) did not have zones property',
    ],
  ])('%s', (_name, constraints, reason) => {
    const a = attemptFor(binding({ placement: { spreadConstraints: constraints } }));
    expect(spreadConstraint.filter(a, full)).toEqual({ ok: true });
    expect(spreadConstraint.filter(a, bare)).toEqual(
      reason === undefined ? { ok: true } : { ok: false, reason },
    );
  });
});

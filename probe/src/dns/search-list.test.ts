import { describe, expect, it } from 'vitest';
import { candidateNames, isValidDnsName } from './search-list.ts';

const POD = { search: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'], ndots: 5 };

describe('candidateNames', () => {
  it.each<[string, string, { search: string[]; ndots: number }, string[]]>([
    [
      'in a pod, kubernetes.default goes through the search list first',
      'kubernetes.default',
      POD,
      [
        'kubernetes.default.default.svc.cluster.local',
        'kubernetes.default.svc.cluster.local',
        'kubernetes.default.cluster.local',
        'kubernetes.default',
      ],
    ],
    [
      'a trailing dot makes the name absolute',
      'kubernetes.default.svc.cluster.local.',
      POD,
      ['kubernetes.default.svc.cluster.local'],
    ],
    ['several trailing dots still mean one absolute name', 'a.b..', POD, ['a.b']],
    [
      'a name with ndots dots is tried as written first',
      'a.b.c.d.e.f',
      POD,
      [
        'a.b.c.d.e.f',
        'a.b.c.d.e.f.default.svc.cluster.local',
        'a.b.c.d.e.f.svc.cluster.local',
        'a.b.c.d.e.f.cluster.local',
      ],
    ],
    [
      'with ndots 1 a dotted name goes first',
      'kubernetes.default',
      { search: ['svc.cluster.local'], ndots: 1 },
      ['kubernetes.default', 'kubernetes.default.svc.cluster.local'],
    ],
    [
      'with ndots 1 a single label searches first',
      'kubernetes',
      { search: ['svc.cluster.local'], ndots: 1 },
      ['kubernetes.svc.cluster.local', 'kubernetes'],
    ],
    [
      'ndots 0 tries every name as written first',
      'kubernetes',
      { search: ['a.b'], ndots: 0 },
      ['kubernetes', 'kubernetes.a.b'],
    ],
    ['no search list: just the name', 'kubernetes.default', { search: [], ndots: 5 }, ['kubernetes.default']],
    [
      'lower-cases names and domains',
      'Kubernetes.Default',
      { search: ['SVC.Cluster.Local'], ndots: 5 },
      ['kubernetes.default.svc.cluster.local', 'kubernetes.default'],
    ],
    ['drops duplicates keeping the first', 'a', { search: ['b', 'b'], ndots: 1 }, ['a.b', 'a']],
  ])('%s', (_name, name, conf, expected) => {
    expect(candidateNames(name, conf)).toEqual(expected);
  });
});

describe('isValidDnsName', () => {
  it.each([
    ['kubernetes.default', true],
    ['kubernetes.default.svc.cluster.local.', true],
    ['_dns._udp.example', true],
    ['a', true],
    ['', false],
    ['.', false],
    ['a..b', false],
    ['-a.b', false],
    ['a-.b', false],
    ['a b', false],
    [`${'a'.repeat(63)}.b`, true],
    [`${'a'.repeat(64)}.b`, false],
    [Array.from({ length: 127 }, () => 'a').join('.'), true],
    [Array.from({ length: 128 }, () => 'a').join('.'), false],
  ])('%j → %s', (name, ok) => {
    expect(isValidDnsName(name)).toBe(ok);
  });
});

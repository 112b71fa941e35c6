import { describe, expect, it } from 'vitest';
import { annotations } from '@kf/api';
import { formatPlacementRecord, readPlacementRecord, recordOnEviction, type ParsedRecord } from './record.ts';

const KEY = 'failover.karmada-failover.io/placement-before-failover';
const EVICTED = '2026-11-20T10:00:00Z';
const T0 = Date.parse(EVICTED);
const on = (value: string): Record<string, string> => ({ [KEY]: value });
const json = (value: unknown): Record<string, string> => on(JSON.stringify(value));

describe('formatPlacementRecord', () => {
  it('writes the clusters and the eviction time to the second', () => {
    expect(annotations.placementBeforeFailover).toBe(KEY);
    expect(
      JSON.parse(
        formatPlacementRecord(
          [
            { name: 'member1', replicas: 2 },
            { name: 'member2', replicas: 0 },
          ],
          T0 + 750,
        ),
      ),
    ).toEqual({
      clusters: [
        { name: 'member1', replicas: 2 },
        { name: 'member2', replicas: 0 },
      ],
      evictedAt: EVICTED,
    });
  });

  it('leaves replicas out when the placement has none (Duplicated)', () => {
    expect(formatPlacementRecord([{ name: 'member1' }], T0)).toBe(
      '{"clusters":[{"name":"member1"}],"evictedAt":"2026-11-20T10:00:00Z"}',
    );
  });
});

describe('readPlacementRecord', () => {
  it('finds nothing without annotations or without the record', () => {
    expect(readPlacementRecord(undefined)).toEqual({ kind: 'none' });
    expect(readPlacementRecord({})).toEqual({ kind: 'none' });
    expect(readPlacementRecord({ 'example.com/other': '{}' })).toEqual({ kind: 'none' });
  });

  it('reads back what formatPlacementRecord wrote, with replicas', () => {
    const clusters = [
      { name: 'member1', replicas: 1 },
      { name: 'member2', replicas: 0 },
    ];
    expect(readPlacementRecord(on(formatPlacementRecord(clusters, T0)))).toEqual({
      kind: 'record',
      record: { clusters, evictedAtMs: T0 },
    });
  });

  it('reads back what formatPlacementRecord wrote, without replicas', () => {
    const clusters = [{ name: 'member1' }, { name: 'member3' }];
    const parsed = readPlacementRecord(on(formatPlacementRecord(clusters, T0 + 999)));
    expect(parsed).toEqual({ kind: 'record', record: { clusters, evictedAtMs: T0 } });
    // No `replicas: undefined` key either: the record's clusters are compared as they are.
    expect(parsed.kind === 'record' && Object.keys(parsed.record.clusters[0] ?? {})).toEqual(['name']);
  });

  it('ignores fields it does not know, in the record and in its clusters', () => {
    expect(
      readPlacementRecord(
        json({ clusters: [{ name: 'member1', replicas: 3, zone: 'a' }], evictedAt: EVICTED, by: 'me' }),
      ),
    ).toEqual({ kind: 'record', record: { clusters: [{ name: 'member1', replicas: 3 }], evictedAtMs: T0 } });
  });

  it('is invalid when it is a list', () => {
    expect(readPlacementRecord(on('[{"name":"member1"}]')).kind).toBe('invalid');
  });

  it.each<[string, string, string]>([
    ['not JSON', '{clusters:', 'not JSON'],
    ['empty', '', 'not JSON'],
    ['null', 'null', 'not a JSON object'],
    ['a string', '"member1"', 'not a JSON object'],
    ['a number', '42', 'not a JSON object'],
    ['evictedAt missing', '{"clusters":[{"name":"member1"}]}', 'evictedAt is not an RFC 3339 time'],
    [
      'evictedAt unparseable',
      '{"clusters":[{"name":"member1"}],"evictedAt":"yesterday"}',
      'evictedAt is not an RFC 3339 time',
    ],
    [
      'evictedAt empty',
      '{"clusters":[{"name":"member1"}],"evictedAt":""}',
      'evictedAt is not an RFC 3339 time',
    ],
    [
      'evictedAt a number',
      '{"clusters":[{"name":"member1"}],"evictedAt":1795000000000}',
      'evictedAt is not an RFC 3339 time',
    ],
    ['clusters missing', `{"evictedAt":"${EVICTED}"}`, 'clusters is not a non-empty list'],
    ['clusters empty', `{"clusters":[],"evictedAt":"${EVICTED}"}`, 'clusters is not a non-empty list'],
    [
      'clusters not a list',
      `{"clusters":{"name":"member1"},"evictedAt":"${EVICTED}"}`,
      'clusters is not a non-empty list',
    ],
    [
      'clusters a string',
      `{"clusters":"member1","evictedAt":"${EVICTED}"}`,
      'clusters is not a non-empty list',
    ],
    [
      'a cluster without name',
      `{"clusters":[{"name":"member1"},{"replicas":1}],"evictedAt":"${EVICTED}"}`,
      'a cluster has no name',
    ],
    [
      'a cluster with an empty name',
      `{"clusters":[{"name":""}],"evictedAt":"${EVICTED}"}`,
      'a cluster has no name',
    ],
    [
      'a cluster named by a number',
      `{"clusters":[{"name":1}],"evictedAt":"${EVICTED}"}`,
      'a cluster has no name',
    ],
    [
      'a cluster that is a string',
      `{"clusters":["member1"],"evictedAt":"${EVICTED}"}`,
      'a cluster has no name',
    ],
    ['a cluster that is null', `{"clusters":[null],"evictedAt":"${EVICTED}"}`, 'a cluster has no name'],
    [
      'negative replicas',
      `{"clusters":[{"name":"member1","replicas":-1}],"evictedAt":"${EVICTED}"}`,
      'cluster member1: replicas is not a whole number',
    ],
    [
      'fractional replicas',
      `{"clusters":[{"name":"member1","replicas":1},{"name":"member2","replicas":1.5}],"evictedAt":"${EVICTED}"}`,
      'cluster member2: replicas is not a whole number',
    ],
    [
      'replicas a string',
      `{"clusters":[{"name":"member1","replicas":"2"}],"evictedAt":"${EVICTED}"}`,
      'cluster member1: replicas is not a whole number',
    ],
    [
      'replicas null',
      `{"clusters":[{"name":"member1","replicas":null}],"evictedAt":"${EVICTED}"}`,
      'cluster member1: replicas is not a whole number',
    ],
  ])('is invalid when %s', (_name, value, problem) => {
    expect(readPlacementRecord(on(value))).toEqual<ParsedRecord>({ kind: 'invalid', problem });
  });
});

describe('recordOnEviction', () => {
  const placement = [
    { name: 'member1', replicas: 2 },
    { name: 'member2', replicas: 1 },
  ];

  it('writes a record of the placement now when the binding has none', () => {
    const patch = recordOnEviction(undefined, placement, T0 + 400);
    expect(patch).toEqual({ [KEY]: formatPlacementRecord(placement, T0) });
    expect(readPlacementRecord(patch)).toEqual({
      kind: 'record',
      record: { clusters: placement, evictedAtMs: T0 },
    });
    expect(recordOnEviction({ 'example.com/other': 'x' }, placement, T0)).toEqual({
      [KEY]: formatPlacementRecord(placement, T0),
    });
  });

  it('keeps the record of an earlier eviction: the placement the user had', () => {
    const earlier = on(formatPlacementRecord([{ name: 'member3', replicas: 3 }], T0 - 60_000));
    expect(recordOnEviction(earlier, placement, T0)).toBeUndefined();
  });

  it('replaces a record it cannot read', () => {
    expect(recordOnEviction(on('not json'), placement, T0)).toEqual({
      [KEY]: formatPlacementRecord(placement, T0),
    });
    expect(recordOnEviction(json({ clusters: [], evictedAt: EVICTED }), placement, T0 + 5_000)).toEqual({
      [KEY]: formatPlacementRecord(placement, T0 + 5_000),
    });
  });

  it('writes nothing for an empty placement', () => {
    expect(recordOnEviction(undefined, [], T0)).toBeUndefined();
    expect(recordOnEviction(on('not json'), [], T0)).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import {
  EMPTY_FENCE_RECORD,
  RECORD_KEYS,
  markedFenced,
  parseFenceRecord,
  planFence,
  renderFenceRecord,
  renewalBase,
  trackDecision,
  withEntry,
  withoutWork,
  type FenceEntry,
  type FenceRecord,
  type ObjectRef,
} from './fence-plan.ts';

const deployment: ObjectRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'app', name: 'web' };
const clusterRole: ObjectRef = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'r' };

function entry(work: string, overrides: Partial<FenceEntry> = {}): FenceEntry {
  return { work, uid: `uid-${work}`, fenceSeconds: 60, objects: [deployment], ...overrides };
}

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0, 123);

describe('renderFenceRecord and parseFenceRecord', () => {
  it('round-trips a record with a renewal time and entries, fenced or not', () => {
    const record: FenceRecord = {
      lastRenewalMs: T0,
      entries: [
        entry('ns/a', { objects: [deployment, clusterRole] }),
        entry('ns/b', { fenceSeconds: 30, fencedAt: '2026-01-01T12:01:00.000Z' }),
      ],
    };
    expect(parseFenceRecord(renderFenceRecord(record))).toEqual({ record, problems: [] });
  });

  it('round-trips a record without a renewal time', () => {
    const record: FenceRecord = { entries: [entry('ns/a')] };
    const data = renderFenceRecord(record);
    expect(data).not.toHaveProperty(RECORD_KEYS.lastRenewal);
    expect(parseFenceRecord(data)).toEqual({ record, problems: [] });
  });

  it('round-trips the empty record', () => {
    expect(parseFenceRecord(renderFenceRecord(EMPTY_FENCE_RECORD))).toEqual({
      record: EMPTY_FENCE_RECORD,
      problems: [],
    });
  });

  it('renders the renewal time as RFC 3339 with milliseconds and the entries as a JSON array', () => {
    const record: FenceRecord = { lastRenewalMs: T0, entries: [entry('ns/a')] };
    expect(renderFenceRecord(record)).toEqual({
      lastRenewal: '2026-01-01T12:00:00.123Z',
      works: JSON.stringify(record.entries),
    });
  });

  it('reads missing data as the empty record', () => {
    expect(parseFenceRecord(undefined)).toEqual({ record: { entries: [] }, problems: [] });
    expect(parseFenceRecord({})).toEqual({ record: { entries: [] }, problems: [] });
  });

  it('names a renewal time that is not a time, and leaves it out', () => {
    const parsed = parseFenceRecord({ lastRenewal: 'yesterday', works: JSON.stringify([entry('ns/a')]) });
    expect(parsed.record).toEqual({ entries: [entry('ns/a')] });
    expect(parsed.record).not.toHaveProperty('lastRenewalMs');
    expect(parsed.problems).toEqual(['lastRenewal is not a time: "yesterday"']);
  });

  it('names an empty renewal time', () => {
    const parsed = parseFenceRecord({ lastRenewal: '' });
    expect(parsed.record).toEqual({ entries: [] });
    expect(parsed.problems).toEqual(['lastRenewal is not a time: ""']);
  });

  it('names works that are not JSON, and keeps a valid renewal time', () => {
    const parsed = parseFenceRecord({ lastRenewal: new Date(T0).toISOString(), works: '[{' });
    expect(parsed.record).toEqual({ lastRenewalMs: T0, entries: [] });
    expect(parsed.problems).toHaveLength(1);
    expect(parsed.problems[0]).toMatch(/^works is unreadable: /);
  });

  it.each([
    ['an object', '{"work":"ns/a"}'],
    ['a string', '"ns/a"'],
    ['null', 'null'],
    ['a number', '3'],
  ])('names works that are %s instead of an array', (_name, works) => {
    expect(parseFenceRecord({ works })).toEqual({
      record: { entries: [] },
      problems: ['works is unreadable: not a JSON array'],
    });
  });

  it('skips malformed entries, naming each, and keeps the valid ones in order', () => {
    const valid1 = entry('ns/a');
    const valid2 = entry('ns/b', { objects: [clusterRole], fencedAt: '2026-01-01T00:00:00.000Z' });
    const valid3 = entry('ns/c', { objects: [] });
    const malformed: unknown[] = [
      null,
      7,
      'ns/x',
      { uid: 'u', fenceSeconds: 60, objects: [] },
      { work: 'ns/x', fenceSeconds: 60, objects: [] },
      { work: 'ns/x', uid: 'u', fenceSeconds: '60', objects: [] },
      { work: 'ns/x', uid: 'u', fenceSeconds: 60 },
      { work: 'ns/x', uid: 'u', fenceSeconds: 60, objects: {} },
      { work: 'ns/x', uid: 'u', fenceSeconds: 60, objects: [{ apiVersion: 'v1', kind: 'Pod' }] },
      { work: 'ns/x', uid: 'u', fenceSeconds: 60, objects: [{ apiVersion: 'v1', name: 'p' }] },
      { work: 'ns/x', uid: 'u', fenceSeconds: 60, objects: [{ kind: 'Pod', name: 'p' }] },
      { work: 'ns/x', uid: 'u', fenceSeconds: 60, objects: [{ ...deployment, namespace: 3 }] },
      { work: 'ns/x', uid: 'u', fenceSeconds: 60, objects: [null] },
      { work: 'ns/x', uid: 'u', fenceSeconds: 60, objects: [], fencedAt: 5 },
    ];
    const list = [malformed[0], valid1, ...malformed.slice(1, 7), valid2, ...malformed.slice(7), valid3];
    const parsed = parseFenceRecord({ works: JSON.stringify(list) });
    expect(parsed.record).toEqual({ entries: [valid1, valid2, valid3] });
    expect(parsed.problems).toEqual(
      malformed.map((e) => `an entry of works is malformed: ${JSON.stringify(e)}`),
    );
  });

  it('names problems of both keys at once', () => {
    const parsed = parseFenceRecord({ lastRenewal: 'soon', works: JSON.stringify([{}, entry('ns/a')]) });
    expect(parsed.record).toEqual({ entries: [entry('ns/a')] });
    expect(parsed.problems).toEqual([
      'lastRenewal is not a time: "soon"',
      'an entry of works is malformed: {}',
    ]);
  });
});

describe('renewalBase', () => {
  const clocks = { nowMono: 50_000, nowWall: T0 };

  it('is undefined when no renewal is known', () => {
    expect(renewalBase(undefined, undefined, clocks)).toBeUndefined();
  });

  it("is this process's renewal when the record has none", () => {
    expect(renewalBase(42_000, undefined, clocks)).toBe(42_000);
  });

  it("maps the record's wall-clock renewal to the monotonic clock", () => {
    // Renewed 8 s before now on the wall clock: 8 s before now on the monotonic clock.
    expect(renewalBase(undefined, T0 - 8_000, clocks)).toBe(42_000);
  });

  it('maps a renewal older than the monotonic origin to a negative time', () => {
    expect(renewalBase(undefined, T0 - 80_000, clocks)).toBe(-30_000);
  });

  it('maps a record renewal in the future (clock skew) past now', () => {
    expect(renewalBase(undefined, T0 + 1_000, clocks)).toBe(51_000);
  });

  it('takes the later of the two when both are known', () => {
    expect(renewalBase(45_000, T0 - 8_000, clocks)).toBe(45_000);
    expect(renewalBase(40_000, T0 - 8_000, clocks)).toBe(42_000);
    expect(renewalBase(42_000, T0 - 8_000, clocks)).toBe(42_000);
  });
});

describe('planFence', () => {
  it('makes every unfenced entry due when no renewal is known', () => {
    const a = entry('ns/a');
    const b = entry('ns/b', { fenceSeconds: 3_600 });
    const fenced = entry('ns/c', { fencedAt: '2026-01-01T00:00:00.000Z' });
    const plan = planFence({ entries: [a, fenced, b] }, undefined, 0);
    expect(plan).toEqual({ due: [a, b] });
    expect(plan).not.toHaveProperty('nextInMs');
  });

  it('never makes a fenced entry due, nor waits for it', () => {
    const fenced = entry('ns/c', { fencedAt: '2026-01-01T00:00:00.000Z' });
    expect(planFence({ entries: [fenced] }, 0, 1_000_000)).toEqual({ due: [] });
    expect(planFence({ entries: [fenced] }, 0, 0)).toEqual({ due: [] });
  });

  it('has nothing to do for an empty record', () => {
    expect(planFence(EMPTY_FENCE_RECORD, 0, 0)).toEqual({ due: [] });
    expect(planFence(EMPTY_FENCE_RECORD, undefined, 0)).toEqual({ due: [] });
  });

  it('waits for an entry before its deadline', () => {
    const a = entry('ns/a', { fenceSeconds: 60 });
    expect(planFence({ entries: [a] }, 10_000, 10_000)).toEqual({ due: [], nextInMs: 60_000 });
    expect(planFence({ entries: [a] }, 10_000, 69_999)).toEqual({ due: [], nextInMs: 1 });
  });

  it('makes an entry due when its deadline is exactly reached', () => {
    const a = entry('ns/a', { fenceSeconds: 60 });
    expect(planFence({ entries: [a] }, 10_000, 70_000)).toEqual({ due: [a] });
  });

  it('makes an entry due past its deadline', () => {
    const a = entry('ns/a', { fenceSeconds: 60 });
    expect(planFence({ entries: [a] }, 10_000, 500_000)).toEqual({ due: [a] });
  });

  it('counts from a negative base (a renewal before the monotonic origin)', () => {
    const a = entry('ns/a', { fenceSeconds: 10 });
    expect(planFence({ entries: [a] }, -4_000, 0)).toEqual({ due: [], nextInMs: 6_000 });
    expect(planFence({ entries: [a] }, -12_000, 0)).toEqual({ due: [a] });
  });

  it('splits mixed timeouts into due ones and the nearest pending one', () => {
    const short = entry('ns/short', { fenceSeconds: 10 });
    const exact = entry('ns/exact', { fenceSeconds: 20 });
    const medium = entry('ns/medium', { fenceSeconds: 45 });
    const long = entry('ns/long', { fenceSeconds: 30 });
    const fenced = entry('ns/fenced', { fenceSeconds: 1, fencedAt: '2026-01-01T00:00:00.000Z' });
    const record: FenceRecord = { entries: [medium, short, fenced, long, exact] };
    expect(planFence(record, 1_000, 21_000)).toEqual({ due: [short, exact], nextInMs: 10_000 });
  });

  it('reports the smallest remaining time whatever the order of entries', () => {
    const a = entry('ns/a', { fenceSeconds: 30 });
    const b = entry('ns/b', { fenceSeconds: 20 });
    const c = entry('ns/c', { fenceSeconds: 40 });
    expect(planFence({ entries: [a, b, c] }, 0, 5_000).nextInMs).toBe(15_000);
    expect(planFence({ entries: [c, a, b] }, 0, 5_000).nextInMs).toBe(15_000);
    expect(planFence({ entries: [b, c, a] }, 0, 5_000).nextInMs).toBe(15_000);
  });
});

describe('trackDecision', () => {
  const tracked = entry('ns/a', { objects: [deployment, clusterRole] });
  const record: FenceRecord = { lastRenewalMs: T0, entries: [entry('ns/other'), tracked] };

  it('is ready when the record lists the same work, uid, timeout and objects', () => {
    expect(trackDecision(record, { ...tracked })).toBe('ready');
    expect(trackDecision(record, { ...tracked, objects: [{ ...deployment }, { ...clusterRole }] })).toBe(
      'ready',
    );
  });

  it('is record when the work is not listed', () => {
    expect(trackDecision(record, entry('ns/new'))).toBe('record');
    expect(trackDecision(EMPTY_FENCE_RECORD, tracked)).toBe('record');
  });

  it('is record when an object is not listed yet, ready when every one is (whatever the order)', () => {
    expect(
      trackDecision(record, { ...tracked, objects: [{ ...deployment, name: 'api' }, clusterRole] }),
    ).toBe('record');
    expect(trackDecision(record, { ...tracked, objects: [clusterRole, deployment] })).toBe('ready');
    // Fewer objects than listed: the listed ones stay (their copies may still run).
    expect(trackDecision(record, { ...tracked, objects: [deployment] })).toBe('ready');
    expect(trackDecision(record, { ...tracked, objects: [] })).toBe('ready');
  });

  it('is record when the fence timeout differs', () => {
    expect(trackDecision(record, { ...tracked, fenceSeconds: 61 })).toBe('record');
  });

  it('is record when the uid differs (a new Work of the same name)', () => {
    expect(trackDecision(record, { ...tracked, uid: 'another-uid' })).toBe('record');
  });

  it('is fenced when the same work and uid were fenced, whatever the objects or timeout', () => {
    const fenced: FenceRecord = {
      entries: [{ ...tracked, fencedAt: '2026-01-01T00:00:00.000Z' }],
    };
    expect(trackDecision(fenced, tracked)).toBe('fenced');
    expect(trackDecision(fenced, { ...tracked, objects: [], fenceSeconds: 5 })).toBe('fenced');
  });

  it('is record for a new uid of a work whose earlier uid was fenced', () => {
    const fenced: FenceRecord = {
      entries: [{ ...tracked, fencedAt: '2026-01-01T00:00:00.000Z' }],
    };
    expect(trackDecision(fenced, { ...tracked, uid: 'another-uid' })).toBe('record');
  });
});

describe('withEntry', () => {
  it('keeps the objects listed earlier for the same Work and uid, adding the new ones', () => {
    const before = entry('ns/a', { objects: [deployment] });
    const after = entry('ns/a', { objects: [{ ...deployment, name: 'api' }], fenceSeconds: 90 });
    expect(withEntry({ entries: [before] }, after)).toEqual({
      entries: [{ ...after, objects: [{ ...deployment, name: 'api' }, deployment] }],
    });
  });

  it('appends an entry for a new work, keeping the rest of the record', () => {
    const a = entry('ns/a');
    const b = entry('ns/b');
    const record: FenceRecord = { lastRenewalMs: T0, entries: [a] };
    expect(withEntry(record, b)).toEqual({ lastRenewalMs: T0, entries: [a, b] });
    expect(record).toEqual({ lastRenewalMs: T0, entries: [a] });
  });

  it('replaces the entry of the same work, whatever its uid or state', () => {
    const a = entry('ns/a');
    const old = entry('ns/b', { uid: 'old', fencedAt: '2026-01-01T00:00:00.000Z' });
    const c = entry('ns/c');
    const replacement = entry('ns/b', { uid: 'new', fenceSeconds: 5, objects: [clusterRole] });
    expect(withEntry({ entries: [a, old, c] }, replacement)).toEqual({ entries: [a, c, replacement] });
  });

  it('replaces every entry of the same work', () => {
    const replacement = entry('ns/a', { uid: 'new' });
    const record: FenceRecord = { entries: [entry('ns/a', { uid: 'x' }), entry('ns/a', { uid: 'y' })] };
    expect(withEntry(record, replacement)).toEqual({ entries: [replacement] });
  });
});

describe('withoutWork', () => {
  it('drops every entry of the work, any uid, and keeps the others', () => {
    const b = entry('ns/b');
    const record: FenceRecord = {
      lastRenewalMs: T0,
      entries: [entry('ns/a', { uid: 'x' }), b, entry('ns/a', { uid: 'y', fencedAt: 'then' })],
    };
    expect(withoutWork(record, 'ns/a')).toEqual({ lastRenewalMs: T0, entries: [b] });
  });

  it('leaves a record without the work as it was', () => {
    const record: FenceRecord = { lastRenewalMs: T0, entries: [entry('ns/b')] };
    expect(withoutWork(record, 'ns/a')).toEqual(record);
    expect(withoutWork(EMPTY_FENCE_RECORD, 'ns/a')).toEqual(EMPTY_FENCE_RECORD);
  });
});

describe('markedFenced', () => {
  const at = T0 + 5_000;
  const atIso = new Date(at).toISOString();

  it('marks the unfenced entries of the given uids at the given wall time', () => {
    const a = entry('ns/a');
    const b = entry('ns/b');
    const c = entry('ns/c');
    const record: FenceRecord = { lastRenewalMs: T0, entries: [a, b, c] };
    expect(markedFenced(record, new Set([a.uid, c.uid]), at)).toEqual({
      lastRenewalMs: T0,
      entries: [{ ...a, fencedAt: atIso }, b, { ...c, fencedAt: atIso }],
    });
    expect(record.entries).toEqual([a, b, c]);
  });

  it('keeps an earlier fencedAt', () => {
    const earlier = entry('ns/a', { fencedAt: '2025-12-31T00:00:00.000Z' });
    const record: FenceRecord = { entries: [earlier] };
    expect(markedFenced(record, new Set([earlier.uid]), at)).toEqual(record);
  });

  it('marks nothing for uids the record does not list', () => {
    const record: FenceRecord = { entries: [entry('ns/a')] };
    expect(markedFenced(record, new Set(['unknown']), at)).toEqual(record);
    expect(markedFenced(record, new Set(), at)).toEqual(record);
  });
});

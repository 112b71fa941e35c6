import { describe, expect, it } from 'vitest';
import { isSameJson, jsonEqual, sameJsonKey } from './json-equal.ts';

describe('jsonEqual', () => {
  it.each([
    [{ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }, true],
    [{ a: 1, b: undefined }, { a: 1 }, true],
    [[1, 2], [2, 1], false],
    [{ a: 1 }, { a: '1' }, false],
    [{ a: null }, {}, false],
    [[], {}, false],
    ['x', 'x', true],
  ])('jsonEqual(%j, %j) is %s', (a, b, equal) => {
    expect(jsonEqual(a, b)).toBe(equal);
  });
});

describe('isSameJson', () => {
  it.each<[unknown, unknown, boolean]>([
    [{ a: 1 }, { a: 1 }, true],
    [{ a: 1 }, { a: 2 }, false],
    [{ a: [] }, {}, true],
    [{ a: null }, {}, true],
    [{ a: {} }, { a: undefined }, true],
    [[1, 2], [2, 1], false],
    [{ a: [{ b: 'x' }] }, { a: [{ b: 'x', c: [] }] }, true],
    ['1', 1, false],
  ])('%j vs %j → %s', (a, b, same) => {
    expect(isSameJson(a, b)).toBe(same);
  });
});

describe('sameJsonKey', () => {
  const pairs: readonly [unknown, unknown][] = [
    [{ a: 1 }, { a: 1 }],
    [{ a: 1 }, { a: 2 }],
    [{ a: [] }, {}],
    [{ a: null }, {}],
    [{ a: {} }, { a: undefined }],
    [
      [1, 2],
      [2, 1],
    ],
    [{ a: [{ b: 'x' }] }, { a: [{ b: 'x', c: [] }] }],
    ['1', 1],
    [
      { b: 1, a: { d: [1, null], c: 'x' } },
      { a: { c: 'x', d: [1, null] }, b: 1 },
    ],
    [
      [null, 1],
      [[], 1],
    ],
    [[null, 1], [1]],
    [{ a: [1] }, { a: 1 }],
    [{ a: true }, { a: 'true' }],
    [{ 'a,b': 1 }, { a: 1, b: 1 }],
    [{ spec: { replicas: 0 } }, { spec: {} }],
    [{ s: '' }, {}],
  ];

  it.each(pairs)('agrees with isSameJson: %j vs %j', (a, b) => {
    expect(sameJsonKey(a) === sameJsonKey(b)).toBe(isSameJson(a, b));
  });

  it('writes keys sorted whatever order they came in, and positions of empty list elements', () => {
    const text = '{"a":{"c":3,"d":[2,null,"x"]},"b":1,"e":true}';
    expect(sameJsonKey({ a: { c: 3, d: [2, [], 'x'] }, b: 1, e: true })).toBe(text);
    expect(sameJsonKey({ e: true, b: 1, a: { d: [2, null, 'x'], c: 3 } })).toBe(text);
    expect(sameJsonKey({ a: { c: 3, d: [2, {}, 'x'] }, e: true, b: 1, z: [] })).toBe(text);
    expect(sameJsonKey({ 'k"q': '\n' })).toBe('{"k\\"q":"\\n"}');
  });

  it('is looser than isSameJson only for objects of empty values, at any depth', () => {
    expect(isSameJson({ a: { b: null } }, {})).toBe(false);
    expect(sameJsonKey({ a: { b: null } })).toBe(sameJsonKey({}));
  });

  it('writes what a plain sorted walk writes, for values already in canonical form and not', () => {
    const values: unknown[] = [
      ...canonicalCorner,
      ...Array.from({ length: 400 }, (_, i) => randomJson(seeded(i + 1), 4, i % 2 === 0)),
    ];
    for (const v of values) expect(sameJsonKey(v), JSON.stringify(v)).toBe(referenceKey(v) ?? 'null');
  });
});

/** Values at the edges of canonical form: each is, or is one step from, what JSON.stringify writes alike. */
const canonicalCorner: readonly unknown[] = [
  { a: 1, b: { c: 'x', d: [1, 2] } },
  { a: 1, b: { d: [1, 2], c: 'x' } },
  { a: 1, b: { c: 'x', d: [1, null] } },
  { a: 1, b: { c: 'x', d: [1, {}] } },
  { a: 1, b: { c: 'x', d: [] } },
  { a: 1, b: { c: undefined } },
  { a: { b: { c: null } }, d: 1 },
  { '1': 'x', '10': 'y', '2': 'z' },
  { '10': 'y', b: 'z' },
  { 'k"q': '\n', 'z\u00e9': [true, false, 0, -1.5] },
  { a: Number.NaN, b: 1e21 },
  { at: new Date(0), b: 1 },
  {
    q: new (class {
      a = 1;
      toJSON(): string {
        return 'q';
      }
    })(),
  },
  { b: Object.assign(Object.create(null) as object, { a: 1 }) },
  [{ a: 1 }, [[1]], 'x'],
  [{ b: 1, a: 2 }],
  JSON.parse('{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"labels":{"app":"a"},"name":"a"}}'),
];

/** The canonical key the slow way: sort every object's keys, drop the empty values. */
function referenceKey(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v))
    return v.length === 0 ? undefined : `[${v.map((x) => referenceKey(x) ?? 'null').join(',')}]`;
  if (typeof v !== 'object') return JSON.stringify(v);
  const record = v as Record<string, unknown>;
  const parts = Object.keys(record)
    .sort()
    .flatMap((k) => {
      const c = referenceKey(record[k]);
      return c === undefined ? [] : [`${JSON.stringify(k)}:${c}`];
    });
  return parts.length === 0 ? undefined : `{${parts.join(',')}}`;
}

/** A small deterministic generator (mulberry32), so that a failure names a value that recurs. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random JSON value; `sortedMostly` builds objects with their keys in order, as Go writes them. */
function randomJson(random: () => number, depth: number, sortedMostly: boolean): unknown {
  const pick = random();
  if (depth === 0 || pick < 0.3) {
    const leaves = [null, undefined, 'x', '', 0, 7, true, false, [], {}];
    return leaves[Math.floor(random() * leaves.length)];
  }
  if (pick < 0.5)
    return Array.from({ length: Math.floor(random() * 4) }, () =>
      randomJson(random, depth - 1, sortedMostly),
    );
  const names = ['a', 'b', 'c', 'D', 'e2', '10', '9', 'z'];
  const chosen = names.filter(() => random() < 0.5);
  if (sortedMostly && random() < 0.9) chosen.sort();
  else chosen.reverse();
  const record: Record<string, unknown> = {};
  for (const k of chosen) record[k] = randomJson(random, depth - 1, sortedMostly);
  return record;
}

import { describe, expect, it } from 'vitest';
import { settleEmptyTables } from './empty-fields.ts';

describe('settleEmptyTables', () => {
  it('turns a wholly empty result into what the operation expects', () => {
    expect(settleEmptyTables([], 'object')).toEqual({});
    expect(settleEmptyTables([], 'list')).toEqual([]);
  });

  it('leaves scalars and non-empty lists alone', () => {
    expect(settleEmptyTables('x', 'object')).toBe('x');
    expect(settleEmptyTables(null, 'object')).toBeNull();
    expect(settleEmptyTables([1, 2], 'list')).toEqual([1, 2]);
  });

  it('removes empty fields that no given object had', () => {
    expect(settleEmptyTables({ spec: { a: [], b: 1 }, c: [] }, 'object')).toEqual({ spec: { b: 1 } });
  });

  it('restores an empty object and keeps an empty list where a given object had one', () => {
    const desired = { spec: { selector: {}, ports: [] } };
    const result = { spec: { selector: [], ports: [], extra: [] } };
    expect(settleEmptyTables(result, 'object', [desired])).toEqual({ spec: { selector: {}, ports: [] } });
  });

  it('takes empty fields from every reference', () => {
    const desired = { spec: { a: {} } };
    const observed = { status: { b: [] } };
    const result = { spec: { a: [] }, status: { b: [] } };
    expect(settleEmptyTables(result, 'object', [desired, observed])).toEqual({
      spec: { a: {} },
      status: { b: [] },
    });
  });

  it('prefers an empty object when the references disagree', () => {
    expect(settleEmptyTables({ x: [] }, 'object', [{ x: [] }, { x: {} }])).toEqual({ x: {} });
  });

  it('ignores list indices in paths, on both sides', () => {
    const desired = {
      containers: [
        { name: 'a', env: [] },
        { name: 'b', args: {} },
      ],
    };
    const result = {
      containers: [
        { name: 'a', env: [], args: [] },
        { name: 'b', env: [] },
      ],
    };
    expect(settleEmptyTables(result, 'object', [desired])).toEqual({
      containers: [
        { name: 'a', env: [], args: {} },
        { name: 'b', env: [] },
      ],
    });
  });

  it('removes empty items from lists', () => {
    expect(settleEmptyTables([[], { a: 1 }, []], 'list')).toEqual([{ a: 1 }]);
    expect(settleEmptyTables({ l: [[], 1] }, 'object')).toEqual({ l: [1] });
  });

  it('keeps non-empty structure untouched and settles nested empties inside it', () => {
    expect(settleEmptyTables({ a: { b: { c: [] }, d: [{ e: [] }] } }, 'object')).toEqual({
      a: { b: {}, d: [{}] },
    });
  });
});

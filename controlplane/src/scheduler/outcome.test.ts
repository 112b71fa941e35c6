import { describe, expect, it } from 'vitest';
import { fail, succeed } from './outcome.ts';

describe('outcome', () => {
  it('wraps a value', () => {
    expect(succeed([1])).toEqual({ ok: true, value: [1] });
  });

  it('wraps a failure with its kind and message', () => {
    expect(fail('Unschedulable', 'no room')).toEqual({
      ok: false,
      failure: { kind: 'Unschedulable', message: 'no room' },
    });
  });
});

import { describe, expect, it } from 'vitest';
import { readFenceSetting } from './fence.ts';
import { annotations } from './well-known.ts';

const on = (value: string) => readFenceSetting({ [annotations.fenceAfterSeconds]: value });

describe('readFenceSetting', () => {
  it('is off without the annotation', () => {
    expect(readFenceSetting(undefined)).toEqual({ kind: 'off' });
    expect(readFenceSetting({ other: '30' })).toEqual({ kind: 'off' });
  });

  it.each([
    ['30', 30],
    [' 5 ', 5],
    ['86400', 86_400],
  ])('reads %j as %d seconds', (value, seconds) => {
    expect(on(value)).toEqual({ kind: 'on', seconds });
  });

  it.each(['30s', '-1', '', '1.5', 'soon'])('rejects %j as not whole seconds', (value) => {
    expect(on(value)).toEqual({
      kind: 'invalid',
      problem: `${annotations.fenceAfterSeconds} must be a whole number of seconds, got "${value}"`,
    });
  });

  it.each(['0', '4', '86401'])('rejects %j as out of range', (value) => {
    expect(on(value)).toEqual({
      kind: 'invalid',
      problem: `${annotations.fenceAfterSeconds} must be between 5 and 86400 seconds, got ${value}`,
    });
  });
});

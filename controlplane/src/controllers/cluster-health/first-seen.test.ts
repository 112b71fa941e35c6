import { describe, expect, it } from 'vitest';
import { FirstSeen } from './first-seen.ts';

describe('FirstSeen', () => {
  it('keeps the first time a cluster was asked about', () => {
    const seen = new FirstSeen();
    expect(seen.at('m1', 100)).toBe(100);
    expect(seen.at('m1', 250)).toBe(100);
    expect(seen.at('m2', 300)).toBe(300);
  });

  it('forget starts one cluster afresh, forgetAll every cluster', () => {
    const seen = new FirstSeen();
    seen.at('m1', 100);
    seen.at('m2', 100);
    seen.forget('m1');
    expect(seen.at('m1', 400)).toBe(400);
    expect(seen.at('m2', 400)).toBe(100);
    seen.forgetAll();
    expect(seen.at('m2', 900)).toBe(900);
  });
});

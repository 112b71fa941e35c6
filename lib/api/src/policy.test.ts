import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  currentPurgeModeOf,
  givenPurgeMode,
  type ClusterFailoverBehavior,
  type DeprecatedPurgeMode,
  type PurgeMode,
} from './policy.ts';

describe('givenPurgeMode', () => {
  it.each<[PurgeMode | DeprecatedPurgeMode | '' | undefined, PurgeMode | undefined]>([
    ['Directly', 'Directly'],
    ['Gracefully', 'Gracefully'],
    ['Never', 'Never'],
    ['Immediately', 'Directly'],
    ['Graciously', 'Gracefully'],
    ['', undefined],
    [undefined, undefined],
  ])('reads %j as %j', (written, read) => {
    expect(givenPurgeMode(written)).toBe(read);
  });

  it('maps each deprecated name to its current one', () => {
    expect(currentPurgeModeOf).toEqual({ Immediately: 'Directly', Graciously: 'Gracefully' });
  });

  it('hands callers current names only, keeping a narrower field narrow', () => {
    expectTypeOf(givenPurgeMode<PurgeMode | DeprecatedPurgeMode>).returns.toEqualTypeOf<
      PurgeMode | undefined
    >();
    const cluster: ClusterFailoverBehavior = { purgeMode: 'Immediately' };
    expectTypeOf(givenPurgeMode(cluster.purgeMode)).toEqualTypeOf<'Directly' | 'Gracefully' | undefined>();
  });
});

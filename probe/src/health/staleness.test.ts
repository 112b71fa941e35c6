import { describe, expect, it } from 'vitest';
import { judgeNodeVerdict, noteHeartbeat, type HeartbeatSighting } from './staleness.ts';

const T0 = Date.parse('2026-11-22T05:00:00Z');
const at = (offsetS: number): string => new Date(T0 + offsetS * 1000).toISOString().replace('.000Z', 'Z');

describe('noteHeartbeat', () => {
  it.each<
    [
      string,
      HeartbeatSighting | undefined,
      readonly [string | undefined, number],
      HeartbeatSighting | undefined,
    ]
  >([
    ['no heartbeat, no sighting', undefined, [undefined, T0], undefined],
    ['an empty heartbeat is none', undefined, ['', T0], undefined],
    ['an unparsable first heartbeat is none', undefined, ['yesterday', T0], undefined],
    [
      'a first heartbeat counts from its timestamp',
      undefined,
      [at(-20), T0],
      { heartbeat: at(-20), freshSinceMs: T0 - 20_000 },
    ],
    [
      'a first heartbeat from the future counts from now',
      undefined,
      [at(300), T0],
      { heartbeat: at(300), freshSinceMs: T0 },
    ],
    [
      'the same heartbeat keeps its sighting',
      { heartbeat: at(-20), freshSinceMs: T0 - 20_000 },
      [at(-20), T0 + 50_000],
      { heartbeat: at(-20), freshSinceMs: T0 - 20_000 },
    ],
    [
      'a changed heartbeat counts from now, even when it lags',
      { heartbeat: at(-400), freshSinceMs: T0 - 400_000 },
      [at(-300), T0],
      { heartbeat: at(-300), freshSinceMs: T0 },
    ],
    [
      'a vanished heartbeat clears the sighting',
      { heartbeat: at(-5), freshSinceMs: T0 - 5_000 },
      [undefined, T0],
      undefined,
    ],
  ])('%s', (_name, previous, [heartbeat, now], expected) => {
    expect(noteHeartbeat(previous, heartbeat, now)).toEqual(expected);
  });
});

describe('judgeNodeVerdict', () => {
  const fresh = (ageMs: number): HeartbeatSighting => ({ heartbeat: 'x', freshSinceMs: T0 - ageMs });
  it.each<[string, string | undefined, HeartbeatSighting | undefined, ReturnType<typeof judgeNodeVerdict>]>([
    ['no condition: Unknown', undefined, undefined, { verdict: 'Unknown' }],
    ['no heartbeat: Unknown', 'True', undefined, { verdict: 'Unknown' }],
    [
      'a fresh True counts, with the time it has left',
      'True',
      fresh(10_000),
      { verdict: 'True', staleInMs: 50_001 },
    ],
    ['a fresh False counts', 'False', fresh(0), { verdict: 'False', staleInMs: 60_001 }],
    [
      'exactly the stale threshold old still counts',
      'False',
      fresh(60_000),
      { verdict: 'False', staleInMs: 1 },
    ],
    ['older than the stale threshold: Unknown', 'True', fresh(60_001), { verdict: 'Unknown' }],
    ['a status of Unknown stays Unknown', 'Unknown', fresh(0), { verdict: 'Unknown' }],
    ['an unexpected status is Unknown', 'Maybe', fresh(0), { verdict: 'Unknown' }],
  ])('%s', (_name, status, sighting, expected) => {
    expect(judgeNodeVerdict(status, sighting, T0, 60_000)).toEqual(expected);
  });
});

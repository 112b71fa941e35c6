import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MIN_HEALTHY_WATCH_MS,
  WATCH_BACKOFF,
  afterSuccess,
  decideRecovery,
  initialRecovery,
  type Failure,
  type FailureKind,
  type RecoveryState,
  type RecoveryStep,
  type RecoverySuccess,
} from './watch-recovery.ts';

/** One thing that happened to the connection, at a monotonic time. */
type Happening =
  RecoverySuccess | (Partial<Failure> & { readonly kind: FailureKind; readonly atMs?: number });

/** random 0.5 puts the jitter at its centre: delays are the policy's base delays. */
const MID = 0.5;

/** Folds what happened into the recovery state; the step of the last failure, and the state after all. */
function replay(
  start: RecoveryState,
  happenings: readonly Happening[],
): { step: RecoveryStep | undefined; state: RecoveryState } {
  let state = start;
  let step: RecoveryStep | undefined;
  for (const h of happenings) {
    if (typeof h === 'string') {
      state = afterSuccess(state, h);
      continue;
    }
    step = decideRecovery({
      state,
      failure: { during: 'watch', events: 0, connectedMs: 0, ...h },
      nowMs: h.atMs ?? 0,
      policy: WATCH_BACKOFF,
      random: MID,
    });
    if (step.kind === 'retry') state = step.state;
  }
  return { step, state };
}

const listed = (): RecoveryState => afterSuccess(initialRecovery(false), 'listed');
/** Watching from an old resourceVersion: listed long ago, the watch delivered since. */
const resumed = (): RecoveryState => ({ ...listed(), freshList: false });
const refused = (atMs: number): Happening => ({ kind: 'error', atMs });
/** Connection refused at the times the default backoff retries at: 0, 0.5, 1.5, 3.5 s… */
const outage = (failures: number): Happening[] => {
  const out: Happening[] = [];
  let atMs = 0;
  for (let i = 0; i < failures; i++) {
    out.push(refused(atMs));
    atMs += Math.min(WATCH_BACKOFF.maxMs, WATCH_BACKOFF.initialMs * 2 ** i);
  }
  return out;
};

interface Expected {
  readonly reason?: 'gone' | 'error' | 'closed';
  readonly failed?: boolean;
  readonly delayMs?: number;
  readonly needList?: boolean;
  readonly attempt?: number;
}

interface Row {
  readonly name: string;
  readonly start: RecoveryState;
  readonly happenings: readonly Happening[];
  readonly expected: Expected;
}

describe('decideRecovery', () => {
  it.each<Row>([
    // A watch the server ended normally.
    {
      name: 'a watch that delivered events and was closed by the server resumes at once',
      start: resumed(),
      happenings: ['watching', { kind: 'closed', events: 3 }],
      expected: { reason: 'closed', failed: false, delayMs: 0, needList: false, attempt: 0 },
    },
    {
      name: 'a quiet watch that lasted the healthy minimum resumes at once',
      start: resumed(),
      happenings: ['watching', { kind: 'closed', connectedMs: MIN_HEALTHY_WATCH_MS }],
      expected: { reason: 'closed', failed: false, delayMs: 0, needList: false },
    },
    {
      name: 'a watch that ended at once without events backs off (no tight reconnect loop)',
      start: resumed(),
      happenings: ['watching', { kind: 'closed', connectedMs: MIN_HEALTHY_WATCH_MS - 1 }],
      expected: { reason: 'closed', failed: true, delayMs: 500, needList: false, attempt: 1 },
    },
    // Errors: jittered exponential backoff, resuming from the resourceVersion.
    {
      name: 'a first error waits the initial delay and resumes',
      start: resumed(),
      happenings: [refused(0)],
      expected: { reason: 'error', failed: true, delayMs: 500, needList: false, attempt: 1 },
    },
    {
      name: 'errors in a row double the delay',
      start: resumed(),
      happenings: outage(3),
      expected: { delayMs: 2_000, needList: false, attempt: 3 },
    },
    {
      name: 'the delay stops at the 5 s cap',
      start: { ...resumed(), attempt: 12, downSinceMs: 0 },
      happenings: [refused(1_000)],
      expected: { delayMs: 5_000, attempt: 13 },
    },
    // Backoff resets on success.
    {
      name: 'a watch the server accepted resets the backoff, even when it dropped without events',
      start: resumed(),
      happenings: [...outage(6), 'watching', { kind: 'error', atMs: 30_000 }],
      expected: { reason: 'error', delayMs: 500, attempt: 1 },
    },
    {
      name: 'a complete LIST resets the backoff',
      start: initialRecovery(false),
      happenings: [
        { kind: 'error', during: 'list', atMs: 0 },
        { kind: 'error', during: 'list', atMs: 500 },
        'listed',
        { kind: 'error', atMs: 2_000 },
      ],
      expected: { delayMs: 500, attempt: 1, needList: false },
    },
    // 410 Gone.
    {
      name: 'an HTTP 410 of a resumed watch relists at once, whatever the backoff counter says',
      start: resumed(),
      happenings: [...outage(3), { kind: 'gone', atMs: 3_500 }],
      expected: { reason: 'gone', failed: true, delayMs: 0, needList: true },
    },
    {
      name: 'an ERROR 410 after events relists at once',
      start: resumed(),
      happenings: ['watching', { kind: 'gone', events: 7 }],
      expected: { reason: 'gone', delayMs: 0, needList: true },
    },
    {
      name: 'a 410 right after a fresh LIST relists at once the first time',
      start: initialRecovery(false),
      happenings: ['listed', { kind: 'gone' }],
      expected: { reason: 'gone', delayMs: 0, needList: true },
    },
    {
      name: 'a second 410 in a row right after a fresh LIST backs off (a server answering 410 to everything)',
      start: initialRecovery(false),
      happenings: ['listed', { kind: 'gone' }, 'listed', 'watching', { kind: 'gone' }],
      expected: { reason: 'gone', delayMs: 500, needList: true },
    },
    {
      name: 'a third one backs off longer',
      start: initialRecovery(false),
      happenings: ['listed', { kind: 'gone' }, 'listed', { kind: 'gone' }, 'listed', { kind: 'gone' }],
      expected: { delayMs: 1_000, needList: true },
    },
    {
      name: 'a 410 after a watch that delivered events is not part of a 410 loop',
      start: initialRecovery(false),
      happenings: [
        'listed',
        { kind: 'gone' },
        'listed',
        { kind: 'error', events: 1, atMs: 0 },
        ...outage(4).slice(1),
        'listed',
        { kind: 'gone' },
      ],
      expected: { delayMs: 0, needList: true },
    },
    {
      name: 'a 410 after reconnecting from an outage relists at once, even after a fresh list',
      start: initialRecovery(false),
      happenings: ['listed', { kind: 'gone' }, 'listed', ...outage(3), 'watching', { kind: 'gone' }],
      expected: { delayMs: 0, needList: true },
    },
    {
      name: 'a 410 while listing (an expired continue token) backs off and lists again',
      start: { ...initialRecovery(false), attempt: 2 },
      happenings: [{ kind: 'gone', during: 'list' }],
      expected: { reason: 'gone', failed: true, delayMs: 2_000, needList: true, attempt: 3 },
    },
    {
      name: 'the seed of a saved state is not a fresh list: its 410 relists at once',
      start: initialRecovery(true),
      happenings: ['watching', { kind: 'gone' }],
      expected: { delayMs: 0, needList: true },
    },
    // Outages longer than the cap relist.
    {
      name: 'an outage that stays within the cap resumes from the resourceVersion',
      start: resumed(),
      happenings: outage(3), // down since 0, next try at 1.5 + 2 = 3.5 s
      expected: { delayMs: 2_000, needList: false },
    },
    {
      name: 'an outage that outlasts the cap relists at the next connection',
      start: resumed(),
      happenings: outage(4), // down since 0, next try at 3.5 + 4 = 7.5 s
      expected: { delayMs: 4_000, needList: true },
    },
    {
      name: 'the relist after a long outage stays wanted while the LIST fails',
      start: resumed(),
      happenings: [...outage(4), { kind: 'error', during: 'list', atMs: 7_500 }],
      expected: { delayMs: 5_000, needList: true, attempt: 5 },
    },
    {
      name: 'a success ends the outage: the next failure starts a new one',
      start: resumed(),
      happenings: [...outage(3), 'watching', { kind: 'error', atMs: 10_000 }, refused(10_500)],
      expected: { delayMs: 1_000, needList: false, attempt: 2 },
    },
    {
      name: 'a complete LIST clears the wanted relist',
      start: resumed(),
      happenings: [...outage(4), 'listed'],
      expected: { needList: false, attempt: 0 },
    },
  ])('$name', ({ start, happenings, expected }) => {
    const { step, state } = replay(start, happenings);
    expect(step?.kind).toBe('retry');
    if (step?.kind !== 'retry') return;
    expect({
      reason: step.reason,
      failed: step.failed,
      delayMs: step.delayMs,
      needList: state.needList,
      attempt: state.attempt,
    }).toMatchObject(expected);
  });

  it.each<[string, 'list' | 'watch']>([
    ['listing', 'list'],
    ['watching', 'watch'],
  ])('stops when aborted while %s', (_name, during) => {
    const step = decideRecovery({
      state: resumed(),
      failure: { kind: 'aborted', during, events: 0, connectedMs: 0 },
      nowMs: 0,
      policy: WATCH_BACKOFF,
      random: MID,
    });
    expect(step).toEqual({ kind: 'stop' });
  });

  it('never waits longer than the cap, and never waits on a 410 of a watch that did not start from a fresh list', () => {
    const failure = fc.record({
      kind: fc.constantFrom<FailureKind>('gone', 'error', 'closed'),
      during: fc.constantFrom<'list' | 'watch'>('list', 'watch'),
      events: fc.nat({ max: 3 }),
      connectedMs: fc.nat({ max: 2_000 }),
      stepMs: fc.nat({ max: 10_000 }),
    });
    const happening = fc.oneof(fc.constantFrom<RecoverySuccess>('listed', 'watching'), failure);
    fc.assert(
      fc.property(
        fc.array(happening, { maxLength: 30 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (hs, random) => {
          let state = initialRecovery(false);
          let nowMs = 0;
          for (const h of hs) {
            if (typeof h === 'string') {
              state = afterSuccess(state, h);
              continue;
            }
            nowMs += h.stepMs;
            const step = decideRecovery({ state, failure: h, nowMs, policy: WATCH_BACKOFF, random });
            if (step.kind !== 'retry') return;
            expect(step.delayMs).toBeLessThanOrEqual(WATCH_BACKOFF.maxMs);
            if (h.kind === 'gone' && h.during === 'watch' && (!state.freshList || h.events > 0)) {
              expect(step.delayMs).toBe(0);
            }
            state = step.state;
          }
        },
      ),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { parseFaultCommand } from './fault-control.ts';

describe('parseFaultCommand', () => {
  it.each([
    ['a cut', { op: 'cut', link: 'agent:member1' }, { op: 'cut', link: 'agent:member1' }],
    [
      'a timed blackhole',
      { op: 'blackhole', link: 'controlplane', forMs: 15_000 },
      { op: 'blackhole', link: 'controlplane', forMs: 15_000 },
    ],
    [
      'a delay of 0 ms',
      { op: 'delay', link: 'agent-member:member2', delayMs: 0 },
      { op: 'delay', link: 'agent-member:member2', delayMs: 0 },
    ],
    ['restore of every link', { op: 'restore' }, { op: 'restore' }],
    [
      'restore of one link',
      { op: 'restore', link: 'probe:member1' },
      { op: 'restore', link: 'probe:member1' },
    ],
    [
      'a timed control-plane kill',
      { op: 'kill-control-plane', forMs: 120_000 },
      { op: 'kill-control-plane', forMs: 120_000 },
    ],
    ['a control-plane resume', { op: 'resume-control-plane', forMs: 5 }, { op: 'resume-control-plane' }],
    [
      'an agent restart',
      { op: 'restart-agent', member: 'member1' },
      { op: 'restart-agent', member: 'member1' },
    ],
  ] as const)('accepts %s', (_name, body, expected) => {
    expect(parseFaultCommand(body)).toEqual(expected);
  });

  it.each([
    ['no object', 'cut', 'a fault command is a JSON object'],
    ['an unknown op', { op: 'melt' }, 'op must be one of cut, blackhole, delay'],
    ['a cut without a link', { op: 'cut' }, 'link is required'],
    ['a delay without its latency', { op: 'delay', link: 'controlplane' }, 'delayMs is required'],
    ['a negative delay', { op: 'delay', link: 'controlplane', delayMs: -1 }, 'delayMs must be a duration'],
    [
      'a duration given as text',
      { op: 'cut', link: 'controlplane', forMs: '15s' },
      'forMs must be a duration',
    ],
    ['an empty link to restore', { op: 'restore', link: '' }, 'link is required'],
    ['a restart without a member', { op: 'restart-agent' }, 'member is required'],
    [
      'every problem at once',
      { op: 'delay', forMs: -5 },
      'forMs must be a duration in ms, got -5; delayMs is required; link is required',
    ],
  ] as const)('refuses %s', (_name, body, message) => {
    expect(() => parseFaultCommand(body)).toThrow(message);
  });
});

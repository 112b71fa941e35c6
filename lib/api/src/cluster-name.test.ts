import { describe, expect, it } from 'vitest';
import { clusterNameProblem } from './cluster-name.ts';

describe('clusterNameProblem', () => {
  it.each<[string, string | undefined]>([
    ['member1', undefined],
    ['a', undefined],
    ['x'.repeat(48), undefined],
    ['', 'is required'],
    ['x'.repeat(49), 'must be at most 48 characters, got 49'],
    ['Member1', expect.stringMatching(/^must be a DNS label/)],
    ['-member', expect.stringMatching(/^must be a DNS label/)],
    ['member_1', expect.stringMatching(/^must be a DNS label/)],
    ['member.1', expect.stringMatching(/^must be a DNS label/)],
  ])('%j: %s', (name, problem) => {
    expect(clusterNameProblem(name)).toEqual(problem);
  });
});

import { expect, it } from 'vitest';
import { enabledControllers } from './enabled.ts';

it.each([
  [['*'], ['clusterStatus', 'execution', 'workStatus']],
  [
    ['*', '-execution'],
    ['clusterStatus', 'workStatus'],
  ],
  [
    ['-execution', '*'],
    ['clusterStatus', 'workStatus'],
  ],
  [['execution', '-execution'], ['execution']],
  [['clusterStatus'], ['clusterStatus']],
  [[], []],
  [
    ['*', 'certRotation'],
    ['clusterStatus', 'execution', 'workStatus'],
  ],
])('--controllers=%j enables %j', (entries, enabled) => {
  expect(enabledControllers(entries)).toEqual(enabled);
});

it('refuses unknown controller names', () => {
  expect(() => enabledControllers(['*', '-nope'])).toThrow(/unknown controller\(s\) -nope/);
});

import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Integration files that measure how fast something reacts to a fault (and start many clusters to
 * do it) run alone, after the others, so that the figures they print and the bounds they check are
 * not those of a machine shared with another file's clusters.
 */
const RUN_ALONE = ['test/e2e/partitions.int.test.ts'];

const INTEGRATION = [
  'lib/*/test/**/*.int.test.ts',
  '{agent,probe,controlplane}/test/**/*.int.test.ts',
  'test/**/*.int.test.ts',
];

const integrationTimeouts = { testTimeout: 180_000, hookTimeout: 240_000 };

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['lib/*/src/**/*.test.ts', '{agent,probe,controlplane}/src/**/*.test.ts'],
          testTimeout: 10_000,
        },
      },
      {
        // Most integration files spend their time waiting on grace periods and timers, so two run
        // side by side (each starts its own servers on ports of its own).
        test: {
          name: 'integration',
          include: INTEGRATION,
          exclude: [...configDefaults.exclude, ...RUN_ALONE],
          ...integrationTimeouts,
          pool: 'forks',
          fileParallelism: true,
          maxWorkers: 2,
        },
      },
      {
        test: {
          name: 'integration-alone',
          include: RUN_ALONE,
          ...integrationTimeouts,
          pool: 'forks',
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});

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
          // Unit files share their workers' module graph: isolating each file re-imported it, which
          // took 70 % of their time (89 s against 26 s for the 244 files on two cores). They keep
          // no state between files that another reads; stubbed env vars and globals are undone.
          isolate: false,
          unstubEnvs: true,
          unstubGlobals: true,
          // A project whose workers differ from another's needs a group of its own: last.
          sequence: { groupOrder: 2 },
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

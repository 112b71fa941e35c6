import { defineConfig } from 'vitest/config';

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
        test: {
          name: 'integration',
          include: [
            'lib/*/test/**/*.int.test.ts',
            '{agent,probe,controlplane}/test/**/*.int.test.ts',
            'test/**/*.int.test.ts',
          ],
          testTimeout: 180_000,
          hookTimeout: 240_000,
          pool: 'forks',
          fileParallelism: false,
        },
      },
    ],
  },
});

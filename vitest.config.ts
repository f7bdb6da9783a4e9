import { defineConfig } from 'vitest/config';

// Two projects: pure unit tests run in parallel; interop tests drive real daemons in network
// namespaces, need root, and run one file at a time so labs never overlap.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/interop/**'],
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'interop',
          include: ['test/interop/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});

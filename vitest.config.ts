import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // the machine has 2 cores; suites start real servers
    maxWorkers: 2,
    pool: 'forks',
  },
});

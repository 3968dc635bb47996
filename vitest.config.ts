import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Most end-to-end tests wait on sockets and timers, not the CPU: more workers than cores overlap those waits.
    maxWorkers: 4,
  },
});

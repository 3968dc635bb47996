import { defineConfig } from 'vitest/config';

/**
 * Unit test files that start processes (bubblewrap, git, redis-server, MCP stdio servers, tsc/esbuild,
 * docker) or whole-app harnesses: they run with the end-to-end files, each in a fresh process.
 */
const HEAVY_UNIT_FILES = [
  'tests/unit/agent/command-sandbox-path.test.ts',
  'tests/unit/app/model-servers-redis.test.ts',
  'tests/unit/commands/copied-approval.test.ts',
  'tests/unit/commands/forged-approval.test.ts',
  'tests/unit/commands/mcp-tools.test.ts',
  'tests/unit/commands/secrets-everywhere.test.ts',
  'tests/unit/config/redis-password-setting.test.ts',
  'tests/unit/coordination/coordination-contract.test.ts',
  'tests/unit/data/created-extensions-start.test.ts',
  'tests/unit/docker/**/*.test.ts',
  'tests/unit/project/build-stamp.test.ts',
  'tests/unit/project/precompiled-validators.test.ts',
  'tests/unit/safety/bubblewrap-sandbox.test.ts',
  'tests/unit/safety/fallback-sandbox.test.ts',
  'tests/unit/safety/open-beneath.test.ts',
  'tests/unit/safety/process-runner.test.ts',
  'tests/unit/safety/sandbox-escape.test.ts',
  'tests/unit/safety/sandbox-host-reach.test.ts',
  'tests/unit/safety/sandbox-stdin.test.ts',
  'tests/unit/safety/secret-encodings.test.ts',
  'tests/unit/store/audit-log.test.ts',
  'tests/unit/store/redis-store.test.ts',
  'tests/unit/tools/command-race.test.ts',
  'tests/unit/tools/file-tools.test.ts',
  'tests/unit/tools/git-hardening.test.ts',
  'tests/unit/tools/mcp/**/*.test.ts',
  'tests/unit/tools/staging-git.test.ts',
  'tests/unit/workflows/goal/staging-build.test.ts',
  'tests/unit/workflows/goal/staging-inbox.test.ts',
  'tests/unit/workflows/goal/staging-links.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Most end-to-end tests wait on sockets and timers, not the CPU: more workers than cores overlap those waits.
    maxWorkers: 4,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          exclude: HEAVY_UNIT_FILES,
          // The files share one module graph per worker: the engine's ~350 modules load once per worker, not
          // once per file. No unit file mocks modules or changes process.env; private-files restores the umask
          // after each test, and the nock files restore node:http in afterAll (nock left active breaks keep-alive
          // in the next file). Forks, not threads: worker threads cannot set the umask.
          pool: 'forks',
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['tests/e2e/**/*.test.ts', 'tests/contract/**/*.test.ts', 'tests/emulators/**/*.test.ts', ...HEAVY_UNIT_FILES],
          pool: 'forks',
        },
      },
    ],
  },
});

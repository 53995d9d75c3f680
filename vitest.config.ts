import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The command and the package are tested as built (dist/), built once per run.
    globalSetup: ['test/build-once.ts'],
    // Tests spawn real MCP servers as child processes; give them room on a 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});

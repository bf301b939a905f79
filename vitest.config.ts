import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Three layers, each its own vitest project (`npm run test:unit`, `test:integration`,
 * `test:e2e`; `npm test` runs all three, as CI does), and the real-server
 * integration files once more against two HTTP fronts (`integration-fronts`):
 * - unit: in-process, no sockets and no child servers: the domain core, the
 *   engine against the reference verdicts, the checkers, the HTTP layer through
 *   `app.request()` with a fake solve.
 * - integration: a real worker pool, real servers on loopback ports, CLI child
 *   processes, Redis.
 * - e2e: headless Chromium against the built page and the browser SDK.
 *
 * Scheduling: the unit files run first, at least two at a time, also on CI's
 * 2 cores (each is one process with no child servers, and no timing bound
 * under seconds); then (`sequence.groupOrder` 1) the integration and e2e
 * files, with vitest's default of one file fewer than the cores, which is one
 * at a time on 2 cores, as before: they measure RSS, time cancellations, start
 * servers and 2-thread worker pools and run `--threads 2` solves, which a
 * second file beside them would starve.
 */
/**
 * The integration files that start the real service through
 * tests/helpers/server-process.ts: run a second time (project
 * `integration-fronts`) against servers of two HTTP fronts
 * (`SERVER_FRONTS=2`, i.e. `FRONTS=2`, one solver thread each), which must
 * pass them as one front does.
 */
const SERVER_PROCESS_FILES = ['tests/integration/sdk.test.ts', 'tests/integration/batches-server.test.ts', 'tests/integration/server-timeouts.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'unit', include: ['tests/unit/**/*.test.ts'], maxWorkers: Math.max(2, availableParallelism() - 1) } },
      { extends: true, test: { name: 'integration', include: ['tests/integration/**/*.test.ts'], sequence: { groupOrder: 1 } } },
      {
        extends: true,
        test: { name: 'integration-fronts', include: SERVER_PROCESS_FILES, env: { SERVER_FRONTS: '2' }, sequence: { groupOrder: 1 } },
      },
      { extends: true, test: { name: 'e2e', include: ['tests/e2e/**/*.test.ts'], sequence: { groupOrder: 1 } } },
    ],
  },
});

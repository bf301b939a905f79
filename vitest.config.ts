import { defineConfig } from 'vitest/config';

/**
 * Three layers, each its own vitest project (`npm run test:unit`, `test:integration`,
 * `test:e2e`; `npm test` runs all three, as CI does):
 * - unit: in-process, no sockets and no child servers: the domain core, the
 *   engine against the reference verdicts, the checkers, the HTTP layer through
 *   `app.request()` with a fake solve.
 * - integration: a real worker pool, real servers on loopback ports, CLI child
 *   processes, Redis.
 * - e2e: headless Chromium against the built page and the browser SDK.
 */
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'unit', include: ['tests/unit/**/*.test.ts'] } },
      { extends: true, test: { name: 'integration', include: ['tests/integration/**/*.test.ts'] } },
      { extends: true, test: { name: 'e2e', include: ['tests/e2e/**/*.test.ts'] } },
    ],
  },
});

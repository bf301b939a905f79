/**
 * Whether the real engine is built, for the suites that solve with it
 * through the worker pool. `npm test` builds it first (`pretest`); a bare
 * `npx vitest run` after a clean checkout may not have it. Without it those
 * suites are skipped locally with a warning, but fail under `CI=true`: CI
 * must never pass them silently (as tests/helpers/redis.ts does for Redis).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths.js';

/** The release engine `npm run asbuild` writes (absolute path). */
export const ENGINE_WASM = join(ROOT, 'build', 'engine.wasm');

/**
 * True when {@link ENGINE_WASM} exists; for `describe.skipIf(!engineBuilt())`.
 * @throws Error under `CI=true` when it does not.
 */
export function engineBuilt(): boolean {
  if (existsSync(ENGINE_WASM)) return true;
  if (process.env.CI === 'true') {
    throw new Error(`CI=true but the engine is not built (${ENGINE_WASM} is missing): run npm run asbuild before the tests`);
  }
  console.warn(`${ENGINE_WASM} is missing: the real-engine suites are skipped (npm run asbuild builds it)`);
  return false;
}

/**
 * The SDK's browser entry: everything of `index.ts`, with `createLocalSolver`
 * loading the engine from the Wasm file beside the package
 * (`build/engine.wasm`). `new URL(..., import.meta.url)` is the pattern
 * bundlers (Vite, webpack 5, Rollup, esbuild with a plugin) follow to copy the
 * file into the build and rewrite the URL.
 */
import { createLocalSolver as createWithEngine, type LocalSolver, type LocalSolverOptions } from './local.js';

export * from './index.js';

/** Where the engine's Wasm file is (after bundling: its URL in the build). */
export const ENGINE_WASM_URL = new URL('../../build/engine.wasm', import.meta.url);

/**
 * `createLocalSolver` for browsers: the engine comes from `ENGINE_WASM_URL`
 * unless `options.wasm` says otherwise.
 */
export function createLocalSolver(options: LocalSolverOptions = {}): Promise<LocalSolver> {
  return createWithEngine({ wasm: ENGINE_WASM_URL, ...options });
}

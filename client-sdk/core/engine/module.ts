/**
 * Where the engine's Wasm module comes from: compiled from bytes, a fetch
 * `Response` or a URL (`compileEngine`), or, in Node, from the package's
 * own build/engine.wasm (`loadEngineModule`). The result is instantiated
 * per thread by `Engine.instantiate` (engine.ts).
 */

let compiled: Promise<WebAssembly.Module> | undefined;

/**
 * Where the engine's Wasm can come from: an already compiled module, its
 * bytes, a fetch `Response`, or a URL (`file:` read from disk under Node,
 * anything else fetched).
 */
export type EngineSource = WebAssembly.Module | ArrayBuffer | ArrayBufferView | Response | URL | string;

/**
 * Compiles the engine from `source` (see `EngineSource`). Works in Node and in
 * browsers: nothing here imports a Node module unless `source` is a `file:`
 * URL, and that import is dynamic, so bundlers leave it out of browser code.
 * @throws Error when the URL cannot be fetched (with its HTTP status) or the
 *   bytes are not a valid Wasm module.
 */
export async function compileEngine(source: EngineSource): Promise<WebAssembly.Module> {
  if (source instanceof WebAssembly.Module) return source;
  if (typeof Response !== 'undefined' && source instanceof Response) {
    if (!source.ok) throw new Error(`cannot load the engine: HTTP ${source.status} for ${source.url}`);
    return WebAssembly.compile(await source.arrayBuffer());
  }
  if (typeof source === 'string' || source instanceof URL) {
    const url = new URL(source, typeof location !== 'undefined' ? location.href : undefined);
    if (url.protocol === 'file:') {
      // A variable specifier keeps bundlers from pulling node:fs into browser code.
      const fsModule = 'node:fs/promises';
      const { readFile } = (await import(/* @vite-ignore */ fsModule)) as typeof import('node:fs/promises');
      return WebAssembly.compile(await readFile(url));
    }
    return compileEngine(await fetch(url));
  }
  return WebAssembly.compile(source as BufferSource);
}

/**
 * Compiles `build/engine.wasm` (resolved through the package.json `imports`
 * entry `#engine-wasm`) once per process and returns the module; it can be
 * passed to worker threads, which instantiate it with `Engine.instantiate`.
 * Node only (browsers: `compileEngine` with the Wasm file's URL).
 * @throws when the file is missing (run `npm run asbuild`).
 */
export function loadEngineModule(): Promise<WebAssembly.Module> {
  compiled ??= (async () => compileEngine(new URL(import.meta.resolve('#engine-wasm'))))();
  return compiled;
}

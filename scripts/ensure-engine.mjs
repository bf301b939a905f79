#!/usr/bin/env node
/**
 * Builds the Wasm engine (`npm run asbuild`) only when `build/engine.wasm` is
 * missing or older than its sources (assembly/**, asconfig.json): the CLI
 * tools (`npm run solve`, `batch`, `build:sdk`) start with this instead of
 * recompiling the engine every time (about 8 s of CPU before a 5 ms solve).
 * Prints nothing when the engine is up to date; exits with the compiler's
 * status when a build fails.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const wasm = join(root, 'build', 'engine.wasm');

/** Newest modification time (ms) of the files under `dir` (recursively). */
function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

const sources = Math.max(newest(join(root, 'assembly')), statSync(join(root, 'asconfig.json')).mtimeMs);
if (!existsSync(wasm) || statSync(wasm).mtimeMs < sources) {
  process.stderr.write('building the engine (build/engine.wasm is missing or older than assembly/)\n');
  try {
    execFileSync('npm', ['run', 'asbuild', '--silent'], { cwd: root, stdio: 'inherit' });
  } catch (err) {
    process.exit(typeof err.status === 'number' ? err.status : 1);
  }
}

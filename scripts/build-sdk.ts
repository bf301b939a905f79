/**
 * Builds the publishable SDK package into `dist/sdk/` (or the folder given as
 * the first argument):
 *
 *   dist/sdk/package.json      from client-sdk/sdk.package.json (exports map, imports, deps)
 *   dist/sdk/lib/{core,api,sdk}/*.js, *.d.ts  client-sdk/ compiled by tsc (client-sdk/tsconfig.sdk.json)
 *   dist/sdk/build/engine.wasm the engine (same relative place as in this repo,
 *                              so `#engine-wasm` and the browser entry's
 *                              `new URL('../../build/engine.wasm', import.meta.url)` hold)
 *   dist/sdk/README.md         client-sdk/README.md
 *
 *   npm run build:sdk && cd dist/sdk && npm pack
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = resolve(process.argv[2] ?? join(root, 'dist', 'sdk'));
rmSync(out, { recursive: true, force: true });
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'client-sdk', 'tsconfig.sdk.json'), '--outDir', join(out, 'lib')], { stdio: 'inherit' });
mkdirSync(join(out, 'build'), { recursive: true });
copyFileSync(join(root, 'build', 'engine.wasm'), join(out, 'build', 'engine.wasm'));
copyFileSync(join(root, 'client-sdk', 'sdk.package.json'), join(out, 'package.json'));
copyFileSync(join(root, 'client-sdk', 'README.md'), join(out, 'README.md'));
console.log(`SDK package in ${out}`);

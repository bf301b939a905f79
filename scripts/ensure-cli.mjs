#!/usr/bin/env node
/**
 * Compiles `server/` and `client-sdk/` into `dist/` (`npm run build:cli`)
 * only when `dist/server/cli/main.js` (the `solitaire-solver` bin) is
 * missing or older than a `.ts` file under them or than tsconfig.json /
 * tsconfig.build.json. tsc rewrites every output file of a build, so the
 * bin's time stands for all of dist/. Run by the `prepare` script (npm ci,
 * npm install, npm pack, and npx's first run in a checkout, which runs
 * `prepare` again) and by the bin itself in a checkout (server/cli/main.ts),
 * so neither compiles twice nor runs stale code. Prints one line on stderr
 * when it builds; exits with tsc's status when the build fails.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'dist', 'server', 'cli', 'main.js');

/** Newest modification time (ms) of the `.ts` files under `dir`, recursively. */
function newestSource(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newestSource(p));
    else if (e.name.endsWith('.ts')) t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
}

const sources = Math.max(
  newestSource(join(root, 'server')),
  newestSource(join(root, 'client-sdk')),
  statSync(join(root, 'tsconfig.json')).mtimeMs,
  statSync(join(root, 'tsconfig.build.json')).mtimeMs,
);
if (!existsSync(bin) || statSync(bin).mtimeMs < sources) {
  process.stderr.write('building dist/ (missing or older than server/ or client-sdk/): npm run build:cli\n');
  try {
    execFileSync('npm', ['run', 'build:cli', '--silent'], { cwd: root, stdio: ['ignore', 2, 2] });
  } catch (err) {
    process.exit(typeof err.status === 'number' ? err.status : 1);
  }
}

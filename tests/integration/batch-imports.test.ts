/**
 * The Redis batch worker stands apart from the embedded (SQLite) backend:
 * both depend on the shared batch model (server/batches/model.ts), neither
 * on the other, so a worker process (`npm run worker`) never loads
 * better-sqlite3. Checked in a fresh Node process, which imports the modules
 * and lists the CommonJS modules it loaded (better-sqlite3 is one).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';

/** The files (absolute) of the CommonJS packages loaded after importing `modules` (paths relative to ROOT). */
function packagesLoadedBy(modules: string[]): string[] {
  const script = `
    import { createRequire } from 'node:module';
    import { pathToFileURL } from 'node:url';
    for (const m of ${JSON.stringify(modules)}) await import(pathToFileURL(m).href);
    const loaded = Object.keys(createRequire(import.meta.url).cache);
    console.log(JSON.stringify(loaded.filter((p) => p.includes('/node_modules/'))));
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(out) as string[];
}

/** The local modules `server/batch-worker-main.ts` imports (its own top level starts a worker, so it is not imported itself). */
function workerMainImports(): string[] {
  const source = readFileSync(join(ROOT, 'server/batch-worker-main.ts'), 'utf8');
  return [...source.matchAll(/^import [^;]*? from '(\.[^']+)';$/gm)].map((m) => join(ROOT, 'server', m[1].replace(/\.js$/, '.ts')));
}

const usesSqlite = (files: string[]) => files.some((f) => f.includes('/node_modules/better-sqlite3/'));

describe('the Redis batch worker loads no SQLite', () => {
  it('the modules of server/batch-worker-main.ts load bullmq but not better-sqlite3', () => {
    const modules = workerMainImports();
    expect(modules).toContain(join(ROOT, 'server/batches/redis/consumer.ts'));
    const loaded = packagesLoadedBy(modules);
    expect(loaded.some((f) => f.includes('/node_modules/bullmq/'))).toBe(true);
    expect(usesSqlite(loaded)).toBe(false);
  });

  it('the check sees better-sqlite3 when the embedded store is imported', () => {
    expect(usesSqlite(packagesLoadedBy([join(ROOT, 'server/batches/embedded/store.ts')]))).toBe(true);
  });
});

/**
 * The solve, batch and check-proof tools resolve relative paths from the folder the
 * user is in: `npm run solve` runs in the package root
 * and passes that folder as INIT_CWD; a tool run directly has its working
 * directory there.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { formatBoard } from '../../client-sdk/core/board.js';
import { generateDeal } from '../../client-sdk/core/deals/index.js';
import { findPreset } from '../../client-sdk/core/rules.js';
import { workerExecArgv } from '../../server/pool.js';
import { ROOT } from '../helpers/paths.js';

const user = mkdtempSync(join(tmpdir(), 'cli-paths-'));
afterAll(() => rmSync(user, { recursive: true, force: true }));
// MS FreeCell 11982: unsolvable, so --proof writes a certificate.
writeFileSync(join(user, 'myboard.txt'), formatBoard(generateDeal('freecell', 'ms', 11982).layout, findPreset('freecell')!.rules));

function tool(file: string, args: string[], how: 'npm' | 'direct') {
  // tsx by absolute URL: the direct run's working directory is outside the package.
  return spawnSync(process.execPath, [...workerExecArgv(file), join(ROOT, file), ...args], {
    cwd: how === 'npm' ? ROOT : user,
    encoding: 'utf8',
    env: { ...process.env, INIT_CWD: how === 'npm' ? user : '' },
  });
}

describe('relative paths of the command-line tools', () => {
  for (const how of ['npm', 'direct'] as const) {
    it(`--board and --proof resolve where the user stands (${how === 'npm' ? 'npm run: INIT_CWD' : 'run directly: cwd'})`, () => {
      const proof = `x-${how}.gz`;
      const r = tool('server/cli/solve.ts', ['--game', 'freecell', '--board', 'myboard.txt', '--proof', proof], how);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/unsolvable/);
      expect(existsSync(join(user, proof))).toBe(true);
      expect(existsSync(join(ROOT, proof))).toBe(false);
      const check = tool('server/cli/check-proof.ts', [proof], how);
      expect(check.status, check.stderr).toBe(0);
    });
  }

  it('batch refuses, before solving, an --out it cannot write and a --db in a missing folder or not a database: one line, exit 2', () => {
    const batch = (args: string[]) => tool('server/cli/batch.ts', ['--game', 'freecell', '--deals', '1', '--quiet', '--threads', '1', ...args], 'npm');
    const missing = join(user, 'no-such-folder');
    const faults: [string[], string][] = [
      [['--out', join(missing, 'x.ndjson')], `error invalid_request: --out ${join(missing, 'x.ndjson')}: cannot be written (ENOENT): the directory ${missing} does not exist`],
      [['--out', user], `error invalid_request: --out ${user}: is a directory`],
      [['--db', join(missing, 'x.sqlite')], `error invalid_request: --db ${join(missing, 'x.sqlite')}: the directory ${missing} does not exist; create it first`],
    ];
    writeFileSync(join(user, 'junk.sqlite'), 'not a database, only text\n'.repeat(200));
    faults.push([['--db', 'junk.sqlite'], `error invalid_request: --db ${join(user, 'junk.sqlite')}: cannot open it as a batch database (SQLITE_NOTADB: file is not a database)`]);
    // a SQLite file of another program: refused, and left as it was (no batch tables, its journal mode kept)
    const foreign = new Database(join(user, 'other.sqlite'));
    foreign.exec('CREATE TABLE notes (body TEXT)');
    foreign.close();
    faults.push([
      ['--db', 'other.sqlite'],
      `error invalid_request: --db ${join(user, 'other.sqlite')}: cannot open it as a batch database (NOT_A_BATCH_DATABASE: it holds tables of another program (notes); a batch database holds only the tables batches, results and spans)`,
    ]);
    // another program's table that happens to be called batches (its columns are not the store's)
    const namesake = new Database(join(user, 'namesake.sqlite'));
    namesake.exec('CREATE TABLE batches (name TEXT, qty INTEGER)');
    namesake.close();
    const namesakeBytes = readFileSync(join(user, 'namesake.sqlite'));
    faults.push([
      ['--db', 'namesake.sqlite'],
      `error invalid_request: --db ${join(user, 'namesake.sqlite')}: cannot open it as a batch database (NOT_A_BATCH_DATABASE: it holds tables of another program (batches); a batch database holds only the tables batches, results and spans)`,
    ]);
    for (const [args, message] of faults) {
      const r = batch(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toBe(`${message}\n`);
      expect(r.stdout).toBe('');
    }
    // nothing was made on the way: no folder for the --db, no file for the --out, no table in the other program's file
    expect(existsSync(missing)).toBe(false);
    expect(readFileSync(join(user, 'namesake.sqlite')).equals(namesakeBytes)).toBe(true);
    expect(existsSync(join(user, 'namesake.sqlite-wal'))).toBe(false);
    const after = new Database(join(user, 'other.sqlite'), { readonly: true });
    try {
      expect(after.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all()).toEqual(['notes']);
      expect(after.pragma('journal_mode', { simple: true })).toBe('delete');
    } finally {
      after.close();
    }
    // a --db in a folder that exists is created and the batch runs, relative to where the user stands
    const ok = batch(['--db', 'fresh.sqlite', '--out', 'fresh.ndjson']);
    expect(ok.status, ok.stderr).toBe(0);
    expect(existsSync(join(user, 'fresh.sqlite'))).toBe(true);
    expect(readFileSync(join(user, 'fresh.ndjson'), 'utf8').trim().split('\n')).toHaveLength(1);
  }, 120_000);

  it('a missing relative file is reported with the path it was looked for at', () => {
    const r = tool('server/cli/solve.ts', ['--game', 'freecell', '--board', 'nope.txt'], 'npm');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(join(user, 'nope.txt'));
  });
});

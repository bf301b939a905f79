/**
 * The installed command, `solitaire-solver` (package.json `bin`): compiled
 * JavaScript from dist/ run by node, not tsx. In a checkout it rebuilds
 * dist/ first when a source is newer (scripts/ensure-cli.mjs), so the test
 * runs what the sources say; `npm ci` (the `prepare` script) has built it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SolveResponseSchema } from '../../client-sdk/api/schemas.js';
import { expectCheckedAnswer } from '../helpers/answers.js';
import { ROOT } from '../helpers/paths.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  bin: Record<string, string>;
  scripts: Record<string, string>;
  files: string[];
  dependencies: Record<string, string>;
};
const bin = join(ROOT, pkg.bin['solitaire-solver']);

/** Runs the bin with node from a scratch folder (not the checkout's root). */
function run(args: string[]) {
  const cwd = mkdtempSync(join(tmpdir(), 'cli-bin-'));
  try {
    return spawnSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8', env: { ...process.env, INIT_CWD: '' } });
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

describe('solitaire-solver (the bin)', () => {
  it('is compiled JavaScript with a node shebang, built by prepare, and ships the engine', () => {
    expect(pkg.bin['solitaire-solver']).toBe('dist/server/cli/main.js');
    expect(pkg.scripts.prepare).toBe('node scripts/ensure-engine.mjs && node scripts/ensure-cli.mjs');
    expect(pkg.files).toContain('build/engine.wasm');
    // batch's progress bar is loaded at run time: a devDependency would be missing in an installed package
    expect(pkg.dependencies['cli-progress']).toBeDefined();
  });

  it('solve: MS FreeCell 1 as JSON, solved, and its moves replay with the independent checker', { timeout: 180_000 }, () => {
    const r = run(['solve', '--game', 'freecell', '--deal', '1', '--fast', '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    const answer = SolveResponseSchema.parse(JSON.parse(r.stdout));
    expect(answer.verdict).toBe('solved');
    expect(answer.game).toBe('freecell');
    expectCheckedAnswer(answer);
  });

  it('a checkout with an up-to-date dist/ is not rebuilt (prepare and the bin check, they do not compile every time)', () => {
    const before = statSync(bin).mtimeMs;
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts/ensure-cli.mjs')], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(statSync(bin).mtimeMs).toBe(before);
  });

  it('solve --help says what --layered is for (proving unsolvable) and sends a maybe-solvable deal to --deep', () => {
    const help = run(['solve', '--help']);
    expect(help.status, help.stderr).toBe(0);
    const layered = help.stdout.slice(help.stdout.indexOf('  --layered'), help.stdout.indexOf('  --progress')).replace(/\s+/g, ' ');
    expect(layered).toMatch(/it is for proving a deal unsolvable; a deal that may be solvable wants --deep \(the best-first search first\)/);
  });

  it('docs/cli.md runs the tool by commands that exist in a clone (no node_modules/.bin/solitaire-solver: npm does not link a package\'s own bin)', () => {
    const doc = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
    const uses = [...doc.matchAll(/`node_modules\/\.bin\/solitaire-solver[^`]*`/g)].map((m) => m[0]);
    expect(uses).toEqual([]);
    expect(doc).toContain('`node dist/server/cli/main.js solve`');
    expect(`node ${pkg.bin['solitaire-solver']}`).toBe('node dist/server/cli/main.js');
  });

  it('bad input exits 2 with the error code; an unknown tool exits 2 and lists the tools', { timeout: 60_000 }, () => {
    const bad = run(['solve', '--game', 'freecell', '--deal', '0']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^error deal_out_of_range: /m);
    const unknown = run(['solv']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'solv'");
    for (const tool of ['solve', 'batch', 'check-proof']) expect(unknown.stderr).toContain(tool);
    // an unknown game is a usage error that lists the games (not the HTTP API's hint)
    for (const tool of ['solve', 'batch']) {
      const game = run([tool, '--game', 'nope', '--deal' + (tool === 'batch' ? 's' : ''), '1']);
      expect(game.status).toBe(2);
      expect(game.stderr).toContain("argument 'nope' is invalid");
      for (const id of ['freecell', 'king_albert', 'stronghold']) expect(game.stderr).toContain(id);
      expect(game.stderr).not.toContain('GET /v1/games');
    }
  });
});

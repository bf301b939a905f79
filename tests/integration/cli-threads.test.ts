/**
 * `solve --threads` (server/cli/two-threads.ts, docs/cli.md "Threads"): a
 * Castle-family solve runs its full search and its pooled pass side by side
 * on two worker threads (`--threads 2`, the default on two cores), or one
 * after the other on the main thread (`--threads 1`). Bounded by positions
 * and deadlines, not by how fast the machine is: every wait has a deadline
 * of its own far past what the search needs.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { workerExecArgv } from '../../server/pool.js';
import { ROOT } from '../helpers/paths.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-threads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tool(file: string, args: string[]) {
  return spawnSync(process.execPath, [...workerExecArgv(file), join(ROOT, file), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, INIT_CWD: ROOT },
    timeout: 120_000,
  });
}

const solve = (args: string[]) => tool('server/cli/solve.ts', ['--game', 'streets_and_alleys', '--fast', ...args]);

interface Answer {
  verdict: string;
  reason?: string;
  proof?: { positions: number; pools?: string[] };
  stats: { statesStored: number };
}

function answer(r: ReturnType<typeof solve>): Answer {
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Answer;
}

/** Lines of a progress report on stderr (the bars' glyphs left out). */
function progressLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => /positions/.test(l)).map((l) => l.replace(/[█░]/g, ''));
}

const REPORT = /\d+% of budget \| [\d,]+ positions \| [\d,-]+\/s \| \d+ MiB \| \d+ s$/;

describe('solve --threads', () => {
  it('--threads 2: Streets and Alleys 91 past the full search\'s reach is unsolvable by a pooled certificate that check-proof passes', () => {
    // the full search needs 273,713 positions, the pooled game of ♣♥ / ♦♠ 48,477: at 100,000 only a pooling decides
    const file = join(dir, 'sa91-pooled.proof.gz');
    const a = answer(solve(['--deal', '91', '--threads', '2', '--max-states', '100000', '--proof', file, '--json']));
    expect(a.verdict).toBe('unsolvable');
    expect(a.proof?.pools).toBeDefined();
    expect(a.proof!.positions).toBeLessThanOrEqual(100_000);
    const checked = tool('server/cli/check-proof.ts', [file]);
    expect(checked.status, checked.stdout + checked.stderr).toBe(0);
    expect(checked.stdout).toMatch(/^PASS: streets_and_alleys deal 91 .* is unsolvable/m);
    expect(checked.stdout).toContain(`pools ${a.proof!.pools!.join(' ')}`);
  });

  it('--threads 2 under the deep budget: the process exits as soon as one search decides (the other is stopped, not left to its 30 minutes)', () => {
    // whichever search decides 91 (the full one in about 274,000 positions, or a pooling), the other is stopped
    const r = solve(['--deal', '91', '--threads', '2', '--deep']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.error).toBeUndefined(); // not the spawn's 120 s timeout
    expect(r.stdout).toMatch(/unsolvable/);
    expect(r.stdout).toContain('threads 2: the full search and the pooled pass side by side');
    // with --proof, --deep keeps to one thread in these games (a layered certificate is streamed from this thread: docs/cli.md "Threads")
    const file = join(dir, 'sa91.proof.gz');
    const proved = solve(['--deal', '91', '--threads', '2', '--deep', '--proof', file]);
    expect(proved.status, proved.stderr).toBe(0);
    expect(proved.stdout).toMatch(/unsolvable/);
    // the full search decides 91 alone: the text says so, and names no pass that did not run
    expect(proved.stdout).toMatch(/^threads 1 \(--proof with the layered pass: its certificate streams from this thread\): the full search$/m);
    const checked = tool('server/cli/check-proof.ts', [file]);
    expect(checked.status, checked.stdout + checked.stderr).toBe(0);
  });

  it('--threads 1 keeps the sequential pass: the same pooled verdict after the full search, on one thread, and one unlabelled progress bar', () => {
    const seq = solve(['--deal', '91', '--threads', '1', '--max-states', '100000']);
    expect(seq.status, seq.stderr).toBe(0);
    expect(seq.stdout).toMatch(/unsolvable/);
    expect(seq.stdout).toMatch(/proof of the pooled game \(pools [CDHS ]+\)/);
    expect(seq.stdout).toContain('threads 1: the full search, then the pooled pass in the time it left');
    // Streets and Alleys 77 decides nothing in 2.5 s: the full search's one bar, in the format of a single search
    const shown = solve(['--deal', '77', '--threads', '1', '--timeout-ms', '2500', '--progress']);
    expect(shown.status, shown.stderr).toBe(0);
    const lines = progressLines(shown.stderr);
    expect(lines.length).toBeGreaterThanOrEqual(1);
    for (const line of lines) {
      expect(line).toMatch(new RegExp(`^ ${REPORT.source}`));
      expect(line).not.toMatch(/full search|pooled/);
    }
  });

  it('--threads 2 --progress shows both searches: the full search and the pooling the pooled pass searches', () => {
    // 77's ♥♠ pooling stays open for millions of positions, so the pooled pass reports within the deadline
    const shown = solve(['--deal', '77', '--threads', '2', '--timeout-ms', '8000', '--progress']);
    expect(shown.status, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/: unknown: stopped by the deadline \(timeout, 8,000 ms\) before a verdict$/m);
    const lines = progressLines(shown.stderr);
    const full = lines.filter((l) => l.startsWith('full search '));
    const pooled = lines.filter((l) => /^pooled [CDHS]+( [CDHS]+)+ /.test(l));
    expect(full.length).toBeGreaterThanOrEqual(1);
    expect(pooled.length).toBeGreaterThanOrEqual(1);
    for (const line of [...full, ...pooled]) expect(line).toMatch(REPORT);
  });

  it('refuses a bad --threads with a usage error (exit status 2), before any search', () => {
    for (const bad of ['0', '3', 'two', '1.5', '-1', '']) {
      const r = solve(['--deal', '1', '--threads', bad]);
      expect(r.status, bad).toBe(2);
      expect(r.stderr).toMatch(/--threads/);
      expect(r.stderr).toMatch(/expected 1 or 2/);
    }
  });

  it('a SIGINT stops both searches: the answer is unknown (cancelled), and the process exits with status 130', async () => {
    const file = 'server/cli/solve.ts';
    const child = spawn(process.execPath, [...workerExecArgv(file), join(ROOT, file), '--game', 'streets_and_alleys', '--fast', '--deal', '77', '--threads', '2', '--deep', '--progress'], {
      cwd: ROOT,
      env: { ...process.env, INIT_CWD: ROOT },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // interrupt once both searches have reported (the pooled pass runs beside the full one)
    await new Promise<void>((resolve, reject) => {
      const limit = setTimeout(() => reject(new Error(`no report of both searches within 90 s: ${stderr}`)), 90_000);
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        // under --deep the second thread begins with the guided pass (client-sdk/core/guided.ts), then the poolings
        if (/full search/.test(stderr) && /\n(pooled|guided pass) /.test(stderr)) {
          clearTimeout(limit);
          resolve();
        }
      });
    });
    child.kill('SIGINT');
    const code = await Promise.race([exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running 30 s after SIGINT'), 30_000))]);
    if (code === 'still running 30 s after SIGINT') child.kill('SIGKILL');
    expect(code).toBe(130);
    // a cancellation is not a budget: the sentence says so
    expect(stdout).toMatch(/: unknown: cancelled before a verdict$/m);
  }, 150_000);
});

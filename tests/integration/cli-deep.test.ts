/**
 * The deep budget of the offline tools (server/limits.ts `DeepBudget`,
 * docs/cli.md "Deep budget"): `npm run solve` and `npm run batch` take
 * budgets past the service's caps up to the DEEP_* maxima, `--deep` asks for
 * the whole deep budget, and a long solve shows its progress on stderr with
 * `--progress` (the service's own refusal of the same values is in
 * tests/integration/api.test.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DEEP_BUDGET, DEFAULT_LIMITS_CONFIG } from '../../server/limits.js';
import { workerExecArgv } from '../../server/pool.js';
import { ROOT } from '../helpers/paths.js';
import { layeredBody, parseLayeredBody } from '../../client-sdk/core/proof/layered-format.js';
import { spawnAsync } from '../helpers/spawn-async.js';

/** The arguments and spawn options of a CLI tool run from source, as `npm run solve` runs it. */
function toolCommand(file: string, args: string[], env: Record<string, string>) {
  const argv = [...workerExecArgv(file), join(ROOT, file), ...args];
  return { argv, options: { cwd: ROOT, env: { ...process.env, INIT_CWD: ROOT, ...env }, timeout: 120_000 } };
}

function tool(file: string, args: string[], env: Record<string, string> = {}) {
  const { argv, options } = toolCommand(file, args, env);
  return spawnSync(process.execPath, argv, { ...options, encoding: 'utf8' });
}

/**
 * `tool`, but asynchronous: for checks that are mostly the tool's start-up
 * (a refusal before any search, a budget of a few positions), run together
 * with `Promise.all` so the second core is not idle meanwhile. The searches
 * that take seconds stay on `tool`, one at a time.
 */
function toolAsync(file: string, args: string[], env: Record<string, string> = {}) {
  const { argv, options } = toolCommand(file, args, env);
  return spawnAsync(process.execPath, argv, options);
}

const STREETS_AND_ALLEYS = ['--game', 'streets_and_alleys', '--fast'];
const solve = (args: string[], env?: Record<string, string>) => tool('server/cli/solve.ts', [...STREETS_AND_ALLEYS, ...args], env);
const solveAsync = (args: string[], env?: Record<string, string>) => toolAsync('server/cli/solve.ts', [...STREETS_AND_ALLEYS, ...args], env);

/** `solve --deal 5 --json` (the full search, with its v1 proof), run once and shared by the tests that compare against it. */
let fullDeal5: ReturnType<typeof answer> | undefined;
const full5 = () => (fullDeal5 ??= answer(solve(['--deal', '5', '--json'])));

/** The JSON answer of `solve --json`. */
function answer(r: { status: number | null; stdout: string; stderr: string }): { verdict: string; reason?: string; stats: { statesStored: number; limits: { maxStates: number; timeoutMs: number } } } {
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe('npm run solve: the deep budget', () => {
  it('--deep asks for the deep budget: its positions and its 30 minutes, past the service caps', async () => {
    // Streets and Alleys 77 is unknown at 58 M positions: a 1 ms deadline keeps this short
    const [r, rt] = await Promise.all([solveAsync(['--deal', '77', '--deep', '--timeout-ms', '1', '--json']), solveAsync(['--deal', '77', '--deep', '--max-states', '1000', '--json'])]);
    const a = answer(r);
    expect(a.stats.limits.maxStates).toBe(DEFAULT_DEEP_BUDGET.maxStates);
    expect(a.stats.limits.maxStates).toBeGreaterThan(DEFAULT_LIMITS_CONFIG.maxStatesCap);
    expect(a).toMatchObject({ verdict: 'unknown', reason: 'timeout' });
    const t = answer(rt);
    expect(t.stats.limits.timeoutMs).toBe(DEFAULT_DEEP_BUDGET.timeoutMs);
    expect(t.stats.limits.timeoutMs).toBeGreaterThan(DEFAULT_LIMITS_CONFIG.timeoutMsCap);
    expect(t).toMatchObject({ verdict: 'unknown', reason: 'max_states', stats: { statesStored: 1000 } });
  });

  it('explicit limits past the service caps are taken without --deep; the defaults stay the game\'s', async () => {
    const [ra, rb, rc] = await Promise.all([
      solveAsync(['--deal', '77', '--max-states', String(DEFAULT_LIMITS_CONFIG.maxStatesCap + 1), '--timeout-ms', '1', '--json']),
      solveAsync(['--deal', '77', '--timeout-ms', String(DEFAULT_LIMITS_CONFIG.timeoutMsCap + 1), '--max-states', '1000', '--json']),
      solveAsync(['--deal', '1', '--json']),
    ]);
    const a = answer(ra);
    expect(a.stats.limits.maxStates).toBe(DEFAULT_LIMITS_CONFIG.maxStatesCap + 1);
    const b = answer(rb);
    expect(b.stats.limits.timeoutMs).toBe(DEFAULT_LIMITS_CONFIG.timeoutMsCap + 1);
    // no limits given: the Castle games' own defaults (client-sdk/core/rules.ts), not the deep budget
    const c = answer(rc);
    expect(c.stats.limits).toEqual({ maxStates: 30_000_000, timeoutMs: 60_000 });
  });

  it('refuses budgets past the deep maxima with bad_limits (exit status 2), and a bad DEEP_* variable', async () => {
    const mbs = ['4096', '15', 'lots'];
    const [states, time, env, zero, ...memories] = await Promise.all([
      solveAsync(['--deal', '1', '--max-states', '1001'], { DEEP_MAX_STATES: '1000' }),
      solveAsync(['--deal', '1', '--timeout-ms', String(DEFAULT_DEEP_BUDGET.timeoutMs + 1)]),
      solveAsync(['--deal', '1'], { DEEP_MAX_MEMORY_MB: '16385' }),
      solveAsync(['--deal', '1'], { DEEP_MAX_STATES: '0' }),
      ...mbs.map((mb) => solveAsync(['--deal', '1', '--max-memory-mb', mb])),
    ]);
    expect(states.status).toBe(2);
    expect(states.stderr).toMatch(/bad_limits.*1 to 1000/);
    expect(time.status).toBe(2);
    expect(time.stderr).toMatch(/bad_limits/);
    for (const [i, memory] of memories.entries()) {
      expect(memory.status, mbs[i]).toBe(2);
      expect(memory.stderr).toMatch(/bad_limits: --max-memory-mb must be an integer from 16 to 4095/);
    }
    expect(env.status).toBe(2);
    expect(env.stderr).toMatch(/^error bad_limits: .*DEEP_MAX_MEMORY_MB/m);
    expect(zero.status).toBe(2);
    expect(zero.stderr).toMatch(/^error bad_limits: .*DEEP_MAX_STATES/m);
  });

  it('--layered runs the layered complete pass alone: the full search\'s verdict and positions, no certificate; refused where it does not apply', () => {
    const full = full5();
    const layered = answer(solve(['--deal', '5', '--layered', '--json']));
    expect(layered).toMatchObject({ verdict: 'unsolvable', stats: { statesStored: full.stats.statesStored } });
    expect((layered as { proof?: unknown }).proof).toBeUndefined();
    expect((full as { proof?: unknown }).proof).toBeDefined();
    const text = solve(['--deal', '5', '--layered', '--threads', '1']);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/the layered pass held at most \d+ positions' keys/);
    // what ran: the layered pass alone (it decided), not "the full search, then the pooled pass"
    expect(text.stdout).toMatch(/^threads 1: the layered pass$/m);
    expect(full).toMatchObject({ verdict: 'unsolvable' });
    const freecell = tool('server/cli/solve.ts', ['--game', 'freecell', '--deal', '1', '--layered']);
    expect(freecell.status).toBe(2);
    expect(freecell.stderr).toMatch(/invalid_request: --layered applies only to the no-cell Castle games/);
  });

  it('past 4095 MiB (DEEP_MAX_MEMORY_MB up to 16384) the layered pass runs over ceil(cap / 2 GiB) engines; other searches are refused more than one engine\'s 4095', async () => {
    const env = { DEEP_MAX_MEMORY_MB: '16384' };
    // the refusals first, together: each ends before any search
    const [plain, freecell, beyond] = await Promise.all([
      solveAsync(['--deal', '5', '--max-memory-mb', '4096'], env),
      toolAsync('server/cli/solve.ts', ['--game', 'freecell', '--deal', '1', '--deep', '--max-memory-mb', '8192'], env),
      solveAsync(['--deal', '5', '--layered', '--max-memory-mb', '16385'], env),
    ]);
    const full = full5();
    const sharded = answer(solve(['--deal', '5', '--layered', '--max-memory-mb', '8193', '--json'], env));
    expect(sharded).toMatchObject({ verdict: 'unsolvable', stats: { statesStored: full.stats.statesStored } });
    const text = solve(['--deal', '5', '--layered', '--max-memory-mb', '12288'], env);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/engine memory cap 12288 MiB( a search)?; the layered pass held at most \d+ positions' keys over 6 engines \(at most \d+( \+ \d+){5}\)/);
    // --deep with the cap past 4095: the best-first search (one engine, 4095 MiB of it) decides deal 5, with its proof
    const deep = answer(solve(['--deal', '5', '--deep', '--max-memory-mb', '16384', '--json'], env));
    expect(deep).toMatchObject({ verdict: 'unsolvable', stats: { statesStored: full.stats.statesStored } });
    expect((deep as { proof?: unknown }).proof).toBeDefined();
    // no layered pass: one engine's most
    expect(plain.status).toBe(2);
    expect(plain.stderr).toMatch(/bad_limits: --max-memory-mb must be an integer from 16 to 4095 \(one wasm32 engine cannot pass 4 GiB; only the layered pass/);
    expect(freecell.status).toBe(2);
    expect(freecell.stderr).toMatch(/bad_limits/);
    expect(beyond.status).toBe(2);
  });

  it('--max-memory-mb caps the engine: a hard deal ends unknown/memory', () => {
    const a = answer(solve(['--deal', '77', '--deep', '--max-memory-mb', '32', '--json']));
    expect(a).toMatchObject({ verdict: 'unknown', reason: 'memory' });
  });

  it('the text answer of an unknown names the budget that ran out in words', async () => {
    const [states, memory] = await Promise.all([
      solveAsync(['--deal', '77', '--max-states', '1000', '--threads', '1']),
      solveAsync(['--deal', '77', '--max-memory-mb', '16', '--threads', '1']),
    ]);
    expect(states.status, states.stderr).toBe(0);
    expect(states.stdout).toMatch(/^Streets and Alleys, deal 77 \(pysolfc\): unknown: stopped by the state budget \(max_states, 1,000 positions\) before a verdict$/m);
    expect(memory.status, memory.stderr).toBe(0);
    expect(memory.stdout).toMatch(/: unknown: stopped by the engine memory cap \(memory\) before a verdict$/m);
  });

  it('whole-number options take decimal digits only, naming the option and the value; a negative deal is out of range', async () => {
    const bad = [['--max-states', '12abc'], ['--max-states', '1e3'], ['--timeout-ms', '1.5'], ['--optimize-ms', '-5'], ['--max-states', '']];
    const [spaced, negative, batch, ...refused] = await Promise.all([
      solveAsync(['--deal', '1', '--max-states', ' 1000 ', '--json']),
      solveAsync(['--deal', '-5']),
      toolAsync('server/cli/batch.ts', ['--game', 'streets_and_alleys', '--quiet', '--deals', '1', '--max-states', '1e3']),
      ...bad.map(([option, value]) => toolAsync('server/cli/solve.ts', ['--game', 'streets_and_alleys', '--deal', '1', option, value])),
    ]);
    for (const [i, [option, value]] of bad.entries()) {
      const r = refused[i];
      expect(r.status, `${option} ${value}`).toBe(2);
      expect(r.stderr).toBe(`error bad_limits: ${option} "${value}" is not a whole number: decimal digits only (such as 1000; no sign, point or exponent) (at ${option})\n`);
    }
    // digits with spaces around them are still a number
    expect(answer(spaced).stats.limits.maxStates).toBe(1000);
    expect(negative.status).toBe(2);
    expect(negative.stderr).toBe('error deal_out_of_range: deal number -5 is out of range: deal numbers start at 1 (at deal)\n');
    expect(batch.status).toBe(2);
    expect(batch.stderr).toMatch(/option '--max-states <n>' argument '1e3' is invalid\. expected a positive whole number in decimal digits/);
  });

  it('--layered --proof streams the layered certificate (v2), one engine and two; check-proof passes it and refuses it tampered; a --deep solve decided first writes v1', () => {
    const dir = mkdtempSync(join(tmpdir(), 'layered-proof-'));
    const full = full5();
    const fullProof = (full as unknown as { proof: { positions: number; fingerprint: string } }).proof;
    for (const [name, args, env] of [
      ['one', ['--max-memory-mb', '64'], {}],
      ['two', ['--max-memory-mb', '8193'], { DEEP_MAX_MEMORY_MB: '16384' }],
    ] as const) {
      const file = join(dir, `${name}.proof.gz`);
      const r = solve(['--deal', '5', '--layered', '--threads', '1', '--proof', file, '--json', ...args], env);
      const a = answer(r) as unknown as { verdict: string; proof: { positions: number; fingerprint: string } };
      expect(a.verdict).toBe('unsolvable');
      // the full search's set: same count, same (order-free) fingerprint
      expect(a.proof).toMatchObject({ positions: fullProof.positions, fingerprint: fullProof.fingerprint });
      expect(r.stderr).toMatch(new RegExp(`certificate: .*${name}\\.proof\\.gz \\(\\d+ bytes, layered: \\d+ layers, written as they closed\\)`));
      const check = tool('server/cli/check-proof.ts', [file]);
      expect(check.status, check.stdout + check.stderr).toBe(0);
      expect(check.stdout).toMatch(new RegExp(`PASS: streets_and_alleys deal 5 \\(pysolfc\\) is unsolvable[^\\n]*\\n  layered certificate [^\\n]*: ${fullProof.positions.toLocaleString('en-US')} positions in \\d+ layers`));
      const json = JSON.parse(tool('server/cli/check-proof.ts', [file, '--json']).stdout);
      expect(json).toMatchObject({ ok: true, kind: 'layered', positions: fullProof.positions, fingerprint: fullProof.fingerprint });
    }
    // the text answer of a layered --proof solve on one engine: what ran, and "one engine", not "over 1 engines"
    const text = solve(['--deal', '5', '--layered', '--threads', '2', '--max-memory-mb', '64', '--proof', join(dir, 'text.proof.gz')]);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/the layered pass held at most \d+ positions' keys on one engine \(\d+ purges\)/);
    expect(text.stdout).not.toMatch(/over 1 engines/);
    expect(text.stdout).toMatch(/^threads 1 \(--proof with the layered pass: its certificate streams from this thread\): the layered pass$/m);
    // the last layer's block dropped (its members are the file's last but one): refused, exit status 1
    const raw = gunzipSync(readFileSync(join(dir, 'one.proof.gz')));
    const tampered = join(dir, 'tampered.proof.gz');
    const parts = parseLayeredBody(raw);
    writeFileSync(tampered, gzipSync(layeredBody(parts.header, parts.blocks.slice(0, -1), parts.trailer)));
    const bad = tool('server/cli/check-proof.ts', [tampered]);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(/^FAIL \(not_closed\)/);
    // its place: the measure of the children no layer holds (and a layer, when a block is at fault)
    expect(bad.stdout).toMatch(/^FAIL \(not_closed\).*\n  at (layer \d+, )?measure \d+/);
    // --deep: the best-first search decides deal 5 first, so the certificate is v1 (sorted keys), checked as before
    const v1 = join(dir, 'deep.proof.gz');
    const deep = solve(['--deal', '5', '--deep', '--threads', '1', '--proof', v1]);
    expect(deep.status, deep.stderr).toBe(0);
    expect(JSON.parse(gunzipSync(readFileSync(v1)).subarray(0, gunzipSync(readFileSync(v1)).indexOf(10)).toString()).version).toBe(1);
    expect(tool('server/cli/check-proof.ts', [v1]).status).toBe(0);
  }, 240_000);

  it('--layered --proof that ends unknown leaves a file already at FILE as it was, and no partial file beside it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'layered-keep-'));
    const file = join(dir, 'kept.proof.gz');
    writeFileSync(file, 'an earlier certificate\n');
    // deal 77 is far from decided in 1.5 s: the layered pass writes layers, then ends unknown
    const r = solve(['--deal', '77', '--layered', '--threads', '1', '--timeout-ms', '1500', '--proof', file]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/no certificate written: the verdict is unknown/);
    expect(readFileSync(file, 'utf8')).toBe('an earlier certificate\n');
    expect(readdirSync(dir)).toEqual(['kept.proof.gz']);
  }, 60_000);

  it('--progress reports positions, rate, memory and elapsed on stderr; without it (not a terminal) nothing', () => {
    // 2.5 s of search however fast the engine is (deal 77 runs for minutes): a report a second
    const shown = solve(['--deal', '77', '--timeout-ms', '2500', '--progress']);
    expect(shown.status, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/: unknown: stopped by the deadline \(timeout, 2,500 ms\) before a verdict$/m);
    const lines = shown.stderr.split('\n').filter((l) => /positions/.test(l));
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines[0]).toMatch(/\d+% of budget \| [\d,]+ positions \| [\d,-]+\/s \| \d+ MiB \| \d+ s$/);
    const quiet = solve(['--deal', '77', '--timeout-ms', '1500']);
    expect(quiet.status).toBe(0);
    expect(quiet.stderr).not.toMatch(/positions/);
  });
});

describe('npm run batch: the deep budget', () => {
  const batch = (args: string[]) => toolAsync('server/cli/batch.ts', ['--game', 'streets_and_alleys', '--quiet', '--threads', '1', ...args]);

  it('takes --deep and limits past the service caps, per deal', async () => {
    const [r, past] = await Promise.all([
      batch(['--deals', '1,2', '--deep', '--max-states', '1000']),
      batch(['--deals', '1', '--max-states', String(DEFAULT_LIMITS_CONFIG.maxStatesCap + 1), '--timeout-ms', '1']),
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`budget per deal 1,000 states / ${DEFAULT_DEEP_BUDGET.timeoutMs} ms`);
    expect(past.status, past.stderr).toBe(0);
    expect(past.stdout).toContain(`budget per deal ${(DEFAULT_LIMITS_CONFIG.maxStatesCap + 1).toLocaleString('en')} states / 1 ms`);
  });

  it('--max-memory-mb caps each deal\'s engine, and is refused past DEEP_MAX_MEMORY_MB', async () => {
    const [r, bad, env] = await Promise.all([
      batch(['--deals', '77', '--deep', '--max-memory-mb', '32']),
      batch(['--deals', '1', '--max-memory-mb', '4096']),
      toolAsync('server/cli/batch.ts', ['--game', 'streets_and_alleys', '--quiet', '--deals', '1'], { DEEP_TIMEOUT_MS: '0' }),
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/unknown 1/);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/bad_limits/);
    expect(env.status).toBe(2);
    expect(env.stderr).toMatch(/^error bad_limits: .*DEEP_TIMEOUT_MS/m);
  });
});

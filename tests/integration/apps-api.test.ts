/**
 * The app endpoints through the HTTP API on the real worker pool (2
 * threads, so that positions are decided two at a time): `POST /v1/review`
 * (a real losing game reported at exactly its blunder, with a winning
 * alternative the checker accepts; an illegal move refused at its index),
 * `GET /v1/deals` (200 winnable Beleaguered Castle deals, each solution
 * replayed by the checker; the same seed gives the same deals),
 * `POST /v1/difficulty` (the k-cell solution through the checker, the
 * (k-1)-cell certificate through `check-proof`), the SDK's client on the
 * same routes, and the OpenAPI document.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DealsResponseSchema, DifficultyResponseSchema, ReviewResponseSchema } from '../../client-sdk/api/apps-schemas.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import type { SolveRequest } from '../../client-sdk/api/schemas.js';
import { formatBoard } from '../../client-sdk/core/board.js';
import { loadEngineModule } from '../../client-sdk/core/engine/index.js';
import { replayMoveList } from '../../client-sdk/core/move-list.js';
import { checkSolution } from '../../client-sdk/core/verify.js';
import { createClient } from '../../client-sdk/sdk/client.js';
import { createApp } from '../../server/app.js';
import { createPool, type SolverPool } from '../../server/pool.js';
import { buildLosingGame } from '../helpers/games.js';
import { post } from '../helpers/http.js';

let pool: SolverPool;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  pool = createPool({ module: await loadEngineModule(), threads: 2 });
  app = createApp({ solve: pool.solve, webRoot: null, parallelism: 2 });
});
afterAll(async () => {
  await pool.close();
});


async function ok<T>(res: Response, schema: { parse(x: unknown): T }): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return schema.parse(JSON.parse(text));
}

async function error(res: Response, status: number) {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return (JSON.parse(text) as { error: { code: string; message: string; path?: string; token?: string } }).error;
}

const LIMITS = { maxStates: 300_000, timeoutMs: 60_000 };

describe('POST /v1/review', () => {
  it('Beleaguered Castle #2: a solution prefix, a blunder and moves after it: lost at exactly the blunder, a checked alternative', async () => {
    const game = 'beleaguered_castle';
    const d = resolveDeal({ game, deal: 2 } as SolveRequest);
    const solution = await pool.solve(d, LIMITS);
    expect(solution.verdict).toBe('solved');
    const built = await buildLosingGame(d.rules, d.layout, solution.moves, (layout, limits) => pool.solve({ rules: d.rules, layout }, limits), {
      from: 2,
      step: 1,
      after: 5,
      limits: LIMITS,
    });
    expect(built).not.toBeNull();
    const review = await ok(await post(app, { game, deal: 2, moves: built!.entries, limits: LIMITS }, { path: '/v1/review' }), ReviewResponseSchema);
    expect(review.result).toBe('lost');
    expect(review.lost!.moveIndex).toBe(built!.blunder);
    expect(review.lost!.notation).toBe(built!.entries[built!.blunder]);
    expect(review.lost!.proof.positions).toBeGreaterThan(0);
    const before = replayMoveList(d.rules, d.layout, built!.entries.slice(0, built!.blunder)).positions[built!.blunder];
    expect(checkSolution(d.rules, before, review.alternative!.line.moves).ok).toBe(true);
    expect(review.alternative!.line.board).toBe(formatBoard(before, d.rules));
    expect(review.positions).toHaveLength(built!.entries.length + 1);
    expect(review.positions.filter((p) => p.verdict === 'solved')).toHaveLength(built!.blunder + 1);
    expect(review.stats.searches).toBeLessThan(review.positions.length);
    expect(built!.entries.length).toBe(built!.blunder + 1 + 5);
    expect(review.positions.at(-1)).toMatchObject({ verdict: 'unsolvable' });
  });

  it('an illegal move is a 400 illegal_move naming its index and why', async () => {
    const err = await error(await post(app, { game: 'freecell', deal: 1, moves: '1a 2b 1h 3c' }, { path: '/v1/review' }), 400);
    expect(err).toMatchObject({ code: 'illegal_move', path: 'moves.2', token: '1h' });
    expect(err.message).toMatch(/move 2 "1h" is illegal: foundation D takes AD next, not 6D/);
    const json = await error(
      await post(app, { game: 'freecell', deal: 1, moves: [{ from: 'column', fromIndex: 0, to: 'column', toIndex: 1, count: 3, card: '3S', auto: false }] }, { path: '/v1/review' }),
      400,
    );
    expect(json).toMatchObject({ code: 'illegal_move', path: 'moves.0' });
  });

  it('bad bodies: 400 with the field, 405 for GET', async () => {
    expect(await error(await post(app, { game: 'freecell', deal: 1 }, { path: '/v1/review' }), 400)).toMatchObject({ code: 'invalid_request', path: 'moves' });
    expect(await error(await post(app, { game: 'freecell', moves: '' }, { path: '/v1/review' }), 400)).toMatchObject({ code: 'invalid_request' });
    expect(await error(await post(app, { game: 'nope', deal: 1, moves: '' }, { path: '/v1/review' }), 404)).toMatchObject({ code: 'unknown_game' });
    // fields a review would ignore are refused by name (as batches refuse limits.optimizeMs)
    expect(await error(await post(app, { game: 'freecell', deal: 1, moves: '1a', optimize: 'length' }, { path: '/v1/review' }), 400)).toMatchObject({ code: 'invalid_request', path: 'optimize' });
    expect(await error(await post(app, { game: 'freecell', deal: 1, moves: '1a', limits: { optimizeMs: 500 } }, { path: '/v1/review' }), 400)).toMatchObject({ code: 'bad_limits', path: 'limits.optimizeMs' });
    // a JSON move is strict: an unknown key is named, not ignored
    const move = { from: 'column', fromIndex: 0, to: 'cell', toIndex: 0, count: 1, card: '6S', auto: false };
    const strict = await error(await post(app, { game: 'freecell', deal: 1, moves: ['2b', { ...move, colour: 'red' }] }, { path: '/v1/review' }), 400);
    expect(strict).toMatchObject({ code: 'invalid_request', path: 'moves.1.colour' });
    expect(strict.message).toContain('colour');
    // zod's own issues in the house wording: a token too long to be one, a JSON move's faults
    expect(await error(await post(app, { game: 'freecell', deal: 1, moves: ['2b', '123456789'] }, { path: '/v1/review' }), 400)).toMatchObject({
      code: 'invalid_request',
      path: 'moves.1',
      message: 'moves.1: must have at most 8 characters',
    });
    const faults = await error(await post(app, { game: 'freecell', deal: 1, moves: [{ ...move, from: 'stock', fromIndex: -1, auto: undefined }] }, { path: '/v1/review' }), 400);
    expect(faults.message).toBe('moves.0.from: must be one of "column", "cell"; moves.0.fromIndex: must be at least 0; moves.0.auto: required: true or false');
    // over the cap: the cap is said, whatever the size
    for (const n of [2001, 100_000]) {
      const big = await error(await post(app, { game: 'freecell', deal: 1, moves: Array(n).fill('1a') }, { path: '/v1/review' }), 400);
      expect(big, String(n)).toMatchObject({ code: 'invalid_request', path: 'moves' });
      expect(big.message).toBe(`moves: at most 2,000 moves in one review, got ${n.toLocaleString('en')}`);
    }
    // as one string of notation, the same words (the count is known once the string is split)
    const text = await error(await post(app, { game: 'freecell', deal: 1, moves: Array(2002).fill('1a').join(' ') }, { path: '/v1/review' }), 400);
    expect(text).toMatchObject({ code: 'invalid_request', path: 'moves', message: 'moves: at most 2,000 moves in one review, got 2,002' });
    const get = await app.request('/v1/review');
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });
});

describe('GET /v1/deals?winnable=true', () => {
  // 200 deals (the count's cap is 1,000: 1,001 is refused below) go through every path of
  // winnableDeals: two deciders at once, solved deals offered with their solutions, unsolvable and
  // unknown (max_states) ones skipped, the draw stopped at `count`; the engine's verdicts over
  // whole deal ranges are checked against the reference in tests/unit/castle.test.ts.
  it('200 Beleaguered Castle deals, each with a solution the checker accepts; the same seed gives the same deals', async () => {
    const query = 'game=beleaguered_castle&winnable=true&count=200&seed=2026&maxStates=20000';
    const a = await ok(await app.request(`/v1/deals?${query}&solutions=true`), DealsResponseSchema);
    expect(a.deals).toHaveLength(200);
    expect(a.exhausted).toBe(false);
    expect(new Set(a.deals.map((w) => w.deal)).size).toBe(200);
    for (const w of a.deals) {
      const d = resolveDeal({ game: 'beleaguered_castle', deal: w.deal } as SolveRequest);
      const check = checkSolution(d.rules, d.layout, w.moves!);
      expect(check.ok, `deal ${w.deal}`).toBe(true);
      expect(w.decided).toBe('checked_solution');
    }
    // unsolvable and unknown deals were drawn, and skipped
    expect(a.skipped.length).toBeGreaterThan(0);
    expect(a.skipped.every((s) => s.verdict === 'unsolvable' || s.verdict === 'unknown')).toBe(true);
    expect(a.tried).toBe(a.deals.length + a.skipped.length);
    // both kinds are among the 200's skipped (the budget is in positions, so the same every run)
    expect(new Set(a.skipped.map((s) => s.verdict))).toEqual(new Set(['unsolvable', 'unknown']));
    const b = await ok(await app.request(`/v1/deals?${query}`), DealsResponseSchema);
    expect(b.deals.map((w) => w.deal)).toEqual(a.deals.map((w) => w.deal));
    expect(b.skipped).toEqual(a.skipped);
    const other = await ok(await app.request('/v1/deals?game=beleaguered_castle&count=20&seed=2027&maxStates=20000'), DealsResponseSchema);
    expect(other.deals.map((w) => w.deal)).not.toEqual(a.deals.slice(0, 20).map((w) => w.deal));
  }, 600_000);

  it('bad queries: 400 with the parameter at fault', async () => {
    expect(await error(await app.request('/v1/deals?game=freecell&count=abc'), 400)).toMatchObject({ code: 'invalid_request', path: 'count' });
    expect(await error(await app.request('/v1/deals?game=freecell&count=1001'), 400)).toMatchObject({ code: 'invalid_request', path: 'count' });
    expect(await error(await app.request('/v1/deals?game=freecell&from=9&to=3'), 400)).toMatchObject({ code: 'invalid_request', path: 'to' });
    expect(await error(await app.request('/v1/deals?game=freecell&numbering=ms&to=99999999999'), 400)).toMatchObject({ code: 'deal_out_of_range', path: 'to' });
    expect(await error(await app.request('/v1/deals?game=freecell&winnable=false'), 400)).toMatchObject({ code: 'invalid_request', path: 'winnable' });
    expect(await error(await app.request('/v1/deals?game=freecell&maxStates=0'), 400)).toMatchObject({ code: 'bad_limits' });
    expect(await error(await app.request('/v1/deals?game=freecell&colour=red'), 400)).toMatchObject({ code: 'invalid_request', path: 'colour' });
    // zod's own issues of the query read in the house wording (the route's hook parses with them)
    expect(await error(await app.request('/v1/deals?game=freecell&winnable=yes'), 400)).toMatchObject({
      code: 'invalid_request',
      path: 'winnable',
      message: 'winnable: must be one of "true", "false"',
    });
    expect(await error(await app.request('/v1/deals'), 400)).toMatchObject({ code: 'invalid_request', path: 'game' });
  });
});

describe('POST /v1/difficulty', () => {
  it('MS FreeCell #1..#3: the k-cell solution passes the checker, the (k-1)-cell certificate passes check-proof', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'min-cells-'));
    const cli = new URL('../../server/cli/check-proof.ts', import.meta.url).pathname;
    for (const deal of [1, 2, 3]) {
      const r = await ok(await post(app, { game: 'freecell', deal, proof: true }, { path: '/v1/difficulty' }), DifficultyResponseSchema);
      expect(r).toMatchObject({ measure: 'min_cells', verdict: 'decided' });
      const k = r.value!;
      const d = resolveDeal({ game: 'freecell', deal, rules: { freeCells: k } } as SolveRequest);
      expect(checkSolution(d.rules, d.layout, r.solution!.moves).ok).toBe(true);
      const file = join(dir, `ms-${deal}-${k - 1}-cells.proof.gz`);
      writeFileSync(file, Buffer.from(r.proof!.proof.certificate!.data!, 'base64'));
      const run = spawnSync(process.execPath, ['--import', 'tsx', cli, file, '--threads', '1'], { encoding: 'utf8' });
      expect(run.status, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^PASS: freecell deal ${deal} \\(ms\\), with freeCells ${k - 1} instead of 4, is unsolvable`));
    }
  }, 300_000);

  it('Beleaguered Castle #15 on the Castle ladder; a measure the game does not fit is a 400 at measure', async () => {
    const r = await ok(await post(app, { game: 'beleaguered_castle', deal: 15 }, { path: '/v1/difficulty' }), DifficultyResponseSchema);
    expect(r).toMatchObject({ measure: 'castle_ladder', verdict: 'decided', value: 1, label: 'kings_to_empty' });
    expect(await error(await post(app, { game: 'beleaguered_castle', deal: 2, measure: 'min_cells' }, { path: '/v1/difficulty' }), 400)).toMatchObject({
      code: 'invalid_request',
      path: 'measure',
    });
    expect(await error(await post(app, { game: 'freecell', deal: 2, measure: 'hardest' }, { path: '/v1/difficulty' }), 400)).toMatchObject({
      code: 'invalid_request',
      path: 'measure',
      message: 'measure: must be one of "min_cells", "castle_ladder"',
    });
    expect(await error(await post(app, { game: 'freecell', deal: 2, proof: 'yes' }, { path: '/v1/difficulty' }), 400)).toMatchObject({
      code: 'invalid_request',
      message: 'proof: expected true or false, got a string',
    });
    // no free cells and Kings only (Fan), or no card (Baker's Dozen), into an emptied column: neither measure fits
    for (const game of ['fan', 'bakers_dozen']) {
      const none = await error(await post(app, { game, deal: 3 }, { path: '/v1/difficulty' }), 400);
      expect(none).toMatchObject({ code: 'invalid_request', path: 'game' });
      expect(none.message).toContain(`no difficulty measure fits ${game}`);
      for (const measure of ['min_cells', 'castle_ladder']) {
        const named = await error(await post(app, { game, deal: 3, measure }, { path: '/v1/difficulty' }), 400);
        expect(named).toMatchObject({ code: 'invalid_request', path: 'measure' });
        expect(named.message).toContain('no measure fits these rules');
      }
    }
    expect((await error(await post(app, { game: 'beleaguered_castle', deal: 2, measure: 'min_cells' }, { path: '/v1/difficulty' }), 400)).message).toContain('use castle_ladder');
    expect(await error(await post(app, { game: 'freecell', deal: 2, optimize: 'length' }, { path: '/v1/difficulty' }), 400)).toMatchObject({ code: 'invalid_request', path: 'optimize' });
    expect(await error(await post(app, { game: 'freecell', deal: 2, limits: { optimizeMs: 500 } }, { path: '/v1/difficulty' }), 400)).toMatchObject({ code: 'bad_limits', path: 'limits.optimizeMs' });
  });

  it('a budget too small answers unknown with the bounds proven', async () => {
    const r = await ok(await post(app, { game: 'freecell', deal: 1, limits: { maxStates: 2000 } }, { path: '/v1/difficulty' }), DifficultyResponseSchema);
    expect(r.verdict).toBe('unknown');
    expect(r.value).toBeNull();
    expect(r.rungs.some((x) => x.basis === 'budget' && x.reason === 'max_states')).toBe(true);
  });
});

describe('the SDK client and the OpenAPI document', () => {
  it('review, difficulty and winnableDeals through createClient', async () => {
    const client = createClient({ baseUrl: 'http://solver.test', fetch: (url, init) => Promise.resolve(app.request(String(url).replace('http://solver.test', ''), init)) });
    const review = await client.review({ game: 'freecell', deal: 11982, moves: '' });
    expect(review.result).toBe('lost_at_start');
    const diff = await client.difficulty({ game: 'freecell', deal: 2 });
    expect(diff.value).toBe(1);
    const deals = await client.winnableDeals({ game: 'freecell', count: 3, seed: 1 });
    expect(deals.deals).toHaveLength(3);
    await expect(client.review({ game: 'freecell', deal: 1, moves: '1h' })).rejects.toMatchObject({ code: 'illegal_move', location: { path: 'moves.0' } });
  });

  it('documents the three routes', async () => {
    const doc = (await (await app.request('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths['/v1/review'])).toEqual(['post']);
    expect(Object.keys(doc.paths['/v1/difficulty'])).toEqual(['post']);
    expect(Object.keys(doc.paths['/v1/deals'])).toEqual(['get']);
  });
});

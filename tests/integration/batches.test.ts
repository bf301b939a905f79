/**
 * Batches in-process: the Wilson interval, the store (exactly once, counters
 * in step), the scheduler's rules with a scripted pool (fair sharing,
 * concurrency cap, cancelled solves never stored, resume skips finished
 * deals), the routes' validation and stream formats, the OpenAPI document,
 * and the command line.
 */
import type { Cancellation } from '../../server/pool.js';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchResultSchema, BatchStatusSchema, wilsonInterval, type BatchStatus } from '../../client-sdk/api/batch-schemas.js';
import { SolverError } from '../../client-sdk/core/errors.js';
import type { Move } from '../../client-sdk/core/moves.js';
import type { Deal } from '../../client-sdk/core/rules.js';
import type { SolveLimits, SolveOutcome } from '../../client-sdk/core/solve-types.js';
import { createApp } from '../../server/app.js';
import { BatchScheduler, type BatchPool } from '../../server/batches/embedded/scheduler.js';
import { createBatchService, type BatchService } from '../../server/batches/embedded/service.js';
import { BatchStore } from '../../server/batches/embedded/store.js';
import { decodeMoves, encodeMoves, type BatchSpec } from '../../server/batches/model.js';
import { dealAt } from '../../server/batches/positions.js';
import { ROOT, REFERENCE_VERDICTS } from '../helpers/paths.js';
import { packedAnswer } from '../helpers/pool-fixture.js';
import { post } from '../helpers/http.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'batches-unit-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SOLVED: SolveOutcome = {
  verdict: 'solved',
  moves: [{ from: 'column', fromIndex: 3, to: 'foundation', toIndex: 2, count: 1, card: 'AH', auto: true }],
  stats: { statesExpanded: 3, statesStored: 5, elapsedMs: 1.5, memoryBytes: 0 },
};
const CANCELLED: SolveOutcome = { verdict: 'unknown', reason: 'cancelled', moves: [], stats: { statesExpanded: 0, statesStored: 0, elapsedMs: 0, memoryBytes: 0 } };

/** A pool whose solves resolve when the test says so. */
function scriptedPool() {
  const pending: { deal: Deal; signal?: Cancellation; resolve: (o: SolveOutcome) => void; reject: (e: unknown) => void }[] = [];
  const pool: BatchPool = {
    solve: (deal: Deal, _limits: SolveLimits, signal?: Cancellation) =>
      new Promise<SolveOutcome>((resolve, reject) => {
        const entry = { deal, signal, resolve, reject };
        pending.push(entry);
        // Like the real pool: a stopped solve answers unknown/cancelled.
        signal?.addEventListener('abort', () => {
          const i = pending.indexOf(entry);
          if (i >= 0) pending.splice(i, 1);
          resolve(CANCELLED);
        });
      }),
  };
  return {
    pool,
    pending,
    /** Settles the oldest pending solve. */
    async settle(outcome: SolveOutcome | Error = SOLVED) {
      const p = pending.shift()!;
      if (outcome instanceof Error) p.reject(outcome);
      else p.resolve(outcome);
      await new Promise((r) => setTimeout(r, 0));
    },
  };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

function spec(total: number): BatchSpec {
  return {
    game: 'freecell',
    numbering: 'ms',
    rules: { columns: 8, freeCells: 4, build: 'alternate_color', emptyColumn: 'any', sequenceMove: 'supermove', foundationBase: 1, wrap: false },
    limits: { maxStates: 1000, timeoutMs: 1000 },
    positions: { kind: 'range', from: '1', to: String(total) },
  };
}

describe('summary statistics', () => {
  it('computes the 95 % Wilson score interval', () => {
    expect(wilsonInterval(0, 0)).toBeNull();
    const half = wilsonInterval(5, 10)!;
    expect(half.share).toBe(0.5);
    expect(half.low).toBeCloseTo(0.2366, 4);
    expect(half.high).toBeCloseTo(0.7634, 4);
    const none = wilsonInterval(0, 10)!;
    expect(none.low).toBe(0);
    expect(none.high).toBeCloseTo(0.2775, 4);
    const all = wilsonInterval(1999, 2000)!;
    expect(all.low).toBeCloseTo(0.99718, 4);
    expect(all.high).toBeCloseTo(0.99991, 4);
  });
});

describe('store', () => {
  it('packs moves losslessly', () => {
    const moves: Move[] = [
      { from: 'cell', fromIndex: 7, to: 'column', toIndex: 9, count: 1, card: 'TD', auto: false },
      { from: 'column', fromIndex: 0, to: 'column', toIndex: 5, count: 13, card: 'KS', auto: false },
      { from: 'column', fromIndex: 2, to: 'foundation', toIndex: 3, count: 1, card: 'AS', auto: true },
    ];
    expect(decodeMoves(encodeMoves(moves))).toEqual(moves);
  });

  it('stores one result per deal, numbers them without gaps, keeps the counters in step', () => {
    const store = new BatchStore(join(dir, 'store.sqlite'));
    store.create('b', spec(3), 3);
    const base = { moves: SOLVED.moves, statesExpanded: 1, statesStored: 2, elapsedMs: 3 };
    expect(store.addResult('b', { index: 2, verdict: 'solved', ...base })?.seq).toBe(1);
    expect(store.addResult('b', { index: 2, verdict: 'unsolvable', ...base, moves: [] })).toBeNull();
    expect(store.addResult('b', { index: 0, verdict: 'unsolvable', ...base, moves: [] })?.seq).toBe(2);
    expect(store.addResult('nope', { index: 0, verdict: 'solved', ...base })).toBeNull();
    expect(store.get('b')).toMatchObject({ done: 2, solved: 1, unsolvable: 1, sumMoves: 1 });
    expect(store.resultsAfter('b', 1, 10).map((r) => r.index)).toEqual([0]);
    expect([...store.resultsByIndex('b')].map((r) => r.index)).toEqual([0, 2]);
    store.setStatus('b', 'cancelled');
    expect(store.addResult('b', { index: 1, verdict: 'solved', ...base })).toBeNull();
    expect(store.get('b')).toMatchObject({ done: 2, status: 'cancelled' });
    store.close();
  });

  it('stores a group of results in one transaction: seqs in order, a deal already stored (before or earlier in the group) skipped, the counters in step', () => {
    const store = new BatchStore(join(dir, 'group.sqlite'));
    store.create('b', spec(5), 5);
    const base = { moves: SOLVED.moves, statesExpanded: 1, statesStored: 2, elapsedMs: 3 };
    expect(store.addResult('b', { index: 3, verdict: 'unsolvable', ...base, moves: [] })?.seq).toBe(1);
    const stored = store.addResults('b', [
      { index: 0, verdict: 'solved', ...base },
      { index: 3, verdict: 'solved', ...base },
      { index: 1, verdict: 'error', ...base, moves: [], error: { code: 'engine_trap', message: 'trap' } },
      { index: 0, verdict: 'unknown', reason: 'timeout', ...base, moves: [] },
      { index: 4, verdict: 'unknown', reason: 'timeout', ...base, moves: [] },
    ]);
    expect(stored.map((r) => r?.seq ?? null)).toEqual([2, null, 3, null, 4]);
    expect(store.get('b')).toMatchObject({ done: 4, solved: 1, unsolvable: 1, unknown: 1, errors: 1, sumMoves: SOLVED.moves.length, sumElapsedMs: 12 });
    expect(store.resultsAfter('b', 0, 10).map((r) => [r.seq, r.index, r.verdict])).toEqual([
      [1, 3, 'unsolvable'],
      [2, 0, 'solved'],
      [3, 1, 'error'],
      [4, 4, 'unknown'],
    ]);
    expect(store.addResults('b', [])).toEqual([]);
    store.setStatus('b', 'cancelled');
    expect(store.addResults('b', [{ index: 2, verdict: 'solved', ...base }])).toEqual([null]);
    expect(store.get('b')).toMatchObject({ done: 4, status: 'cancelled' });
    store.close();
  });
});

describe('scheduler', () => {
  it('keeps at most `concurrency` solves in flight (which runs first, a batch deal or a single solve, is the pool\'s: pool-shared.test.ts)', async () => {
    const store = new BatchStore(':memory:');
    const p = scriptedPool();
    const scheduler = new BatchScheduler(store, p.pool, { concurrency: 2 });
    scheduler.add(store.create('b', spec(10), 10));
    expect(p.pending).toHaveLength(2);
    await p.settle();
    await p.settle();
    await new Promise((r) => setTimeout(r, 20));
    expect(p.pending).toHaveLength(2);
    expect(store.get('b')!.done).toBe(2);
    await scheduler.stop();
  });

  it('never stores a cancelled solve; retries after overloaded; stores engine failures as errors', async () => {
    const store = new BatchStore(':memory:');
    const p = scriptedPool();
    const scheduler = new BatchScheduler(store, p.pool, { concurrency: 1 });
    scheduler.add(store.create('b', spec(2), 2));
    await p.settle(CANCELLED); // deal 0: a stop nobody asked for (e.g. pool shutting down)
    expect(store.get('b')!.done).toBe(0);
    await p.settle(new SolverError('overloaded', 'busy'));
    expect(store.get('b')!.done).toBe(0);
    await new Promise((r) => setTimeout(r, 150));
    await p.settle(); // deal 0 again
    await p.settle(new SolverError('solution_check_failed', 'bad solution')); // deal 1
    const record = store.get('b')!;
    expect(record).toMatchObject({ status: 'done', done: 2, solved: 1, errors: 1 });
    expect(store.resultsAfter('b', 0, 10).map((r) => [r.index, r.verdict, r.error?.code])).toEqual([
      [0, 'solved', undefined],
      [1, 'error', 'solution_check_failed'],
    ]);
    await scheduler.stop();
  });

  it('cancel aborts the running solves and drops their results', async () => {
    const store = new BatchStore(':memory:');
    const p = scriptedPool();
    const scheduler = new BatchScheduler(store, p.pool, { concurrency: 2 });
    scheduler.add(store.create('b', spec(100), 100));
    await p.settle();
    const running = [...p.pending];
    expect(running).toHaveLength(2);
    expect(scheduler.cancel('b')).toBe(true);
    expect(running.every((r) => r.signal?.aborted)).toBe(true);
    running[0].resolve(SOLVED); // an answer that raced the cancel
    await tick();
    expect(p.pending).toHaveLength(0);
    expect(store.get('b')).toMatchObject({ status: 'cancelled', done: 1 });
    expect(scheduler.cancel('b')).toBe(false);
    await scheduler.stop();
  });

  it('hands quick deals out several a task (solveManyPacked), one a task until a deal is timed; a task that fails as a whole gives its deals back one a task', async () => {
    const store = new BatchStore(':memory:');
    const sizes: number[] = [];
    const seen = new Map<number, number>();
    // Deal number 7 takes its whole task down (a lost worker) whenever it is in a task of several.
    const dealNumber = (deal: Deal) => deal.layout.columns.flat().join(',');
    const numbers = new Map<string, number>();
    for (let n = 1; n <= 40; n++) numbers.set(dealNumber(dealAt(spec(40), n - 1)), n);
    const quick = (n: number): SolveOutcome => ({ ...SOLVED, stats: { ...SOLVED.stats, elapsedMs: 0.5 } , moves: [{ ...SOLVED.moves[0], count: n }] });
    const pool: BatchPool = {
      solve: async (deal: Deal) => {
        sizes.push(1);
        const n = numbers.get(dealNumber(deal))!;
        seen.set(n, (seen.get(n) ?? 0) + 1);
        if (n === 7) throw new SolverError('worker_crashed', 'the solver worker died during this solve');
        return quick(n);
      },
      solveManyPacked: async (deals: readonly Deal[]) => {
        sizes.push(deals.length);
        const ns = deals.map((deal) => numbers.get(dealNumber(deal))!);
        for (const n of ns) seen.set(n, (seen.get(n) ?? 0) + 1);
        if (ns.includes(7)) throw new SolverError('worker_crashed', 'the solver worker died during this solve');
        return ns.map((n) => packedAnswer(quick(n)));
      },
    };
    const scheduler = new BatchScheduler(store, pool, { concurrency: 1, chunkMs: 5 });
    scheduler.add(store.create('b', spec(40), 40));
    for (let i = 0; i < 100 && store.get('b')!.status === 'running'; i++) await new Promise((r) => setTimeout(r, 5));
    expect(store.get('b')).toMatchObject({ status: 'done', done: 40, solved: 39, errors: 1 });
    expect(sizes[0]).toBe(1); // nothing timed yet
    expect(Math.max(...sizes)).toBe(10); // 5 ms / 0.5 ms a deal
    const results = store.resultsAfter('b', 0, 100);
    expect(results.find((r) => r.index === 6)).toMatchObject({ verdict: 'error', error: { code: 'worker_crashed' } });
    // every other deal stored with its own moves, and deal 7's task mates were solved again alone
    for (const r of results.filter((r) => r.verdict === 'solved')) expect(r.moves[0].count).toBe(r.index + 1);
    expect(seen.get(7)).toBe(2);
    await scheduler.stop();
  });

  it('stores a large dispatch a slice at a time: the event loop gets turns while 1,024 results are written (HTTP is not held behind them)', async () => {
    // a file and solutions of 100 moves, as the service stores MS deals: 1,024 results take ~20-40 ms here, the slices 5 ms
    const store = new BatchStore(join(dir, 'slices.sqlite'));
    const quick: SolveOutcome = { ...SOLVED, moves: Array.from({ length: 100 }, () => SOLVED.moves[0]), stats: { ...SOLVED.stats, elapsedMs: 0.01 } };
    // how many of a dispatch's results were stored when the event loop first got a turn after its answer
    const storedAtFirstTurn: number[] = [];
    const sizes: number[] = [];
    const pool: BatchPool = {
      solve: async () => quick,
      solveManyPacked: async (deals: readonly Deal[]) => {
        sizes.push(deals.length);
        const before = store.get('b')!.done;
        setImmediate(() => storedAtFirstTurn.push(store.get('b')!.done - before));
        return deals.map(() => packedAnswer(quick));
      },
    };
    const scheduler = new BatchScheduler(store, pool, { concurrency: 1 });
    scheduler.add(store.create('b', spec(3000), 3000));
    for (let i = 0; i < 400 && store.get('b')!.status === 'running'; i++) await new Promise((r) => setTimeout(r, 10));
    expect(store.get('b')).toMatchObject({ status: 'done', done: 3000 });
    // 100 ms of 0.01 ms deals: dispatches of the most a dispatch takes, once the first deal (alone) was timed
    expect(Math.max(...sizes)).toBe(1024);
    const big = sizes.map((n, i) => [n, storedAtFirstTurn[i]]).filter(([n]) => n === 1024);
    expect(big.length).toBeGreaterThanOrEqual(2);
    // storing 1,024 results takes several 5 ms slices: the first turn came before the last of them was stored
    for (const [, stored] of big) expect(stored).toBeLessThan(1024);
    await scheduler.stop();
  });

  it('resumes a batch without solving its finished deals again', async () => {
    const path = join(dir, 'resume.sqlite');
    const first = new BatchStore(path);
    first.create('b', spec(6), 6);
    for (const index of [0, 1, 4]) first.addResult('b', { index, verdict: 'solved', moves: [], statesExpanded: 0, statesStored: 0, elapsedMs: 0 });
    first.close();

    const store = new BatchStore(path);
    const p = scriptedPool();
    const scheduler = new BatchScheduler(store, p.pool, { concurrency: 1 });
    expect(scheduler.resume()).toBe(1);
    const solved: number[] = [];
    while (p.pending.length > 0) {
      solved.push(p.pending[0].deal.layout.columns[0][0]);
      await p.settle();
    }
    expect(solved).toHaveLength(3); // deals 2, 3 and 5 only
    expect(store.get('b')).toMatchObject({ status: 'done', done: 6 });
    expect(
      store
        .resultsAfter('b', 0, 10)
        .map((r) => r.index)
        .sort(),
    ).toEqual([0, 1, 2, 3, 4, 5]);
    await scheduler.stop();
    store.close();
  });
});

describe('routes', () => {
  let service: BatchService;
  let app: ReturnType<typeof createApp>;
  beforeAll(() => {
    const solve = async (): Promise<SolveOutcome> => SOLVED;
    service = createBatchService({ dbPath: ':memory:', pool: { solve }, concurrency: 2, maxDeals: 1000 });
    app = createApp({ solve, batches: service, logError: () => {}, webRoot: null } as Parameters<typeof createApp>[0]);
  });
  afterAll(() => service.close());

  const create = (body: unknown) => post(app, body, { path: '/v1/batches' });
  async function expectError(res: Response, status: number, code: string, path?: string) {
    const body = (await res.json()) as { error: { code: string; path?: string; line?: number } };
    expect(res.status, JSON.stringify(body)).toBe(status);
    expect(body.error.code).toBe(code);
    if (path !== undefined) expect(body.error.path).toBe(path);
    return body.error;
  }

  it('rejects bad batches with the code and place of the fault', async () => {
    await expectError(await create({ game: 'freecell' }), 400, 'invalid_request');
    await expectError(await create({ game: 'freecell', deals: '5..1' }), 400, 'invalid_request', 'deals');
    await expectError(await create({ game: 'freecell', deals: '1..5000' }), 400, 'invalid_request', 'deals');
    await expectError(await create({ game: 'freecell', deals: 'one to ten' }), 400, 'invalid_request', 'deals');
    for (const deals of [null, 5]) {
      // a shape that is none of the forms says which forms there are
      const e = (await expectError(await create({ game: 'freecell', deals }), 400, 'invalid_request', 'deals')) as { message?: string };
      expect(e.message).toMatch(/range "1\.\.1000".*\{"from": 1, "to": 1000\}.*list of deal numbers/);
    }
    // a list or a range with a bad part names that part
    await expectError(await create({ game: 'freecell', deals: [[1]] }), 400, 'invalid_request', 'deals.0');
    await expectError(await create({ game: 'freecell', deals: { from: 5 } }), 400, 'invalid_request', 'deals.to');
    await expectError(await create({ game: 'freecell', deals: [1, '2', 3.5] }), 400, 'invalid_request', 'deals.2');
    await expectError(await create({ game: 'freecell', deals: [1, 2, 8589934592] }), 400, 'deal_out_of_range', 'deals.2');
    // an end below 1, in any form: deal numbers start at 1
    for (const [deals, path, end] of [['-5..5', 'deals', '-5'], ['0..10', 'deals', '0'], [[3, 0], 'deals.1', '0'], [{ from: -2, to: 5 }, 'deals.from', '-2']] as const) {
      const e = (await expectError(await create({ game: 'freecell', deals }), 400, 'deal_out_of_range', path)) as { message?: string };
      expect(e.message).toBe(`${path}: deal number ${end} is out of range: deal numbers start at 1`);
    }
    // each Penguin deal fixes its own foundation base: one for the whole batch would contradict most
    const beak = (await expectError(await create({ game: 'penguin', deals: '1..3', rules: { foundationBase: 1 } }), 400, 'bad_rules', 'rules.foundationBase')) as {
      message?: string;
    };
    expect(beak.message).toContain('boards only');
    await expectError(await create({ game: 'no_such', deals: '1..2' }), 404, 'unknown_game');
    await expectError(await create({ game: 'eight_off', numbering: 'ms', deals: '1..2' }), 400, 'numbering_not_supported');
    await expectError(await create({ game: 'freecell', boards: ['JD'], numbering: 'ms' }), 400, 'invalid_request', 'numbering');
    await expectError(await create({ game: 'freecell', deals: '1..2', limits: { maxStates: 0 } }), 400, 'bad_limits');
    const good = (await (await post(app, { game: 'freecell', deal: 1 })).json()) as { board: string };
    const err = await expectError(await create({ game: 'freecell', boards: [good.board, good.board.replace('JD', 'XX')] }), 400, 'malformed_board', 'boards.1');
    expect(err.line).toBeGreaterThan(0);
    const wrongType = await app.request('/v1/batches', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    expect(wrongType.status).toBe(415);
  });

  it("words zod's own issues in the house style on every batch route: body, query and path", async () => {
    const message = async (res: Response, status: number, code: string, path: string) =>
      ((await expectError(res, status, code, path)) as { message?: string }).message;
    expect(await message(await create({ game: 'freecell', deals: [] }), 400, 'invalid_request', 'deals')).toBe('deals: must have at least 1 entry');
    expect(await message(await create({ game: 'freecell', deals: '1..2', name: 'n'.repeat(201) }), 400, 'invalid_request', 'name')).toBe('name: must have at most 200 characters');
    expect(await message(await create({ game: 'freecell', deals: '1..2', results: 'some' }), 400, 'invalid_request', 'results')).toBe(
      'results: must be one of "all", "exceptions"',
    );
    const id = (await (await create({ game: 'freecell', deals: '1..2' })).json()) as { id: string };
    expect(await message(await app.request(`/v1/batches/${id.id}/results?moves=yes`), 400, 'invalid_request', 'moves')).toBe('moves: must be one of "true", "false"');
    const long = 'x'.repeat(65);
    for (const [method, path] of [['GET', `/v1/batches/${long}`], ['DELETE', `/v1/batches/${long}`], ['DELETE', `/v1/batches/${long}/results`], ['GET', `/v1/batches/${long}/results`]]) {
      expect(await message(await app.request(path, { method }), 400, 'invalid_request', 'id'), `${method} ${path}`).toBe('id: must have at most 64 characters');
    }
  });

  it('runs a batch of boards and streams it as NDJSON and as server-sent events', async () => {
    const solved = (await (await post(app, { game: 'freecell', deal: 2 })).json()) as { board: string };
    const res = await create({ game: 'freecell', boards: [solved.board, solved.board, solved.board], name: 'boards' });
    expect(res.status).toBe(202);
    const status = BatchStatusSchema.parse(await res.json());
    let done: BatchStatus;
    do {
      await tick();
      done = BatchStatusSchema.parse(await (await app.request(status.urls.self)).json());
    } while (done.status === 'running');
    expect(done).toMatchObject({ status: 'done', total: 3, counts: { solved: 3 }, summary: { meanMoves: 1 } });

    const ndjson = await app.request(`${status.urls.results}?moves=true`);
    expect(ndjson.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = (await ndjson.text()).trim().split('\n').map((l) => BatchResultSchema.parse(JSON.parse(l)));
    expect(lines.map((l) => [l.seq, l.deal, l.notation])).toEqual([
      [1, null, ['4h']],
      [2, null, ['4h']],
      [3, null, ['4h']],
    ]);
    expect(lines[0].moves).toEqual(SOLVED.moves);

    const sse = await app.request(status.urls.results, { headers: { accept: 'text/event-stream', 'last-event-id': '1' } });
    expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await sse.text();
    expect(text).toMatch(/^id: 2\nevent: result\ndata: \{"seq":2,/);
    expect(text).toContain('id: 3\nevent: result\n');
    expect(text.endsWith('event: end\ndata: {"status":"done","done":3,"total":3}\n\n')).toBe(true);

    const missing = await app.request('/v1/batches/nope/results');
    await expectError(missing, 404, 'not_found');
  });

  it('documents every batch route in the OpenAPI document', async () => {
    const doc = (await (await app.request('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };
    expect(Object.keys(doc.paths['/v1/batches'])).toEqual(['post']);
    expect(Object.keys(doc.paths['/v1/batches/{id}']).sort()).toEqual(['delete', 'get']);
    expect(Object.keys(doc.paths['/v1/batches/{id}/results']).sort()).toEqual(['delete', 'get']);
    for (const name of ['BatchRequest', 'BatchStatus', 'BatchResult', 'BatchSummary']) expect(doc.components.schemas[name]).toBeDefined();
  });
});

describe('command line', () => {
  it('runs a batch with a summary and writes the results in deal order', () => {
    const out = join(dir, 'cli.ndjson');
    const printed = execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'server/cli/batch.ts'), '--game', 'seahaven_towers', '--deals', '1-30', '--threads', '2', '--out', out, '--quiet'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    const reference = readFileSync(join(REFERENCE_VERDICTS, 'seahaven_towers.tsv'), 'utf8').trim().split('\n').slice(1, 31);
    const unsolvable = reference.filter((l) => l.endsWith('unsolvable')).length;
    expect(printed).toContain(`seahaven_towers (pysolfc): 30 of 30 deals, done`);
    expect(printed).toContain(`solved ${30 - unsolvable}, unsolvable ${unsolvable}, unknown 0, errors 0`);
    expect(printed).toMatch(/95 % Wilson interval/);
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => BatchResultSchema.parse(JSON.parse(l)));
    expect(lines.map((l) => l.deal)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(lines.map((l) => (l.verdict === 'solved' ? 'solvable' : l.verdict))).toEqual(reference.map((l) => l.split('\t')[1]));
  });

  it("--out - writes the NDJSON results to standard output and the summary to standard error (a pipe gets results only), no file named '-'", () => {
    const user = mkdtempSync(join(tmpdir(), 'batch-cli-stdout-'));
    try {
      const args = ['--import', 'tsx', join(ROOT, 'server/cli/batch.ts'), '--game', 'freecell', '--deals', '1-4', '--threads', '1', '--out', '-', '--quiet'];
      const run = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, INIT_CWD: user } });
      expect(run.status, run.stderr).toBe(0);
      const lines = run.stdout.trim().split('\n').map((l) => BatchResultSchema.parse(JSON.parse(l)));
      expect(lines.map((l) => [l.deal, l.verdict])).toEqual([1, 2, 3, 4].map((d) => [d, 'solved']));
      expect(run.stderr).toContain('freecell (ms): 4 of 4 deals, done');
      expect(run.stderr).toContain('results: standard output (4 lines, deal order)');
      expect(existsSync(join(user, '-'))).toBe(false);
      expect(existsSync(join(ROOT, '-'))).toBe(false);
    } finally {
      rmSync(user, { recursive: true, force: true });
    }
  });

  it('--out - streams the results in deal order as the deals are done; a reader that goes away (| head) stops the batch early: exit status 141, no error line', async () => {
    const args = ['--import', 'tsx', join(ROOT, 'server/cli/batch.ts'), '--game', 'freecell', '--deals', '1-20000', '--threads', '1', '--out', '-', '--quiet'];
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // as `head -1`: read the first line, then close the pipe
    const first = await new Promise<string>((resolve, reject) => {
      const limit = setTimeout(() => reject(new Error(`no result line within 60 s: ${stderr}`)), 60_000);
      let seen = '';
      child.stdout.on('data', (d: Buffer) => {
        seen += d.toString();
        const nl = seen.indexOf('\n');
        if (nl < 0) return;
        clearTimeout(limit);
        child.stdout.destroy();
        resolve(seen.slice(0, nl));
      });
    });
    expect(BatchResultSchema.parse(JSON.parse(first))).toMatchObject({ index: 0, deal: 1 });
    const code = await exited;
    expect(code, stderr).toBe(141);
    expect(stderr).not.toMatch(/^error|EPIPE/m);
    expect(stderr).toMatch(/stopped early: standard output was closed after \d+ result lines/);
    // stopped, not run to the end: far fewer than the 20,000 deals were solved
    const done = Number(/freecell \(ms\): (\d+) of 20000 deals/.exec(stderr)?.[1]);
    expect(done).toBeLessThan(20_000);
  }, 120_000);

  it('a rerun of a finished batch (same --db, same request) shows it instead of solving it again; paths resolve where the user stands', () => {
    // Run from the package root as `npm run batch` does, with the user's folder in INIT_CWD: relative --db and --out land there.
    const user = mkdtempSync(join(tmpdir(), 'batch-cli-user-'));
    const args = ['--import', 'tsx', join(ROOT, 'server/cli/batch.ts'), '--game', 'freecell', '--deals', '1-6', '--threads', '1', '--db', 'runs.sqlite', '--out', 'r.ndjson', '--quiet'];
    const run = () => spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, INIT_CWD: user } });
    try {
      const first = run();
      expect(first.status, first.stderr).toBe(0);
      expect(first.stdout).toContain('freecell (ms): 6 of 6 deals, done');
      expect(existsSync(join(user, 'runs.sqlite'))).toBe(true);
      expect(existsSync(join(ROOT, 'runs.sqlite'))).toBe(false);
      const lines = readFileSync(join(user, 'r.ndjson'), 'utf8');
      rmSync(join(user, 'r.ndjson'));

      const again = run();
      expect(again.status, again.stderr).toBe(0);
      expect(again.stderr).toMatch(/batch \S+ in .*runs\.sqlite is already done \(6 of 6 deals\): its summary follows; nothing was solved again/);
      expect(again.stdout).toContain('freecell (ms): 6 of 6 deals, done');
      expect(readFileSync(join(user, 'r.ndjson'), 'utf8')).toBe(lines); // the same results, from the file
      const db = new Database(join(user, 'runs.sqlite'), { readonly: true });
      try {
        expect((db.prepare('SELECT COUNT(*) AS n FROM batches').get() as { n: number }).n).toBe(1);
      } finally {
        db.close();
      }
      // Another request in the same file is a new batch.
      const other = spawnSync(process.execPath, [...args.slice(0, 6), '1-3', ...args.slice(7)], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, INIT_CWD: user } });
      expect(other.status, other.stderr).toBe(0);
      expect(other.stderr).not.toMatch(/already done/);
      expect(other.stdout).toContain('3 of 3 deals, done');
    } finally {
      rmSync(user, { recursive: true, force: true });
    }
  });

  it('exits 2 with the error code on bad input', () => {
    let status = 0;
    let stderr = '';
    try {
      execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'server/cli/batch.ts'), '--game', 'freecell', '--deals', '0-10', '--quiet'], { cwd: ROOT, stdio: 'pipe' });
    } catch (e) {
      status = (e as { status: number }).status;
      stderr = String((e as { stderr: Buffer }).stderr);
    }
    expect(status).toBe(2);
    expect(stderr).toContain('error deal_out_of_range: deals: deal number 0 is out of range: deal numbers start at 1');
  });
});

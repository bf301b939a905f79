/**
 * Batches that keep exceptions only (a census), embedded backend, in
 * process with a scripted pool: sub-ranges recorded atomically (a span
 * overlapping a done one refused whole, spans merged, counters and summary
 * in step), the scheduler's census (every deal counted once, only the
 * exceptions stored, resume after work was lost in flight, a task failing
 * as a whole), a range of 8,589,934,591 deals with progress, ETA and
 * cancel; reading: the verdict filter in both modes, a reader streaming a
 * large batch without holding the event loop; quotas, deleting results
 * (storage given back), retention, and a file of the store's earlier
 * version brought up to date.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { serve } from '@hono/node-server';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchResultSchema, BatchStatusSchema, type BatchStatus } from '../../client-sdk/api/batch-schemas.js';
import { SolverError } from '../../client-sdk/core/errors.js';
import type { Deal } from '../../client-sdk/core/rules.js';
import type { SolveOutcome } from '../../client-sdk/core/solve-types.js';
import { createApp } from '../../server/app.js';
import { emptySummary, summariseRange, type CensusSummary } from '../../server/batches/census.js';
import { BatchScheduler, type BatchPool } from '../../server/batches/embedded/scheduler.js';
import { createBatchService, type BatchService } from '../../server/batches/embedded/service.js';
import { BatchStore } from '../../server/batches/embedded/store.js';
import type { BatchSpec, ResultInput } from '../../server/batches/model.js';
import { dealAt } from '../../server/batches/positions.js';
import { createLogger } from '../../server/logger.js';
import { createServiceApp } from '../../server/service.js';
import { packedAnswer } from '../helpers/pool-fixture.js';
import { post } from '../helpers/http.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'batches-census-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function spec(total: number, results?: 'exceptions'): BatchSpec {
  return {
    game: 'freecell',
    numbering: 'ms',
    rules: { columns: 8, freeCells: 4, build: 'alternate_color', emptyColumn: 'any', sequenceMove: 'supermove', foundationBase: 1, wrap: false },
    limits: { maxStates: 1000, timeoutMs: 1000 },
    positions: { kind: 'range', from: '1', to: String(total) },
    ...(results ? { results } : {}),
  };
}

/** A deal's fake verdict, from its cards: 1 in 41 unsolvable, 1 in 43 unknown, the rest solved in 60-99 moves. */
function fakeOutcome(deal: Deal): SolveOutcome {
  const cards = deal.layout.columns.flat();
  let h = 0;
  for (let i = 0; i < 12; i++) h = (h * 31 + Number(cards[i])) % 1_000_003;
  const stats = { statesExpanded: 50 + (h % 300), statesStored: 60, elapsedMs: 0.05 + (h % 7) / 100, memoryBytes: 0 };
  if (h % 41 === 0) return { verdict: 'unsolvable', moves: [], stats };
  if (h % 43 === 0) return { verdict: 'unknown', reason: 'max_states', moves: [], stats };
  const move = { from: 'column' as const, fromIndex: 0, to: 'foundation' as const, toIndex: 0, count: 1, card: 'AS', auto: false };
  return { verdict: 'solved', moves: Array.from({ length: 60 + (h % 40) }, () => move), stats };
}

/** The census summary and exceptions a batch of `total` deals must end with (the fake's verdicts). */
function expected(total: number): { summary: CensusSummary; exceptions: number[] } {
  const s = spec(total);
  const results: ResultInput[] = [];
  for (let i = 0; i < total; i++) {
    const o = fakeOutcome(dealAt(s, i));
    results.push({ index: i, verdict: o.verdict, moves: o.moves, statesExpanded: o.stats.statesExpanded, statesStored: o.stats.statesStored, elapsedMs: o.stats.elapsedMs });
  }
  const { summary, kept } = summariseRange(results, 'exceptions');
  return { summary, exceptions: kept.map((r) => r.index) };
}

/** A pool of the fake's verdicts, counting the solves of each deal (by its first cards). */
function fakePool(options: { hangAfter?: number; failWhen?: (deals: readonly Deal[]) => boolean } = {}) {
  const solves = new Map<string, number>();
  let tasks = 0;
  const key = (deal: Deal) => deal.layout.columns.flat().slice(0, 16).join(',');
  const count = (deal: Deal) => solves.set(key(deal), (solves.get(key(deal)) ?? 0) + 1);
  const pool: BatchPool = {
    solve: async (deal) => {
      count(deal);
      await sleep(0);
      return fakeOutcome(deal);
    },
    solveManyPacked: async (deals, _limits, signal) => {
      tasks++;
      if (options.hangAfter !== undefined && tasks > options.hangAfter) {
        // never answers until stopped: work lost in flight when the process "dies"
        return new Promise((resolve) => signal?.addEventListener('abort', () => resolve(deals.map(() => new SolverError('overloaded', 'stopped')))));
      }
      for (const deal of deals) count(deal);
      if (options.failWhen?.(deals)) throw new SolverError('worker_crashed', 'the solver worker died during this solve');
      await sleep(0);
      return deals.map((deal) => packedAnswer(fakeOutcome(deal)));
    },
  };
  return { pool, solves, key };
}

/** A pool whose solves end only when stopped (`cancelled`): the batches it is given stay running. */
function neverPool(): BatchPool {
  return {
    solve: (_deal, _limits, signal) =>
      new Promise((resolve) =>
        signal?.addEventListener('abort', () => resolve({ verdict: 'unknown', reason: 'cancelled', moves: [], stats: { statesExpanded: 0, statesStored: 0, elapsedMs: 0, memoryBytes: 0 } })),
      ),
  };
}

async function until(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(5);
  }
}

const solvedResult = (index: number): ResultInput => ({ index, verdict: 'solved', moves: [], packedMoves: new Uint8Array(80), statesExpanded: 10, statesStored: 10, elapsedMs: 0.1 });
const unsolvableResult = (index: number): ResultInput => ({ index, verdict: 'unsolvable', moves: [], statesExpanded: 999, statesStored: 999, elapsedMs: 5 });

describe('census store: a sub-range is recorded whole, once', () => {
  it('merges a span with the done spans it touches, refuses one that overlaps them, and keeps counters, summary and exceptions in step', () => {
    const store = new BatchStore(':memory:');
    store.create('b', spec(10, 'exceptions'), 10);
    const span = (lo: number, hi: number, unsolvable: number[] = []) => {
      const results = Array.from({ length: hi - lo }, (_, k) => (unsolvable.includes(lo + k) ? unsolvableResult(lo + k) : solvedResult(lo + k)));
      const { summary, kept } = summariseRange(results, 'exceptions');
      return store.recordSpan('b', lo, hi, summary, kept);
    };
    expect(span(0, 4, [1])?.map((r) => [r.seq, r.index])).toEqual([[1, 1]]);
    expect(span(2, 6)).toBeNull(); // overlaps [0, 4): nothing of it counts
    expect(store.get('b')).toMatchObject({ done: 4, stored: 1, solved: 3, unsolvable: 1 });
    expect(span(4, 6, [5])?.map((r) => r.seq)).toEqual([2]);
    expect(span(8, 10)).toEqual([]);
    expect(store.doneSpans('b')).toEqual([{ lo: 0, hi: 6 }, { lo: 8, hi: 10 }]);
    // a kept result outside its span: the whole transaction is undone
    const bad = summariseRange([unsolvableResult(2)], 'exceptions');
    expect(() => store.recordSpan('b', 6, 8, { ...emptySummary(), unsolvable: 2 }, bad.kept)).toThrow(RangeError);
    expect(store.get('b')).toMatchObject({ done: 8, stored: 2 });
    expect(span(6, 8)).toEqual([]);
    expect(store.doneSpans('b')).toEqual([{ lo: 0, hi: 10 }]);
    const record = store.get('b')!;
    expect(record).toMatchObject({ done: 10, stored: 2, solved: 8, unsolvable: 2, sumMoves: 80 });
    expect(record.summary).toMatchObject({ solved: 8, unsolvable: 2, sumMoves: 80, moves: { 10: 8 } });
    expect(store.resultsAfter('b', 0, 10).map((r) => [r.seq, r.index, r.verdict])).toEqual([
      [1, 1, 'unsolvable'],
      [2, 5, 'unsolvable'],
    ]);
    store.setStatus('b', 'cancelled');
    store.create('c', spec(4, 'exceptions'), 4);
    store.setStatus('c', 'cancelled');
    expect(store.recordSpan('c', 0, 2, summariseRange([solvedResult(0), solvedResult(1)], 'exceptions').summary, [])).toBeNull();
    store.close();
  });
});

describe('census scheduler', () => {
  it('counts every deal once and stores only the exceptions, in sub-ranges sized by the deals\' time', async () => {
    const total = 3000;
    const want = expected(total);
    const store = new BatchStore(':memory:');
    const fake = fakePool();
    const scheduler = new BatchScheduler(store, fake.pool, { concurrency: 2, chunkMs: 20 });
    scheduler.add(store.create('b', spec(total, 'exceptions'), total));
    await until(() => store.get('b')!.status === 'done');
    const record = store.get('b')!;
    expect(record).toMatchObject({ done: total, stored: want.exceptions.length });
    expect(record.summary).toEqual(want.summary);
    expect(store.resultsAfter('b', 0, total).map((r) => r.index).sort((a, b) => a - b)).toEqual(want.exceptions);
    expect([...fake.solves.values()].every((n) => n === 1)).toBe(true);
    expect(fake.solves.size).toBe(total);
    expect(store.doneSpans('b')).toEqual([{ lo: 0, hi: total }]);
    await scheduler.stop();
  });

  it('resumes after the work in flight was lost: neither loses nor counts twice a deal', async () => {
    const total = 4000;
    const want = expected(total);
    const path = join(dir, 'resume-census.sqlite');
    const first = new BatchStore(path);
    // the pool answers 5 tasks, then never again: the process "dies" with sub-ranges in flight
    const dying = fakePool({ hangAfter: 5 });
    const before = new BatchScheduler(first, dying.pool, { concurrency: 2, chunkMs: 20 });
    before.add(first.create('b', spec(total, 'exceptions'), total));
    await until(() => first.get('b')!.done > 0);
    await sleep(50);
    const partial = first.get('b')!.done;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(total);
    // no stop, no drain: a second process opens the same file and resumes
    const store = new BatchStore(path);
    const after = fakePool();
    const scheduler = new BatchScheduler(store, after.pool, { concurrency: 2, chunkMs: 20 });
    expect(scheduler.resume()).toBe(1);
    await until(() => store.get('b')!.status === 'done');
    const record = store.get('b')!;
    expect(record.done).toBe(total);
    expect(record.summary).toEqual(want.summary);
    expect(store.resultsAfter('b', 0, total).map((r) => r.index).sort((a, b) => a - b)).toEqual(want.exceptions);
    // the resumed run solved exactly the deals that were not counted
    expect([...after.solves.values()].reduce((a, n) => a + n, 0)).toBe(total - partial);
    await scheduler.stop();
    store.close();
    // the first scheduler's hung tasks are stopped; what they answer now is not counted
    await before.stop();
    first.close();
  });

  it('a task that fails as a whole has its deals solved again alone; the deal at fault is an error exception', async () => {
    const total = 200;
    const store = new BatchStore(':memory:');
    const s = spec(total, 'exceptions');
    const culprit = dealAt(s, 77).layout.columns.flat().slice(0, 16).join(',');
    const fake = fakePool({ failWhen: (deals) => deals.some((d) => d.layout.columns.flat().slice(0, 16).join(',') === culprit) });
    // deal 77 alone fails too (its single solve throws)
    const solveOne = fake.pool.solve;
    fake.pool.solve = async (deal, limits, signal) => {
      if (deal.layout.columns.flat().slice(0, 16).join(',') === culprit) throw new SolverError('worker_crashed', 'the solver worker died during this solve');
      return solveOne(deal, limits, signal);
    };
    const scheduler = new BatchScheduler(store, fake.pool, { concurrency: 1, chunkMs: 20 });
    scheduler.add(store.create('b', s, total));
    await until(() => store.get('b')!.status === 'done');
    const want = expected(total);
    const record = store.get('b')!;
    expect(record.done).toBe(total);
    expect(record.errors).toBe(1);
    const rows = store.resultsAfter('b', 0, total);
    expect(rows.find((r) => r.index === 77)).toMatchObject({ verdict: 'error', error: { code: 'worker_crashed' } });
    expect(rows.filter((r) => r.index !== 77).map((r) => r.index).sort((a, b) => a - b)).toEqual(want.exceptions.filter((i) => i !== 77));
    await scheduler.stop();
  });
});

describe('census through the API', () => {
  let service: BatchService;
  let app: ReturnType<typeof createApp>;
  beforeAll(() => {
    const fake = fakePool();
    service = createBatchService({ dbPath: join(dir, 'api.sqlite'), pool: fake.pool, concurrency: 2, maxDeals: 5000 });
    app = createApp({ solve: fake.pool.solve, batches: service, logError: () => {}, webRoot: null } as Parameters<typeof createApp>[0]);
  });
  afterAll(() => service.close());

  const create = async (body: unknown) => {
    const res = await post(app, body, { path: '/v1/batches' });
    expect(res.status, await res.clone().text()).toBe(202);
    return BatchStatusSchema.parse(await res.json());
  };
  const status = async (id: string) => BatchStatusSchema.parse(await (await app.request(`/v1/batches/${id}`)).json());
  const finished = async (id: string): Promise<BatchStatus> => {
    for (;;) {
      const st = await status(id);
      if (st.status !== 'running') return st;
      await sleep(10);
    }
  };
  const read = async (url: string) =>
    (await (await app.request(url)).text())
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => BatchResultSchema.parse(JSON.parse(l)));

  it('a range of 8,589,934,591 deals is one batch: accepted, with progress and an ETA, and cancelled', async () => {
    const big = await create({ game: 'freecell', deals: '1..8589934591', results: 'exceptions' });
    expect(big).toMatchObject({ total: 8_589_934_591, results: 'exceptions', status: 'running', stored: 0 });
    await until(() => service.scheduler.progress(big.id)!.dealsPerSecond > 0 && service.store.get(big.id)!.done > 100);
    const running = await status(big.id);
    expect(running.done).toBeGreaterThan(100);
    expect(running.etaSeconds).toBeGreaterThan(0);
    expect(running.summary.distributions.moves.length).toBeGreaterThan(0);
    const cancelled = BatchStatusSchema.parse(await (await app.request(`/v1/batches/${big.id}`, { method: 'DELETE' })).json());
    expect(cancelled.status).toBe('cancelled');
    // what was counted is in whole spans; nothing per solved deal is stored
    const record = service.store.get(big.id)!;
    expect(service.store.doneSpans(big.id).reduce((n, s) => n + s.hi - s.lo, 0)).toBe(record.done);
    expect(record.stored).toBe(record.unsolvable + record.unknown + record.errors);
  });

  it('filters the results by verdict in both modes; solved is a 400 in exceptions mode', async () => {
    const total = 3000;
    const want = expected(total);
    const all = await finished((await create({ game: 'freecell', deals: `1..${total}` })).id);
    const census = await finished((await create({ game: 'freecell', deals: `1..${total}`, results: 'exceptions' })).id);
    expect(all).toMatchObject({ status: 'done', results: 'all', stored: total });
    expect(census).toMatchObject({ status: 'done', results: 'exceptions', stored: want.exceptions.length });
    // the same census summary either way
    expect(census.summary).toEqual(all.summary);
    expect(census.counts).toEqual(all.counts);
    const exceptionsOf = async (id: string, query: string) => (await read(`/v1/batches/${id}/results?${query}`)).map((r) => r.index).sort((a, b) => a - b);
    expect(await exceptionsOf(all.id, 'verdict=unsolvable,unknown,error')).toEqual(want.exceptions);
    expect(await exceptionsOf(census.id, 'verdict=unsolvable,unknown,error')).toEqual(want.exceptions);
    expect(await exceptionsOf(census.id, '')).toEqual(want.exceptions);
    const unknownOnly = await read(`/v1/batches/${census.id}/results?verdict=unknown`);
    expect(unknownOnly.length).toBe(census.counts.unknown);
    expect(unknownOnly.every((r) => r.verdict === 'unknown')).toBe(true);
    // a filter with solved, in all mode: read in windows, resumable with after
    const solved = await read(`/v1/batches/${all.id}/results?verdict=solved&follow=false`);
    expect(solved.length).toBe(all.counts.solved);
    const tail = await read(`/v1/batches/${all.id}/results?verdict=unsolvable&after=${solved[1000].seq}`);
    expect(tail.every((r) => r.seq > solved[1000].seq && r.verdict === 'unsolvable')).toBe(true);
    const sse = await (await app.request(`/v1/batches/${census.id}/results?verdict=unsolvable`, { headers: { accept: 'text/event-stream' } })).text();
    expect(sse.match(/^event: result$/gm)?.length).toBe(census.counts.unsolvable);
    expect(sse.endsWith(`event: end\ndata: {"status":"done","done":${total},"total":${total}}\n\n`)).toBe(true);
    const bad = await app.request(`/v1/batches/${census.id}/results?verdict=solved`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string; path: string } }).error).toMatchObject({ code: 'invalid_request', path: 'verdict' });
    expect((await app.request(`/v1/batches/${census.id}/results?verdict=lost`)).status).toBe(400);
  });

  it('deleting the results of an ended batch frees their storage; the status and summary stay; a running batch is a 409', async () => {
    const running = await create({ game: 'freecell', deals: '1..8589934591', results: 'exceptions' });
    const conflict = await app.request(`${running.urls.results}`, { method: 'DELETE' });
    expect(conflict.status).toBe(409);
    expect(((await conflict.json()) as { error: { code: string } }).error.code).toBe('conflict');
    await app.request(running.urls.self, { method: 'DELETE' });

    const big = await finished((await create({ game: 'freecell', deals: '1..5000' })).id);
    const file = join(dir, 'api.sqlite');
    const sizeOf = () => statSync(file).size + statSync(`${file}-wal`).size;
    const before = sizeOf();
    const res = await app.request(`/v1/batches/${big.id}/results`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    const purged = BatchStatusSchema.parse(await res.json());
    expect(purged).toMatchObject({ status: 'done', stored: 0, done: 5000, counts: big.counts, summary: big.summary });
    expect(purged.purgedAt).not.toBeNull();
    expect(await read(`${big.urls.results}`)).toEqual([]);
    const after = sizeOf();
    // 5,000 results of 60-99 moves (8 bytes a move) are well over 2 MB: given back to the file system
    expect(before - after).toBeGreaterThan(2_000_000);
    expect(service.store.fileStats().freePages).toBe(0);
    // again: nothing to do, the same answer
    expect((await app.request(`/v1/batches/${big.id}/results`, { method: 'DELETE' })).status).toBe(200);
    expect((await app.request('/v1/batches/nope/results', { method: 'DELETE' })).status).toBe(404);
  });

  it('retention deletes the results of batches that ended longer ago than the retention time', async () => {
    const fake = fakePool();
    const kept = createBatchService({ dbPath: ':memory:', pool: fake.pool, retentionMs: 3_600_000, resume: false });
    try {
      const old = kept.create({ game: 'freecell', deals: '1..50' });
      await until(() => kept.store.get(old.id)!.status === 'done');
      await kept.applyRetention(Date.now() + 1000);
      expect(kept.status(old.id)).toMatchObject({ stored: 50, purgedAt: null });
      await kept.applyRetention(Date.now() + 3_600_000 + 1000);
      expect(kept.status(old.id)).toMatchObject({ stored: 0, done: 50 });
      expect(kept.status(old.id)!.purgedAt).not.toBeNull();
    } finally {
      await kept.close();
    }
  });
});

describe('quotas', () => {
  const ALICE = { name: 'alice', token: 'alice-token-0123456789abcdef' };
  const BOB = { name: 'bob', token: 'bob-token-0123456789abcdef=' };
  const never = neverPool();

  it('refuses a batch that would pass the queued-deals quota: per API key with keys, overall without; 429 quota_exceeded', async () => {
    const logger = createLogger({ level: 'silent' });
    const service = createBatchService({ dbPath: ':memory:', pool: never, quotas: { maxQueuedDeals: 1000, maxQueuedCensusDeals: 10_000 } });
    const keyed = createServiceApp({ solve: never.solve, logger, config: { apiKeys: [ALICE, BOB] }, app: { batches: service, webRoot: null } });
    try {
      const as = (key: typeof ALICE, body: unknown) => post(keyed, body, { path: '/v1/batches', headers: { authorization: `Bearer ${key.token}` } });
      expect((await as(ALICE, { game: 'freecell', deals: '1..600' })).status).toBe(202);
      const refused = await as(ALICE, { game: 'freecell', deals: '1..500' });
      expect(refused.status).toBe(429);
      const error = ((await refused.json()) as { error: { code: string; message: string; path: string } }).error;
      expect(error).toMatchObject({ code: 'quota_exceeded', path: 'deals' });
      expect(error.message).toContain('"alice" has 600 deals queued');
      // Bob has his own quota; the census quota is apart
      expect((await as(BOB, { game: 'freecell', deals: '1..900' })).status).toBe(202);
      expect((await as(ALICE, { game: 'freecell', deals: '1..9000', results: 'exceptions' })).status).toBe(202);
      expect((await as(ALICE, { game: 'freecell', deals: '1..2000', results: 'exceptions' })).status).toBe(429);
      // a cancelled batch no longer counts
      const first = service.store.running().find((r) => r.owner === 'alice' && r.total === 600)!;
      service.cancel(first.id);
      expect((await as(ALICE, { game: 'freecell', deals: '1..500' })).status).toBe(202);
    } finally {
      await service.close();
    }
    const open = createBatchService({ dbPath: ':memory:', pool: never, quotas: { maxQueuedDeals: 1000, maxQueuedCensusDeals: 10_000 } });
    try {
      open.create({ game: 'freecell', deals: '1..600' });
      expect(() => open.create({ game: 'freecell', deals: '1..600' })).toThrow(/the service has 600 deals queued/);
    } finally {
      await open.close();
    }
  });
});

describe('a file of the store\'s earlier version', () => {
  it('opens with its batches, their counters and a summary rebuilt from the stored results', () => {
    const path = join(dir, 'old.sqlite');
    const db = new Database(path);
    db.exec(`
      CREATE TABLE batches (id TEXT PRIMARY KEY, spec TEXT NOT NULL, status TEXT NOT NULL, created_at INTEGER NOT NULL, finished_at INTEGER,
        total INTEGER NOT NULL, done INTEGER NOT NULL DEFAULT 0, solved INTEGER NOT NULL DEFAULT 0, unsolvable INTEGER NOT NULL DEFAULT 0,
        unknown INTEGER NOT NULL DEFAULT 0, errors INTEGER NOT NULL DEFAULT 0, sum_moves INTEGER NOT NULL DEFAULT 0, sum_elapsed_ms REAL NOT NULL DEFAULT 0,
        active_ms INTEGER NOT NULL DEFAULT 0);
      CREATE TABLE results (batch_id TEXT NOT NULL, idx INTEGER NOT NULL, seq INTEGER NOT NULL, verdict TEXT NOT NULL, reason TEXT, moves BLOB,
        states_expanded INTEGER NOT NULL, states_stored INTEGER NOT NULL, elapsed_ms REAL NOT NULL, error_code TEXT, error_message TEXT,
        PRIMARY KEY (batch_id, idx)) WITHOUT ROWID;
      CREATE UNIQUE INDEX results_by_seq ON results (batch_id, seq);`);
    db.prepare("INSERT INTO batches VALUES ('old', ?, 'done', 1, 2, 2, 2, 1, 1, 0, 0, 10, 5.5, 100)").run(JSON.stringify(spec(2)));
    db.prepare("INSERT INTO results VALUES ('old', 0, 1, 'solved', NULL, ?, 150, 150, 0.5, NULL, NULL)").run(Buffer.alloc(80));
    db.prepare("INSERT INTO results VALUES ('old', 1, 2, 'unsolvable', NULL, NULL, 999, 999, 5, NULL, NULL)").run();
    db.close();

    const store = new BatchStore(path);
    const record = store.get('old')!;
    expect(record).toMatchObject({ done: 2, stored: 2, solved: 1, unsolvable: 1, purgedAt: null, owner: null });
    expect(record.summary).toMatchObject({ solved: 1, unsolvable: 1, sumMoves: 10, moves: { 10: 1 }, positions: { 8: 1 } });
    expect(store.resultsSlice('old', 0, 10, ['unsolvable']).results.map((r) => r.index)).toEqual([1]);
    store.close();
    // incremental vacuum is on now: deleted results give their pages back
    const again = new Database(path, { readonly: true });
    expect(again.pragma('auto_vacuum', { simple: true })).toBe(2);
    again.close();
  });
});

describe('reading results never stalls the service', () => {
  it('while a fast reader streams a 100,000-result batch, the event loop keeps its turns', async () => {
    const service = createBatchService({ dbPath: join(dir, 'readers.sqlite'), pool: neverPool(), resume: false });
    const id = service.create({ game: 'freecell', deals: '1..100000' }).id;
    const moves = new Uint8Array(100 * 8);
    for (let i = 0; i < 100_000; i += 2000) {
      service.store.addResults(
        id,
        Array.from({ length: 2000 }, (_, k): ResultInput => ({ index: i + k, verdict: 'solved', moves: [], packedMoves: moves, statesExpanded: 100, statesStored: 100, elapsedMs: 0.2 })),
      );
    }
    service.scheduler.cancel(id);
    const app = createApp({ solve: () => new Promise(() => {}), batches: service, logError: () => {}, webRoot: null } as Parameters<typeof createApp>[0]);
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((r) => server.once('listening', r));
    const { port } = server.address() as { port: number };
    const lag = monitorEventLoopDelay({ resolution: 5 });
    try {
      // curl reads as fast as the socket gives: the kernel takes every write at once, so no 'drain' gives the loop a turn
      const reader = spawn('curl', ['-s', '-o', '/dev/null', '-w', '%{size_download}', `http://127.0.0.1:${port}/v1/batches/${id}/results?follow=false`]);
      let size = '';
      reader.stdout.on('data', (d: Buffer) => (size += d.toString()));
      lag.enable();
      const healthz: number[] = [];
      let reading = true;
      const done = new Promise((r) => reader.on('exit', r)).then(() => (reading = false));
      while (reading) {
        const t = performance.now();
        await (await fetch(`http://127.0.0.1:${port}/healthz`)).arrayBuffer();
        healthz.push(performance.now() - t);
        await sleep(20);
      }
      await done;
      lag.disable();
      expect(Number(size)).toBeGreaterThan(100_000 * 200);
      healthz.sort((a, b) => a - b);
      console.log(`one reader of 100,000 results: event-loop lag max ${(lag.max / 1e6).toFixed(0)} ms, /healthz n=${healthz.length} max ${healthz.at(-1)!.toFixed(0)} ms`);
      // read at once, the whole stream held the loop for seconds; in slices, a slice is a few ms (room left for a loaded machine)
      expect(lag.max / 1e6).toBeLessThan(400);
      expect(healthz.length).toBeGreaterThan(5);
    } finally {
      server.close();
      await service.close();
    }
  }, 120_000);
});

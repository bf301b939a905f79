/**
 * The `redis` batch backend in-process, against the real Redis of the tests
 * (tests/helpers/redis.ts: skipped locally without one, a failure under
 * CI=true): the configuration; the batch HTTP API answering the same in both
 * modes (one scripted conversation run against the embedded backend and
 * against Redis with two in-process workers, transcripts compared); the
 * record script's exactly-once rule; cancel reaching a running deal through
 * pub/sub; a drained worker handing its job back; the sweep that finishes
 * the enqueuing an API server left half done.
 *
 * The real processes (two workers, SIGKILL, SIGTERM, cancel) are in
 * tests/integration/redis-workers.test.ts.
 */
import type { Cancellation } from '../../server/pool.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { BatchStatusSchema, type BatchStatus } from '../../client-sdk/api/batch-schemas.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { SolverError } from '../../client-sdk/core/errors.js';
import type { Move } from '../../client-sdk/core/moves.js';
import type { Deal } from '../../client-sdk/core/rules.js';
import type { SolveLimits, SolveOutcome } from '../../client-sdk/core/solve-types.js';
import { createApp } from '../../server/app.js';
import { planBatch } from '../../server/batches/positions.js';
import { RedisBatchBackend } from '../../server/batches/redis/backend.js';
import { batchFields, encodeResult, recordFields } from '../../server/batches/redis/codec.js';
import { summariseRange, summaryFromHash, summaryIncrements } from '../../server/batches/census.js';
import type { ResultInput } from '../../server/batches/model.js';
import { RedisKeys } from '../../server/batches/redis/keys.js';
import { RECORD, RECORD_RANGE } from '../../server/batches/redis/scripts.js';
import { BatchConsumer } from '../../server/batches/redis/consumer.js';
import { createBatchService } from '../../server/batches/embedded/service.js';
import { DEFAULT_LIMITS_CONFIG } from '../../server/limits.js';
import { loadConfig } from '../../server/config.js';
import { deletePrefix, REDIS_URL, redisAvailable, testPrefix } from '../helpers/redis.js';
import { packedAnswer } from '../helpers/pool-fixture.js';

const available = await redisAvailable();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A stand-in for the pool: a verdict that depends only on the deal (so both
 * backends get the same answers whatever order the deals run in), after
 * `ms`, stopped at once by its signal (like the pool's stop flag).
 */
function fakeSolve(ms = 1) {
  let started = 0;
  const solve = async (deal: Deal, _limits: SolveLimits, signal?: Cancellation): Promise<SolveOutcome> => {
    started++;
    const stopped = await new Promise<boolean>((resolve) => {
      if (signal?.aborted) return resolve(true);
      const timer = setTimeout(() => resolve(false), ms);
      signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    const stats = { statesExpanded: 10, statesStored: 20, elapsedMs: 1.25, memoryBytes: 0 };
    if (stopped) return { verdict: 'unknown', reason: 'cancelled', moves: [], stats };
    const key = deal.layout.columns.flat().slice(0, 3).reduce((a, c) => a + Number(c), 0);
    if (key % 7 === 0) return { verdict: 'unsolvable', moves: [], stats };
    if (key % 11 === 0) return { verdict: 'unknown', reason: 'max_states', moves: [], stats };
    const moves: Move[] = Array.from({ length: 1 + (key % 5) }, (_, i) => ({
      from: 'column',
      fromIndex: (key + i) % 8,
      to: 'foundation',
      toIndex: i % 4,
      count: 1,
      card: 'AH',
      auto: i % 2 === 0,
    }));
    return { verdict: 'solved', moves, stats };
  };
  return { solve, started: () => started };
}

describe('configuration of the redis backend', () => {
  it('defaults to the embedded backend and reads the redis and worker variables', () => {
    const d = loadConfig({ THREADS: '3' });
    expect(d.batch).toMatchObject({ backend: 'embedded', redis: { url: 'redis://127.0.0.1:6379', prefix: 'solver', chunkDeals: 200 } });
    expect(d.worker).toMatchObject({ concurrency: 3, lockMs: 30_000, stalledIntervalMs: 15_000, metricsPort: null });
    expect(d.worker.name).toMatch(/:\d+$/);
    const c = loadConfig({
      BATCH_BACKEND: 'redis',
      REDIS_URL: 'redis://:secret@10.0.0.5:6380/2',
      REDIS_PREFIX: 'prod-a',
      BATCH_CHUNK_DEALS: '50',
      WORKER_CONCURRENCY: '4',
      WORKER_LOCK_MS: '10000',
      WORKER_STALLED_INTERVAL_MS: '2000',
      WORKER_METRICS_PORT: '9464',
      WORKER_NAME: 'box-7',
    });
    expect(c.batch).toMatchObject({ backend: 'redis', redis: { url: 'redis://:secret@10.0.0.5:6380/2', prefix: 'prod-a', chunkDeals: 50 } });
    expect(c.worker).toEqual({ concurrency: 4, lockMs: 10_000, stalledIntervalMs: 2000, metricsPort: 9464, name: 'box-7' });
    expect(() => loadConfig({ BATCH_BACKEND: 'kafka' })).toThrow(/BATCH_BACKEND: must be one of embedded, redis/);
    expect(() => loadConfig({ REDIS_URL: 'localhost:6379' })).toThrow(/REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/);
    expect(() => loadConfig({ BATCH_CHUNK_DEALS: '0' })).toThrow(/BATCH_CHUNK_DEALS/);
    expect(() => loadConfig({ REDIS_PREFIX: 'a b' })).toThrow(/REDIS_PREFIX/);
  });
});

describe.skipIf(!available)('redis backend in-process', () => {
  const prefixes: string[] = [];
  const prefix = (name: string) => {
    const p = testPrefix(name);
    prefixes.push(p);
    return p;
  };
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    redis.disconnect();
    for (const p of prefixes) await deletePrefix(p);
  });

  type App = ReturnType<typeof createApp>;
  const json = { 'content-type': 'application/json' };

  async function waitEnded(app: App, id: string): Promise<BatchStatus> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const st = BatchStatusSchema.parse(await (await app.request(`/v1/batches/${id}`)).json());
      if (st.status !== 'running') return st;
      if (Date.now() > deadline) throw new Error(`still running: ${JSON.stringify(st)}`);
      await sleep(10);
    }
  }

  /**
   * One conversation with the batch API; returns what a client saw, with the
   * parts that differ by nature (ids, times, rates, completion order) made
   * comparable.
   */
  async function conversation(app: App): Promise<unknown[]> {
    const seen: unknown[] = [];
    const norm = (text: string, id?: string) => (id ? text.replaceAll(id, '<id>') : text);
    const statusShape = (st: BatchStatus) => ({
      ...st,
      id: '<id>',
      createdAt: typeof st.createdAt,
      finishedAt: st.finishedAt === null ? null : typeof st.finishedAt,
      dealsPerSecond: typeof st.dealsPerSecond,
      urls: { self: norm(st.urls.self, st.id), results: norm(st.urls.results, st.id) },
    });

    // Bad requests: the same codes and places.
    for (const body of [{ game: 'freecell' }, { game: 'freecell', deals: '5..1' }, { game: 'no_such', deals: '1..2' }, { game: 'freecell', deals: [1, 8589934592] }]) {
      const res = await app.request('/v1/batches', { method: 'POST', headers: json, body: JSON.stringify(body) });
      seen.push(['bad', res.status, await res.json()]);
    }

    // A batch of 40 deals to the end.
    const res = await app.request('/v1/batches', { method: 'POST', headers: json, body: JSON.stringify({ game: 'freecell', deals: '1..40', name: 'contract' }) });
    const created = BatchStatusSchema.parse(await res.json());
    const id = created.id;
    seen.push(['created', res.status, norm(res.headers.get('location')!, id), statusShape(created).status, created.total]);
    const done = await waitEnded(app, id);
    seen.push(['done', statusShape(done)]);

    const all = await app.request(`/v1/batches/${id}/results?moves=true`);
    seen.push(['ndjson type', all.headers.get('content-type')]);
    const rows = (await all.text()).trim().split('\n').map((l) => JSON.parse(l) as { seq: number; index: number });
    seen.push(['seqs', rows.map((r) => r.seq)]);
    seen.push(['rows by index', rows.map(({ seq: _seq, ...r }) => r).sort((a, b) => a.index - b.index)]);

    const tail = await (await app.request(`/v1/batches/${id}/results?after=37&follow=false`)).text();
    seen.push(['after 37', tail.trim().split('\n').map((l) => (JSON.parse(l) as { seq: number }).seq)]);
    const sse = await app.request(`/v1/batches/${id}/results`, { headers: { accept: 'text/event-stream', 'last-event-id': '38' } });
    const events = (await sse.text()).split('\n\n').filter((e) => e !== '');
    seen.push(['sse', sse.headers.get('content-type'), events.map((e) => e.split('\n').filter((l) => !l.startsWith('data: {"seq"')))]);

    const again = await app.request(`/v1/batches/${id}`, { method: 'DELETE' });
    seen.push(['cancel ended', again.status, statusShape(BatchStatusSchema.parse(await again.json())).status]);

    // A long batch, cancelled while it runs: the stream of what was stored ends.
    const long = BatchStatusSchema.parse(
      await (await app.request('/v1/batches', { method: 'POST', headers: json, body: JSON.stringify({ game: 'freecell', deals: '1..5000' }) })).json(),
    );
    for (let st = long; st.done < 20; await sleep(5)) st = BatchStatusSchema.parse(await (await app.request(`/v1/batches/${long.id}`)).json());
    const cancelled = BatchStatusSchema.parse(await (await app.request(`/v1/batches/${long.id}`, { method: 'DELETE' })).json());
    await sleep(300);
    const later = BatchStatusSchema.parse(await (await app.request(`/v1/batches/${long.id}`)).json());
    const stored = (await (await app.request(`/v1/batches/${long.id}/results`)).text()).trim().split('\n');
    seen.push([
      'cancelled',
      cancelled.status,
      cancelled.finishedAt !== null,
      later.done === cancelled.done,
      later.done < 5000,
      stored.length === later.done,
      later.counts.solved + later.counts.unsolvable + later.counts.unknown + later.counts.error === later.done,
    ]);

    // A census (only the deals not solved kept) to the end; its exceptions, filtered; its results deleted.
    const census = BatchStatusSchema.parse(
      await (await app.request('/v1/batches', { method: 'POST', headers: json, body: JSON.stringify({ game: 'freecell', deals: '1..300', results: 'exceptions' }) })).json(),
    );
    const censusDone = await waitEnded(app, census.id);
    seen.push(['census', statusShape(censusDone)]);
    const indicesOf = async (query: string) =>
      (await (await app.request(`/v1/batches/${census.id}/results${query}`)).text())
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => (JSON.parse(l) as { index: number; verdict: string }))
        .map((r) => [r.index, r.verdict])
        .sort((a, b) => Number(a[0]) - Number(b[0]));
    seen.push(['census exceptions', await indicesOf('')]);
    seen.push(['census unknown', await indicesOf('?verdict=unknown')]);
    const solvedAsked = await app.request(`/v1/batches/${census.id}/results?verdict=solved`);
    seen.push(['census solved', solvedAsked.status, await solvedAsked.json()]);
    const endless = BatchStatusSchema.parse(
      await (await app.request('/v1/batches', { method: 'POST', headers: json, body: JSON.stringify({ game: 'freecell', deals: '1..8589934591', results: 'exceptions' }) })).json(),
    );
    const busy = await app.request(`/v1/batches/${endless.id}/results`, { method: 'DELETE' });
    seen.push(['purge running', busy.status, norm(JSON.stringify(await busy.json()), endless.id)]);
    await app.request(`/v1/batches/${endless.id}`, { method: 'DELETE' });
    const purged = await app.request(`/v1/batches/${census.id}/results`, { method: 'DELETE' });
    const purgedStatus = BatchStatusSchema.parse(await purged.json());
    seen.push(['purged', purged.status, { ...statusShape(purgedStatus), purgedAt: typeof purgedStatus.purgedAt }]);
    seen.push(['purged results', await indicesOf('')]);

    for (const [method, path] of [['GET', '/v1/batches/nope'], ['DELETE', '/v1/batches/nope'], ['GET', '/v1/batches/nope/results'], ['DELETE', '/v1/batches/nope/results']]) {
      const r = await app.request(path, { method });
      seen.push(['missing', method, path, r.status, await r.json()]);
    }
    return seen;
  }

  it('answers the batch API exactly as the embedded backend does', async () => {
    const embeddedSolve = fakeSolve();
    const service = createBatchService({ dbPath: ':memory:', pool: { solve: embeddedSolve.solve }, concurrency: 2 });
    const embeddedApp = createApp({ solve: embeddedSolve.solve, batches: service, logError: () => {}, webRoot: null });
    const embedded = await conversation(embeddedApp);
    await service.close();

    const p = prefix('contract');
    const backend = await RedisBatchBackend.open({ url: REDIS_URL, prefix: p, chunkDeals: 7, censusChunkDeals: 40, censusWindow: 3, pollMs: 50 });
    const redisSolve = fakeSolve();
    const workers = await Promise.all([0, 1].map((i) => BatchConsumer.start({ url: REDIS_URL, prefix: p, solve: redisSolve.solve, threads: 1, name: `w${i}`, flushMs: 20 })));
    const redisApp = createApp({ solve: redisSolve.solve, batches: backend, logError: () => {}, webRoot: null });
    try {
      const viaRedis = await conversation(redisApp);
      expect(viaRedis).toEqual(embedded);
      // Both workers took part.
      expect(workers.map((w) => w.stats().dealsTotal).every((n) => n > 0)).toBe(true);
      const queue = await backend.queueCounts();
      expect(queue.failed).toBe(0);
    } finally {
      await Promise.all(workers.map((w) => w.close()));
      await backend.close();
    }
  });

  it('records each deal once: a job run twice changes nothing, a cancelled batch takes no more results', async () => {
    const k = new RedisKeys(prefix('record'));
    const { spec } = planBatch({ game: 'freecell', deals: '1..4' }, DEFAULT_LIMITS_CONFIG, 10);
    await redis.hset(k.batch('b'), batchFields('b', spec, 4, 2, Date.now()));
    const result = (index: number, verdict: 'solved' | 'unsolvable', moves = 0) => ({
      index,
      verdict,
      moves: Array.from({ length: moves }, () => ({ from: 'column' as const, fromIndex: 0, to: 'foundation' as const, toIndex: 0, count: 1, card: 'AS', auto: false })),
      statesExpanded: 1,
      statesStored: 2,
      elapsedMs: 0.5,
    });
    const record = (results: ReturnType<typeof result>[]) =>
      RECORD.run(
        redis,
        [k.batch('b'), k.index('b'), k.results('b'), k.running, k.ended],
        [k.events, 'b', results.length, ...results.flatMap(recordFields)],
      );
    expect(await record([result(2, 'solved', 3), result(0, 'unsolvable')])).toEqual([2, 2]);
    // The same job again (its worker was thought dead), with a different verdict for deal 2: refused.
    expect(await record([result(2, 'unsolvable'), result(0, 'unsolvable'), result(1, 'solved', 5)])).toEqual([1, 3]);
    const h = await redis.hgetall(k.batch('b'));
    expect(h).toMatchObject({ status: 'running', done: '3', solved: '2', unsolvable: '1', unknown: '0', errors: '0', sumMoves: '8' });
    expect(Number(h.sumElapsedMs)).toBeCloseTo(1.5);
    expect(await redis.hgetall(k.index('b'))).toEqual({ '2': '1', '0': '2', '1': '3' });
    expect(await redis.hlen(k.results('b'))).toBe(3);
    // Cancelled: nothing more is written.
    await redis.hset(k.batch('b'), 'status', 'cancelled');
    expect(await record([result(3, 'solved')])).toEqual([-1, 3]);
    expect(await redis.hlen(k.results('b'))).toBe(3);
  });

  it('counts a census job once: the same job again changes nothing, a cancelled batch takes no more', async () => {
    const k = new RedisKeys(prefix('record-range'));
    const { spec } = planBatch({ game: 'freecell', deals: '1..30', results: 'exceptions' }, DEFAULT_LIMITS_CONFIG, 10);
    await redis.hset(k.batch('b'), batchFields('b', spec, 30, 10, Date.now(), { window: 2 }));
    const solved = (index: number): ResultInput => ({ index, verdict: 'solved', moves: [], packedMoves: new Uint8Array(8 * (50 + index)), statesExpanded: 100, statesStored: 100, elapsedMs: 0.25 });
    const unsolvable = (index: number): ResultInput => ({ index, verdict: 'unsolvable', moves: [], statesExpanded: 5000, statesStored: 5000, elapsedMs: 40 });
    const job = (n: number, bad: number[]) => {
      const { summary, kept } = summariseRange(Array.from({ length: 10 }, (_, i) => (bad.includes(n * 10 + i) ? unsolvable(n * 10 + i) : solved(n * 10 + i))), 'exceptions');
      const increments = summaryIncrements(summary);
      return RECORD_RANGE.run(
        redis,
        [k.batch('b'), k.results('b'), k.running, k.jobs('b'), k.ended],
        [k.events, 'b', n, 10, summary.sumElapsedUs / 1000, increments.length / 2, ...increments, ...kept.map(encodeResult)],
      );
    };
    expect(await job(1, [13, 17])).toEqual([1, 10]);
    // the same job again (its worker was thought dead), with other verdicts: refused whole
    expect(await job(1, [])).toEqual([0, 10]);
    expect(await job(0, [2])).toEqual([1, 20]);
    const h = await redis.hgetall(k.batch('b'));
    expect(h).toMatchObject({ status: 'running', done: '20', stored: '3', solved: '17', unsolvable: '3' });
    const summary = summaryFromHash(h);
    expect(summary.sumMoves).toBe(Array.from({ length: 20 }, (_, i) => i).filter((i) => ![2, 13, 17].includes(i)).reduce((a, i) => a + 50 + i, 0));
    expect(summary.moves[50]).toBe(1);
    expect(Object.values(await redis.hgetall(k.results('b'))).map((t) => (JSON.parse(t) as { i: number }).i).sort((a, b) => a - b)).toEqual([2, 13, 17]);
    await redis.hset(k.batch('b'), 'status', 'cancelled');
    expect(await job(2, [])).toEqual([-1, 20]);
    expect(await redis.hget(k.batch('b'), 'done')).toBe('20');
  });

  it('hands quick deals out several a task once one is timed (solveManyPacked); a task that fails as a whole has its deals solved again alone; every deal once, verdicts as one a task', async () => {
    const p = prefix('many');
    const backend = await RedisBatchBackend.open({ url: REDIS_URL, prefix: p, chunkDeals: 20 });
    const fake = fakeSolve();
    const sizes: number[] = [];
    // as the pool's solveManyPacked answers: each solution's moves as bytes, the outcome's moves empty
    const solveManyPacked = async (deals: readonly Deal[], limits: SolveLimits, signal?: AbortSignal) => {
      sizes.push(deals.length);
      if (sizes.length === 2) throw new SolverError('worker_crashed', 'the solver worker died during this solve');
      const outcomes = await Promise.all(deals.map((deal) => fake.solve(deal, limits, signal)));
      return outcomes.map(packedAnswer);
    };
    const worker = await BatchConsumer.start({ url: REDIS_URL, prefix: p, solve: fake.solve, solveManyPacked, threads: 1, concurrency: 1, name: 'w', flushMs: 20, chunkMs: 5 });
    try {
      const st = await backend.create({ game: 'freecell', deals: '1..60' });
      let now = st;
      while (now.status === 'running') {
        await sleep(20);
        now = (await backend.status(st.id))!;
      }
      expect(now).toMatchObject({ status: 'done', done: 60 });
      // the fake's deals take 1.25 ms by their stats: chunkMs 5 / 1.25 = 4 a task once the batch's first deal (alone) was timed;
      // a job of 20 deals ends with what is left (3 after the first deal)
      expect(sizes.filter((n) => n === 4).length).toBeGreaterThanOrEqual(12);
      expect(sizes.every((n) => n === 4 || n === 3)).toBe(true);
      const page = (await backend.page(st.id, { after: 0, limit: 1000, withMoves: true }))!;
      const indices = page.results.map((r) => r.index).sort((x, y) => x - y);
      expect(indices).toEqual(Array.from({ length: 60 }, (_, i) => i));
      const reference = fakeSolve();
      for (const r of page.results) {
        const expected = await reference.solve(resolveDeal({ game: 'freecell', deal: r.index + 1 }), { maxStates: 1, timeoutMs: 1 });
        expect(r.verdict).toBe(expected.verdict);
        // the moves, stored from the packed bytes of a task of several or from a single solve's objects alike
        expect(r.moves).toEqual(expected.moves);
      }
      // each deal solved once: the task that failed as a whole (before it solved any) had its deals solved alone
      expect(fake.started()).toBe(60);
      // every deal but the first went in a task of several once (the failed one's included)
      expect(sizes.reduce((a, n) => a + n, 0)).toBe(60 - 1);
    } finally {
      await worker.close();
      await backend.close();
    }
  });

  it('cancel stops a deal running on a worker at once (pub/sub), and no more of its jobs run', async () => {
    const p = prefix('cancel');
    const backend = await RedisBatchBackend.open({ url: REDIS_URL, prefix: p, chunkDeals: 5 });
    const slow = fakeSolve(60_000); // every deal runs until stopped
    const worker = await BatchConsumer.start({ url: REDIS_URL, prefix: p, solve: slow.solve, threads: 2, name: 'w' });
    try {
      const st = await backend.create({ game: 'freecell', deals: '1..50' });
      while (worker.stats().dealsInFlight < 2) await sleep(5);
      const t = performance.now();
      await backend.cancel(st.id);
      while (worker.stats().dealsInFlight > 0) await sleep(1);
      const ms = performance.now() - t;
      // A deal the cancel does not reach runs its whole 60 s: 5 s is room for
      // a busy machine (500 ms was), and still tells the two apart.
      expect(ms).toBeLessThan(5000);
      await sleep(300);
      expect(slow.started()).toBe(2); // no deal started after the cancel
      expect(await backend.status(st.id)).toMatchObject({ status: 'cancelled', done: 0 });
      console.log(`cancel reached the running deals of the worker in ${ms.toFixed(1)} ms`);
    } finally {
      await worker.close();
      await backend.close();
    }
  });

  it('a draining worker stores what it finished and hands its job back; another worker completes it', async () => {
    const p = prefix('drain');
    const backend = await RedisBatchBackend.open({ url: REDIS_URL, prefix: p, chunkDeals: 1000 });
    const first = await BatchConsumer.start({ url: REDIS_URL, prefix: p, solve: fakeSolve(20).solve, threads: 1, name: 'first', lockMs: 60_000 });
    let second: BatchConsumer | undefined;
    try {
      const st = await backend.create({ game: 'freecell', deals: '1..200' }); // one job
      while (first.stats().dealsTotal < 10) await sleep(5);
      await first.drain(5000);
      expect(first.stats().jobsHandedBack).toBe(1);
      const kept = (await backend.status(st.id))!.done;
      expect(kept).toBeGreaterThanOrEqual(10);
      expect(kept).toBeLessThan(200);
      // Handed back, not abandoned: another worker takes it at once, not after the 60 s lock.
      const secondSolve = fakeSolve(1);
      second = await BatchConsumer.start({ url: REDIS_URL, prefix: p, solve: secondSolve.solve, threads: 1, name: 'second' });
      const deadline = Date.now() + 10_000;
      while ((await backend.status(st.id))!.status === 'running' && Date.now() < deadline) await sleep(20);
      const end = (await backend.status(st.id))!;
      expect(end).toMatchObject({ status: 'done', done: 200 });
      expect(secondSolve.started()).toBe(200 - kept); // only the deals without a result
      const page = (await backend.page(st.id, { after: 0, limit: 500, withMoves: false }))!;
      expect(new Set(page.results.map((r) => r.index)).size).toBe(200);
    } finally {
      await second?.close();
      await backend.close();
    }
  });

  it('finishes the enqueuing of a batch whose API server died half way', async () => {
    const p = prefix('sweep');
    const k = new RedisKeys(p);
    const { spec, total } = planBatch({ game: 'freecell', deals: '1..30' }, DEFAULT_LIMITS_CONFIG, 100);
    // What a server leaves when it dies right after writing the batch: no job enqueued, the lock expired.
    await redis.multi().hset(k.batch('orphan'), batchFields('orphan', spec, total, 4, Date.now())).sadd(k.running, 'orphan').exec();
    const backend = await RedisBatchBackend.open({ url: REDIS_URL, prefix: p, chunkDeals: 4 });
    const worker = await BatchConsumer.start({ url: REDIS_URL, prefix: p, solve: fakeSolve().solve, threads: 1 });
    try {
      expect(await redis.hget(k.batch('orphan'), 'enqueued')).toBe('8');
      const deadline = Date.now() + 10_000;
      while ((await backend.status('orphan'))!.status === 'running' && Date.now() < deadline) await sleep(20);
      expect(await backend.status('orphan')).toMatchObject({ status: 'done', done: 30, total: 30 });
      expect(await redis.sismember(k.running, 'orphan')).toBe(0);
    } finally {
      await worker.close();
      await backend.close();
    }
  });
});

/**
 * The `redis` batch backend with real processes on loopback: two API servers
 * (`server/main.ts`, BATCH_BACKEND=redis) and batch workers
 * (`server/batch-worker-main.ts`, one solver thread each) against the tests' Redis
 * (tests/helpers/redis.ts: skipped locally without one, a failure under
 * CI=true).
 *
 * - a 2,000-deal batch created on one API server and streamed from the
 *   other, run by two workers: correct counts, every solution checked, both
 *   workers at work, queue depth and per-worker numbers in `/metrics`;
 * - cancel while both workers are deep in long deals: both stop at once;
 * - one worker killed with SIGKILL a quarter in: BullMQ's stalled-job check
 *   gives its job to the other, the batch completes, every deal's result
 *   exactly once (also counted in Redis itself);
 * - SIGTERM: the worker drains (exit 0) and hands its job back, so the batch
 *   completes long before that job's 60 s lock could have run out;
 * - a census (exceptions only) with a worker killed with SIGKILL part way:
 *   the same counts, histograms and exceptions as the embedded backend's
 *   run of the same range, every job counted once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { BatchStatusSchema, type BatchResult } from '../../client-sdk/api/batch-schemas.js';
import { RedisKeys } from '../../server/batches/redis/keys.js';
import { deletePrefix, REDIS_URL, redisAvailable, startWorker, testPrefix, type WorkerProcess } from '../helpers/redis.js';
import { batchResults, batchStatus, createBatch, expectCheckedMsResult, waitForBatch } from '../helpers/batch-api.js';
import { startServer, type ServerProcess } from '../helpers/server-process.js';

const available = await redisAvailable();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Room for a loaded CI machine (each test takes 1-15 s here). */
const TEST_TIMEOUT_MS = 120_000;

describe.skipIf(!available)('redis backend: API servers and worker processes', () => {
  const prefix = testPrefix('e2e');
  const keys = new RedisKeys(prefix);
  let redis: Redis;
  let apiA: ServerProcess;
  let apiB: ServerProcess;
  /** W1 has a short lock (it is the one killed), W2 a long one (it is the one drained). */
  let w1: WorkerProcess;
  let w2: WorkerProcess;
  let w3: WorkerProcess | undefined;
  let w4: WorkerProcess | undefined;

  const apiEnv = { BATCH_BACKEND: 'redis', REDIS_URL, REDIS_PREFIX: prefix, BATCH_CHUNK_DEALS: '25', BATCH_CENSUS_CHUNK_DEALS: '500', THREADS: '1' };
  const workerEnv = (lockMs: number) => ({ REDIS_PREFIX: prefix, WORKER_LOCK_MS: String(lockMs), WORKER_STALLED_INTERVAL_MS: '1000', LOG_LEVEL: 'info' });

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    [apiA, apiB, w1, w2] = await Promise.all([startServer(apiEnv), startServer(apiEnv), startWorker(workerEnv(3000)), startWorker(workerEnv(60_000))]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([apiA?.kill(), apiB?.kill(), w1?.kill('SIGKILL'), w2?.kill('SIGKILL'), w3?.kill('SIGKILL'), w4?.kill('SIGKILL')]);
    redis?.disconnect();
    await deletePrefix(prefix);
  });

  /** Every deal once: results, seq without gaps, and Redis's own hashes agree. */
  async function expectExactlyOnce(id: string, rows: BatchResult[], total: number): Promise<void> {
    expect(rows).toHaveLength(total);
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(new Set(rows.map((r) => r.index)).size).toBe(total);
    expect(await redis.hlen(keys.index(id))).toBe(total);
    expect(await redis.hlen(keys.results(id))).toBe(total);
    const h = await redis.hgetall(keys.batch(id));
    expect(Number(h.done)).toBe(total);
    expect(Number(h.solved) + Number(h.unsolvable) + Number(h.unknown) + Number(h.errors)).toBe(total);
  }

  const stalledLines = (w: WorkerProcess) => w.output().split('\n').filter((l) => l.includes('stalled job')).length;

  it('runs a 2,000-deal batch on two workers: correct counts, every solution checked, streamed from another API server', async () => {
    const deals = [...Array.from({ length: 1999 }, (_, i) => i + 1), 11982];
    const created = await createBatch(apiA, { game: 'freecell', numbering: 'ms', deals, name: 'two thousand' });
    expect(created).toMatchObject({ status: 'running', total: 2000, done: 0 });
    // API server B knows nothing of it but what Redis holds: it streams the batch to its end.
    const rows = await batchResults(apiB, created.id, '?moves=true');
    const st = await batchStatus(apiB, created.id);
    expect(st).toMatchObject({ status: 'done', done: 2000, counts: { solved: 1999, unsolvable: 1, unknown: 0, error: 0 } });
    expect(st.summary.solvable).toMatchObject({ share: 1999 / 2000, decided: 2000 });
    expect(st.dealsPerSecond).toBeGreaterThan(0);
    await expectExactlyOnce(created.id, rows, 2000);
    for (const r of rows) expectCheckedMsResult(r, deals);
    // The same status from both API servers; resuming from a cursor on A.
    expect(await batchStatus(apiA, created.id)).toEqual(st);
    expect((await batchResults(apiA, created.id, '?after=1995')).map((r) => r.seq)).toEqual([1996, 1997, 1998, 1999, 2000]);

    // Both workers took part; each one's numbers, and the queue, are in the API's /metrics.
    const [h1, h2] = await Promise.all([w1.health(), w2.health()]);
    expect(h1.dealsTotal).toBeGreaterThan(100);
    expect(h2.dealsTotal).toBeGreaterThan(100);
    expect(h1.dealsTotal + h2.dealsTotal).toBeGreaterThanOrEqual(2000);
    expect(await w1.metrics()).toMatch(/^batch_worker_deals_total \d+/m);
    // A heartbeat after the end carries each worker's final count: waited
    // for (up to 30 s), not slept on (2.5 s was one or two heartbeats here).
    const finished = (text: string, h: { worker: string; dealsTotal: number }) =>
      new RegExp(`^batch_worker_deals_finished\\{worker="${h.worker}"\\} ${h.dealsTotal}$`, 'm').test(text);
    let metrics = '';
    for (const end = Date.now() + 30_000; ; await sleep(100)) {
      metrics = await (await fetch(`${apiB.url}/metrics`)).text();
      if ([h1, h2].every((h) => finished(metrics, h)) || Date.now() > end) break;
    }
    expect(metrics).toMatch(/^batch_queue_jobs\{state="waiting"\} 0$/m);
    expect(metrics).toMatch(/^batch_queue_jobs\{state="prioritized"\} 0$/m);
    expect(metrics).toMatch(/^batch_workers 2$/m);
    for (const h of [h1, h2]) {
      expect(metrics).toContain(`batch_worker_deals_per_second{worker="${h.worker}"}`);
      expect(finished(metrics, h), `${h.worker} finished ${h.dealsTotal}:\n${metrics}`).toBe(true);
    }
    console.log(`2,000 deals on two workers: ${st.dealsPerSecond} deals/s; worker deals ${h1.dealsTotal} + ${h2.dealsTotal}`);
  }, TEST_TIMEOUT_MS);

  it('cancel stops both workers in the middle of long deals', async () => {
    // Streets and Alleys rules on PySolFC deal 77 (unknown at 58 M positions):
    // each deal runs to its 5 M positions, some 8 s of CPU today and still
    // long for an engine many times quicker (MS 100226 and 13994, once
    // "seconds each", now take 10 and 3 ms, and could end before the cancel).
    // Chunks of 25, one job per worker.
    const { id } = await createBatch(apiA, {
      game: 'freecell',
      numbering: 'pysolfc',
      rules: { build: 'rank', freeCells: 0, sequenceMove: 'none' },
      deals: Array.from({ length: 50 }, () => 77),
      limits: { maxStates: 5_000_000, timeoutMs: 60_000 },
    });
    const deadline = Date.now() + 30_000;
    for (;;) {
      const [h1, h2] = await Promise.all([w1.health(), w2.health()]);
      if (h1.dealsInFlight > 0 && h2.dealsInFlight > 0) break;
      if (Date.now() > deadline) throw new Error('the workers did not both start a deal');
      await sleep(20);
    }
    const t = performance.now();
    const res = await fetch(`${apiB.url}/v1/batches/${id}`, { method: 'DELETE' });
    expect(BatchStatusSchema.parse(await res.json()).status).toBe('cancelled');
    for (;;) {
      const hs = await Promise.all([w1.health(), w2.health()]);
      if (hs.every((h) => h.dealsInFlight === 0 && h.jobsInFlight === 0 && h.pool.inFlight === 0)) break;
      if (performance.now() - t > 2000) throw new Error(`the workers did not stop: ${JSON.stringify(hs)}`);
      await sleep(10);
    }
    const ms = performance.now() - t;
    const done = (await batchStatus(apiA, id)).done;
    await sleep(500);
    const later = await batchStatus(apiA, id);
    expect(later).toMatchObject({ status: 'cancelled', done });
    expect(await batchResults(apiA, id)).toHaveLength(done);
    console.log(`cancel: both workers idle ${ms.toFixed(0)} ms after the DELETE, ${done} deals stored`);
  }, TEST_TIMEOUT_MS);

  it('a worker killed with SIGKILL a quarter in: its job is picked up again, every result exactly once', async () => {
    const total = 2000;
    const { id } = await createBatch(apiA, { game: 'freecell', deals: `2001..${2000 + total}` });
    // A quarter in, watched every 10 ms, so that a quicker engine still
    // leaves 1,500 deals to kill the worker in the middle of (half way, the
    // batch could end before the kill, and the loop below never did).
    await waitForBatch(apiB, id, (st) => st.done >= total / 4, 90_000, 10);
    let before = await w1.health();
    for (const end = Date.now() + 30_000; before.dealsInFlight === 0; before = await w1.health()) {
      // kill it in the middle of a job
      if (Date.now() > end) throw new Error(`worker 1 took no job for 30 s: ${JSON.stringify(before)}`);
    }
    expect(await w1.kill('SIGKILL')).toBeNull();
    const stalledBefore = stalledLines(w2);
    // The jobs the dead worker held (BullMQ records the worker's name in the job's `pb` field).
    const bull = `${keys.bull}:batches`;
    const orphans: string[] = [];
    for (const job of await redis.lrange(`${bull}:active`, 0, -1)) if ((await redis.hget(`${bull}:${job}`, 'pb')) === before.worker) orphans.push(job);

    const st = await waitForBatch(apiB, id, (s) => s.status !== 'running', 90_000);
    expect(st).toMatchObject({ status: 'done', done: total, counts: { solved: total, unsolvable: 0, unknown: 0, error: 0 } });
    const rows = await batchResults(apiA, id);
    await expectExactlyOnce(id, rows, total);
    expect(rows.map((r) => r.deal).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: total }, (_, i) => 2001 + i));
    // The survivor's stalled-job check gives it the dead worker's job (unless the kill fell between two jobs):
    // within the dead lock (3 s) and a few check intervals (1 s) of the kill. A kill after the job's last
    // result was stored but before the job was marked done lets the batch end first, so wait for the check.
    if (orphans.length > 0) {
      for (const end = Date.now() + 10_000; stalledLines(w2) === stalledBefore && Date.now() < end; ) await sleep(100);
      expect(stalledLines(w2)).toBeGreaterThan(stalledBefore);
    }
    const h2 = await w2.health();
    console.log(
      `SIGKILL with job ${orphans.join(', ') || '(none)'} held, after ${before.dealsTotal} deals of the killed worker; ` +
        `stalled-job recoveries ${stalledLines(w2) - stalledBefore}; survivor refused ${h2.duplicatesRefused} duplicate results`,
    );
  }, TEST_TIMEOUT_MS);

  it('SIGTERM drains a worker: exit 0, its job handed back and finished by another worker at once', async () => {
    w3 = await startWorker(workerEnv(60_000));
    const total = 1000;
    const { id } = await createBatch(apiA, { game: 'freecell', deals: `4001..${4000 + total}` });
    await waitForBatch(apiA, id, (st) => st.done >= 200, 90_000);
    const stalledBefore = stalledLines(w3);
    const t = Date.now();
    expect(await w2.kill('SIGTERM')).toBe(0);
    const exitMs = Date.now() - t;
    const stopped = w2
      .output()
      .split('\n')
      .filter((l) => l.includes('"batch worker stopped"'))
      .map((l) => JSON.parse(l) as { jobsHandedBack: number; jobsInFlight: number })[0];
    expect(stopped.jobsInFlight).toBe(0);

    const st = await waitForBatch(apiA, id, (s) => s.status !== 'running', 40_000);
    const doneMs = Date.now() - t;
    expect(st).toMatchObject({ status: 'done', done: total });
    await expectExactlyOnce(id, await batchResults(apiB, id), total);
    // A job abandoned rather than handed back would wait for its 60 s lock to run out.
    expect(doneMs).toBeLessThan(40_000);
    expect(stalledLines(w3)).toBe(stalledBefore);
    console.log(`SIGTERM: exit 0 after ${exitMs} ms, ${stopped.jobsHandedBack} job(s) handed back, batch done ${doneMs} ms after the signal`);
  }, TEST_TIMEOUT_MS);

  it('a census with a worker killed with SIGKILL part way: the same counts, histograms and exceptions as the embedded backend, each job counted once', async () => {
    w4 = await startWorker(workerEnv(3000));
    const body = { game: 'freecell', deals: '1..12000', results: 'exceptions' };
    const { id } = await createBatch(apiA, body);
    await waitForBatch(apiB, id, (st) => st.done >= 3000, 90_000, 10);
    let before = await w4.health();
    for (const end = Date.now() + 30_000; before.dealsInFlight === 0; before = await w4.health()) {
      if (Date.now() > end) throw new Error(`worker 4 took no job for 30 s: ${JSON.stringify(before)}`);
    }
    expect(await w4.kill('SIGKILL')).toBeNull();
    w4 = undefined;
    const st = await waitForBatch(apiB, id, (s) => s.status !== 'running', 90_000);
    expect(st).toMatchObject({ status: 'done', done: 12_000, stored: 1, results: 'exceptions', counts: { solved: 11_999, unsolvable: 1, unknown: 0, error: 0 } });
    expect((await batchResults(apiA, id)).map((r) => [r.deal, r.verdict])).toEqual([[11982, 'unsolvable']]);
    // every one of the 24 jobs counted, once
    expect(await redis.bitcount(keys.jobs(id))).toBe(24);
    expect(await redis.hlen(keys.results(id))).toBe(1);
    // the embedded backend's census of the same range (engine times aside, which vary run to run)
    const embedded = await startServer({ THREADS: '1' });
    try {
      const local = await createBatch(embedded, body);
      const want = await waitForBatch(embedded, local.id, (s) => s.status !== 'running', 90_000);
      expect(st.counts).toEqual(want.counts);
      expect(st.summary.distributions.moves).toEqual(want.summary.distributions.moves);
      expect(st.summary.distributions.positions).toEqual(want.summary.distributions.positions);
      expect(st.summary.meanPositionsPerDeal).toBe(want.summary.meanPositionsPerDeal);
    } finally {
      await embedded.kill();
    }
    console.log(`census SIGKILL: worker 4 killed after ${before.dealsTotal} deals; the census completed on the others, equal to the embedded one`);
  }, TEST_TIMEOUT_MS);
});

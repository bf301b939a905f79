/**
 * Batches against the real service in a child process on a loopback port:
 * a 2,000-deal batch to the end, a SIGKILL in the middle of a batch and a
 * restart (every deal's result present exactly once, no finished deal solved
 * again), and cancel (the work stops) while single solves stay fast.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchStatusSchema } from '../../client-sdk/api/batch-schemas.js';
import { batchResults, batchStatus, createBatch, expectCheckedMsResult, waitForBatch } from '../helpers/batch-api.js';
import { startServer, type ServerProcess } from '../helpers/server-process.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'batches-e2e-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function health(s: ServerProcess): Promise<{ pool: { completed: number; running: number; inFlight: number; threads: number } }> {
  return (await fetch(`${s.url}/healthz`)).json() as never;
}

/** Room for a loaded CI machine: each test took 7-21 s here at a load of 9 on 2 cores, a third of vitest's default 60 s. */
const TEST_TIMEOUT_MS = 180_000;

describe('batches on a real server', { timeout: TEST_TIMEOUT_MS }, () => {
  it('runs a 2,000-deal batch to the end with correct counts, every solution checked', async () => {
    const s = await startServer({ BATCH_DB_PATH: join(dir, 'complete.sqlite') });
    try {
      // MS FreeCell 1..1999 are all solvable; 11982 is the one unsolvable deal of 1..32000.
      const deals = [...Array.from({ length: 1999 }, (_, i) => i + 1), 11982];
      const created = await createBatch(s, { game: 'freecell', numbering: 'ms', deals, name: 'two thousand' });
      expect(created).toMatchObject({ status: 'running', total: 2000, name: 'two thousand', game: 'freecell', numbering: 'ms' });

      // Follows the batch from the start: the stream ends when the batch does.
      const results = await batchResults(s, created.id, '?moves=true');
      const status = await batchStatus(s, created.id);
      expect(status.status).toBe('done');
      expect(status.done).toBe(2000);
      expect(status.counts).toEqual({ solved: 1999, unsolvable: 1, unknown: 0, error: 0 });

      expect(results).toHaveLength(2000);
      expect(results.map((r) => r.seq)).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
      expect(new Set(results.map((r) => r.index)).size).toBe(2000);
      let moves = 0;
      for (const r of results) {
        if (!expectCheckedMsResult(r, deals)) continue;
        expect(r.moveCount).toBe(r.moves!.length);
        expect(r.notation).toHaveLength(r.moveCount);
        moves += r.moveCount;
      }
      expect(status.summary.solvable).toMatchObject({ share: 1999 / 2000, decided: 2000 });
      expect(status.summary.solvable!.low).toBeGreaterThan(0.99);
      expect(status.summary.solvable!.high).toBeLessThanOrEqual(1);
      expect(status.summary.meanMoves).toBeCloseTo(moves / 1999, 1);
      expect(status.dealsPerSecond).toBeGreaterThan(0);
      console.log(`2,000-deal batch: ${status.dealsPerSecond} deals/s, mean ${status.summary.meanMsPerDeal} ms engine time per deal`);

      // Resume from a cursor: exactly the results after it.
      const tail = await batchResults(s, created.id, '?after=1990');
      expect(tail.map((r) => r.seq)).toEqual([1991, 1992, 1993, 1994, 1995, 1996, 1997, 1998, 1999, 2000]);
      expect(tail[0].moves).toBeUndefined();
    } finally {
      await s.kill();
    }
  });

  it('resumes after a SIGKILL part way: every result present exactly once, no finished deal solved again', async () => {
    const db = join(dir, 'killed.sqlite');
    const total = 2000;
    const first = await startServer({ BATCH_DB_PATH: db });
    let id: string;
    try {
      id = (await createBatch(first, { game: 'freecell', deals: `2001..${2000 + total}` })).id;
      // A quarter in, watched every 10 ms: the kill must land before the
      // batch ends. Even at 2,000 deals a second the 1,500 deals left last 75
      // such polls (half way, polled every 50 ms, left 10): room for a much
      // quicker engine.
      await waitForBatch(first, id, (st) => st.done >= total / 4, 120_000, 10);
    } finally {
      await first.kill('SIGKILL');
    }

    // What the dead process left: counters equal to the rows, no duplicates.
    const before = new Database(db, { readonly: true });
    const stored = before.prepare('SELECT idx, seq, elapsed_ms FROM results WHERE batch_id = ? ORDER BY seq').all(id) as {
      idx: number;
      seq: number;
      elapsed_ms: number;
    }[];
    const row = before.prepare('SELECT done, solved, status FROM batches WHERE id = ?').get(id) as { done: number; solved: number; status: string };
    before.close();
    expect(row.status).toBe('running');
    expect(stored.length).toBeGreaterThanOrEqual(total / 4);
    expect(stored.length).toBeLessThan(total);
    expect(row.done).toBe(stored.length);
    expect(stored.map((r) => r.seq)).toEqual(Array.from({ length: stored.length }, (_, i) => i + 1));

    const second = await startServer({ BATCH_DB_PATH: db });
    try {
      const status = await waitForBatch(second, id, (st) => st.status !== 'running', 120_000);
      expect(status.status).toBe('done');
      expect(status.done).toBe(total);
      expect(status.counts).toEqual({ solved: total, unsolvable: 0, unknown: 0, error: 0 });

      const results = await batchResults(second, id);
      expect(results).toHaveLength(total);
      expect(new Set(results.map((r) => r.index)).size).toBe(total);
      expect(results.map((r) => r.seq)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
      expect(results.map((r) => r.deal).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: total }, (_, i) => 2001 + i));
      // The results stored before the kill are the same rows (same place, same engine time).
      const bySeq = new Map(results.map((r) => [r.seq, r]));
      for (const r of stored) {
        expect(bySeq.get(r.seq)).toMatchObject({ index: r.idx, stats: { elapsedMs: r.elapsed_ms } });
      }
      // The new process solved only the deals without a result (+ its warm-up solves, one a thread).
      const { pool } = await health(second);
      const missing = total - stored.length;
      expect(pool.completed).toBeGreaterThanOrEqual(missing);
      expect(pool.completed).toBeLessThanOrEqual(missing + pool.threads);
      console.log(`SIGKILL with ${stored.length}/${total} stored; the restarted server solved ${pool.completed} (incl. warm-up) for ${missing} missing`);
    } finally {
      await second.kill();
    }
  });

  it('a census resumes after a SIGKILL part way: the same counts and histograms as a run that was not stopped, only the exception stored', async () => {
    const db = join(dir, 'census-killed.sqlite');
    const body = { game: 'freecell', deals: '1..12000', results: 'exceptions' };
    const first = await startServer({ BATCH_DB_PATH: db });
    let id: string;
    try {
      id = (await createBatch(first, body)).id;
      await waitForBatch(first, id, (st) => st.done >= 3000, 120_000, 10);
    } finally {
      await first.kill('SIGKILL');
    }
    // What the dead process left: whole sub-ranges, the counters equal to them, no row of a solved deal.
    const before = new Database(db, { readonly: true });
    const spans = before.prepare('SELECT lo, hi FROM spans WHERE batch_id = ?').all(id) as { lo: number; hi: number }[];
    const row = before.prepare('SELECT done, stored, status FROM batches WHERE id = ?').get(id) as { done: number; stored: number; status: string };
    const rows = (before.prepare('SELECT COUNT(*) AS n FROM results WHERE batch_id = ?').get(id) as { n: number }).n;
    before.close();
    expect(row.status).toBe('running');
    expect(row.done).toBeLessThan(12_000);
    expect(spans.reduce((n, s) => n + s.hi - s.lo, 0)).toBe(row.done);
    expect(rows).toBe(row.stored);

    const second = await startServer({ BATCH_DB_PATH: db });
    try {
      const resumed = await waitForBatch(second, id, (st) => st.status !== 'running', 120_000);
      expect(resumed).toMatchObject({ status: 'done', done: 12_000, stored: 1, counts: { solved: 11_999, unsolvable: 1, unknown: 0, error: 0 } });
      const exceptions = await batchResults(second, id);
      expect(exceptions.map((r) => [r.deal, r.verdict])).toEqual([[11982, 'unsolvable']]);
      // a run of the same range that was not stopped: the same census (engine times aside, which vary run to run)
      const whole = await createBatch(second, body);
      const uninterrupted = await waitForBatch(second, whole.id, (st) => st.status !== 'running', 120_000);
      expect(resumed.counts).toEqual(uninterrupted.counts);
      expect(resumed.summary.meanMoves).toBe(uninterrupted.summary.meanMoves);
      expect(resumed.summary.meanPositionsPerDeal).toBe(uninterrupted.summary.meanPositionsPerDeal);
      expect(resumed.summary.distributions.moves).toEqual(uninterrupted.summary.distributions.moves);
      expect(resumed.summary.distributions.positions).toEqual(uninterrupted.summary.distributions.positions);
      console.log(`census SIGKILL with ${row.done}/12000 counted in ${spans.length} span(s); resumed to the same census`);
    } finally {
      await second.kill();
    }
  });

  it('a census of the FreeCell Pro range 1..8,589,934,591 is one batch: accepted, progress and an ETA, cancelled', async () => {
    const s = await startServer({ BATCH_DB_PATH: join(dir, 'pro.sqlite') });
    try {
      const { id } = await createBatch(s, { game: 'freecell', deals: '1..8589934591', results: 'exceptions' });
      const running = await waitForBatch(s, id, (st) => st.done >= 2000 && st.etaSeconds !== null, 120_000);
      expect(running).toMatchObject({ status: 'running', total: 8_589_934_591, results: 'exceptions' });
      expect(running.etaSeconds).toBeGreaterThan(1e5);
      const res = await fetch(`${s.url}/v1/batches/${id}`, { method: 'DELETE' });
      const cancelled = BatchStatusSchema.parse(await res.json());
      expect(cancelled.status).toBe('cancelled');
      expect(cancelled.counts.solved + cancelled.counts.unsolvable + cancelled.counts.unknown + cancelled.counts.error).toBe(cancelled.done);
      console.log(`FreeCell Pro range: ${running.done} deals in, ${running.dealsPerSecond} deals/s, ETA ${Math.round(running.etaSeconds! / 86400)} days; cancelled`);
    } finally {
      await s.kill();
    }
  });

  it('stops cleanly on SIGTERM in the middle of a batch and finishes it after a restart', async () => {
    const db = join(dir, 'sigterm.sqlite');
    const total = 600;
    const first = await startServer({ BATCH_DB_PATH: db });
    const { id } = await createBatch(first, { game: 'freecell', deals: `5001..${5000 + total}` });
    await waitForBatch(first, id, (st) => st.done >= 100, 120_000);
    const exit = new Promise<number | null>((resolve) => first.child.once('exit', (code) => resolve(code)));
    first.child.kill('SIGTERM');
    expect(await exit).toBe(0);

    const second = await startServer({ BATCH_DB_PATH: db });
    try {
      const status = await waitForBatch(second, id, (st) => st.status !== 'running', 120_000);
      expect(status).toMatchObject({ status: 'done', done: total, counts: { solved: total, unsolvable: 0, unknown: 0, error: 0 } });
      const results = await batchResults(second, id);
      expect(results.map((r) => r.seq)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
      expect(new Set(results.map((r) => r.index)).size).toBe(total);
    } finally {
      await second.kill();
    }
  });

  it('cancel stops the work; single solves stay fast while a 100,000-deal batch runs', async () => {
    const s = await startServer({ BATCH_DB_PATH: join(dir, 'cancel.sqlite') });
    try {
      const { id } = await createBatch(s, { game: 'freecell', deals: '1..100000' });
      await waitForBatch(s, id, (st) => st.done >= 50, 120_000);

      // POST /v1/solve is not starved by the batch.
      const latencies: number[] = [];
      for (let i = 0; i < 20; i++) {
        const t = performance.now();
        const res = await fetch(`${s.url}/v1/solve`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ game: 'freecell', deal: 1 + i }),
        });
        expect(res.status).toBe(200);
        await res.json();
        latencies.push(performance.now() - t);
      }
      latencies.sort((a, b) => a - b);
      console.log(`POST /v1/solve during the batch: median ${latencies[10].toFixed(1)} ms, max ${latencies[19].toFixed(1)} ms`);
      expect(latencies[10]).toBeLessThan(1000);

      const res = await fetch(`${s.url}/v1/batches/${id}`, { method: 'DELETE' });
      expect(res.status).toBe(200);
      const cancelled = BatchStatusSchema.parse(await res.json());
      expect(cancelled.status).toBe('cancelled');
      expect(cancelled.finishedAt).not.toBeNull();
      expect(cancelled.done).toBeLessThan(100_000);

      // The workers go idle (waited for, not slept on: a cancelled chunk
      // stops at its next poll), and after that nothing more is stored.
      const idleBy = Date.now() + 10_000;
      while ((await health(s)).pool.inFlight !== 0) {
        if (Date.now() > idleBy) throw new Error('the workers were still busy 10 s after the cancel');
        await new Promise((r) => setTimeout(r, 20));
      }
      const later = await batchStatus(s, id);
      expect(later.done).toBe(cancelled.done);
      expect(later.status).toBe('cancelled');

      // The stream of a cancelled batch ends, with what was stored.
      const results = await batchResults(s, id);
      expect(results).toHaveLength(later.done);

      // Cancelling again changes nothing; an unknown id is a 404.
      const again = await fetch(`${s.url}/v1/batches/${id}`, { method: 'DELETE' });
      expect(BatchStatusSchema.parse(await again.json())).toMatchObject({ status: 'cancelled', done: later.done });
      const missing = await fetch(`${s.url}/v1/batches/no-such-batch`, { method: 'DELETE' });
      expect(missing.status).toBe(404);
      expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('not_found');
    } finally {
      await s.kill();
    }
  });
});

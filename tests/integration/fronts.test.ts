/**
 * The service with two HTTP fronts on one port (`FRONTS=2`: a primary and
 * two front processes of one solver thread each), on this machine: both
 * fronts serve; `/healthz`, `/readyz` and `/metrics` describe the whole
 * service whichever front answers; a batch is run by one front and read
 * through both; a front that dies is replaced; per-key rate limits hold
 * across the fronts; SIGTERM drains both fronts, each with a long solve
 * running, and the service exits 0.
 *
 * A new connection goes to the next front in turn (node:cluster's round
 * robin), so requests on fresh connections (`connection: close`) reach
 * both; `/healthz` names the front that answered.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchResultSchema, type BatchResult } from '../../client-sdk/api/batch-schemas.js';
import { batchStatus, createBatch, expectCheckedMsResult, waitForBatch } from '../helpers/batch-api.js';
import { engineBuilt } from '../helpers/engine.js';
import { postOnce } from '../helpers/http.js';
import { startServer, type ServerProcess } from '../helpers/server-process.js';
import { until } from '../helpers/wait.js';

const TEST_TIMEOUT_MS = 120_000;
const CLOSE = { connection: 'close' };
const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef';

/** The value of one sample line of a Prometheus text, or undefined. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

interface Health {
  pool: { threads: number; running: number; completed: number };
  front: { index: number; count: number };
}

/** GET /healthz on a fresh connection. */
async function health(s: ServerProcess): Promise<Health> {
  return (await fetch(`${s.url}/healthz`, { headers: CLOSE })).json() as Promise<Health>;
}

/** The fronts that answered `tries` fresh connections. */
async function frontsSeen(s: ServerProcess, tries: number): Promise<Set<number>> {
  const seen = new Set<number>();
  for (let i = 0; i < tries && seen.size < 2; i++) seen.add((await health(s)).front.index);
  return seen;
}

/** POST /v1/solve on a fresh connection (the next front), never rejecting. */
function solve(s: ServerProcess, body: unknown, headers: Record<string, string> = {}) {
  return postOnce(s.port, body, { headers });
}

/** A batch's whole results stream on a fresh connection (`follow` until it ends). */
async function results(s: ServerProcess, id: string): Promise<BatchResult[]> {
  const res = await fetch(`${s.url}/v1/batches/${id}/results?moves=true&follow=true`, { headers: CLOSE });
  expect(res.status).toBe(200);
  return (await res.text())
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => BatchResultSchema.parse(JSON.parse(line)));
}

describe.skipIf(!engineBuilt())('two fronts on one port', { timeout: TEST_TIMEOUT_MS }, () => {
  let s: ServerProcess;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fronts-'));
    s = await startServer({ FRONTS: '2', THREADS: '2', LOG_LEVEL: 'info', BATCH_DB_PATH: join(dir, 'batches.sqlite') });
  }, TEST_TIMEOUT_MS);
  afterAll(async () => {
    await s?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('both fronts serve, one thread each; /healthz and /readyz describe the whole service', async () => {
    expect(await frontsSeen(s, 20)).toEqual(new Set([0, 1]));
    const h = await health(s);
    expect(h.front.count).toBe(2);
    expect(h.pool.threads).toBe(4); // the sum over the fronts: each front's thread and its lane's (INTERACTIVE_WAIT_MS)
    for (let i = 0; i < 2; i++) {
      const ready = await fetch(`${s.url}/readyz`, { headers: CLOSE });
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: 'ready', fronts: { running: 2, ready: 2 }, pool: { threads: 4 } });
    }
  });

  it('/metrics counts the requests of both fronts, whichever front is scraped', async () => {
    const before = await (await fetch(`${s.url}/metrics`, { headers: CLOSE })).text();
    const solved0 = sample(before, 'http_requests_total', '{method="POST",route="/v1/solve",status="200"}') ?? 0;
    const answers = [];
    for (let deal = 1; deal <= 10; deal++) answers.push(await solve(s, { game: 'freecell', deal }));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    for (let i = 0; i < 2; i++) {
      const text = await (await fetch(`${s.url}/metrics`, { headers: CLOSE })).text();
      expect(sample(text, 'http_requests_total', '{method="POST",route="/v1/solve",status="200"}')).toBe(solved0 + 10);
      expect(sample(text, 'solver_threads')).toBe(4); // a thread and a lane a front
      expect(sample(text, 'service_fronts')).toBe(2);
      expect(sample(text, 'service_fronts_scraped')).toBe(2);
    }
  });

  it('a batch runs once, on the batch front, and is read and followed through both fronts', async () => {
    // MS FreeCell 1..1199 are solvable; 11982 is not.
    const deals = [...Array.from({ length: 1199 }, (_, i) => i + 1), 11982];
    const created = await createBatch(s, { game: 'freecell', numbering: 'ms', deals });
    // two streams on fresh connections (one a front), following the batch from its start
    const [a, b] = await Promise.all([results(s, created.id), results(s, created.id)]);
    const done = await waitForBatch(s, created.id, (st) => st.status === 'done', 60_000);
    expect(done.counts).toEqual({ solved: 1199, unsolvable: 1, unknown: 0, error: 0 });
    for (const stream of [a, b]) {
      expect(stream.map((r) => r.seq)).toEqual(Array.from({ length: 1200 }, (_, i) => i + 1));
      expect(new Set(stream.map((r) => r.index)).size).toBe(1200);
    }
    for (const r of a) expectCheckedMsResult(r, deals);
    // status through both fronts
    for (let i = 0; i < 4; i++) expect((await batchStatus(s, created.id)).done).toBe(1200);
    // one process solved them: the pool totals grew by the batch (plus the warm-up and the solves above), not twice
    const { pool } = await health(s);
    expect(pool.completed).toBeLessThan(1200 + 50);
  });

  it('a front that dies is replaced; the other serves meanwhile; the service is ready again', async () => {
    const listening = () =>
      s
        .output()
        .split('\n')
        .filter((l) => l.includes('"msg":"listening"'))
        .map((l) => JSON.parse(l) as { front: number; pid: number });
    const victim = listening().find((l) => l.front === 1)!;
    process.kill(victim.pid, 'SIGKILL');
    // Connections the primary handed to the front as it died are lost with it (node:cluster
    // does not hand them to another), as are its open ones: the requests below come after.
    await until('the primary told of the exit', () => s.output().includes('a front exited: starting another'), { timeoutMs: 10_000, intervalMs: 20 });
    const answered = [];
    for (let deal = 1; deal <= 5; deal++) answered.push((await solve(s, { game: 'freecell', deal })).status);
    expect(answered).toEqual(Array(5).fill(200));
    await until('a new front 1 listening', () => listening().some((l) => l.front === 1 && l.pid !== victim.pid), { timeoutMs: 30_000, intervalMs: 50 });
    await until(
      'the service ready again',
      async () => {
        const res = await fetch(`${s.url}/readyz`, { headers: CLOSE });
        return res.status === 200;
      },
      { timeoutMs: 30_000, intervalMs: 50 },
    );
    expect(await frontsSeen(s, 20)).toEqual(new Set([0, 1]));
  });
});

describe.skipIf(!engineBuilt())('two fronts with API keys: rate limits and SIGTERM', { timeout: TEST_TIMEOUT_MS }, () => {
  const SHUTDOWN_TIMEOUT_MS = 5000;
  let s: ServerProcess;
  beforeAll(async () => {
    s = await startServer({
      FRONTS: '2',
      THREADS: '2',
      API_KEYS: `alice:${ALICE},bob:${BOB}`,
      RATE_LIMIT_MAX: '6',
      RATE_LIMIT_WINDOW_MS: '600000',
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      SHUTDOWN_DRAIN_MS: '1000',
    });
  }, TEST_TIMEOUT_MS);
  afterAll(() => s?.kill('SIGKILL'));

  it("a key's budget is the whole service's, not each front's", async () => {
    const auth = { authorization: `Bearer ${ALICE}` };
    const statuses: (number | undefined)[] = [];
    for (let deal = 1; deal <= 10; deal++) statuses.push((await solve(s, { game: 'freecell', deal }, auth)).status);
    expect(statuses.filter((x) => x === 200)).toHaveLength(6);
    expect(statuses.filter((x) => x === 429)).toHaveLength(4);
    expect(statuses.slice(6)).toEqual([429, 429, 429, 429]);
  });

  it('SIGTERM drains both fronts: the long solve running on each is answered, and the service exits 0', async () => {
    const bob = { authorization: `Bearer ${BOB}` };
    const long = {
      game: 'freecell',
      deal: 77,
      numbering: 'pysolfc',
      rules: { build: 'rank', freeCells: 0, sequenceMove: 'none' },
      limits: { maxStates: 50_000_000, timeoutMs: 60_000 },
    };
    const longs = [solve(s, long, bob), solve(s, long, bob)];
    // each front has one thread: two solves running are one on each front
    await until('a long solve running on each front', async () => sample(await (await fetch(`${s.url}/metrics`, { headers: CLOSE })).text(), 'solver_running') === 2, {
      timeoutMs: 30_000,
      intervalMs: 50,
      detail: () => s.output(),
    });
    const exited = new Promise<{ code: number | null; at: number }>((resolve) => s.child.once('exit', (code) => resolve({ code, at: Date.now() })));
    const signalled = Date.now();
    s.child.kill('SIGTERM');
    const { code, at } = await exited;
    expect(code, s.output()).toBe(0);
    expect(at - signalled).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
    for (const answer of await Promise.all(longs)) {
      expect(answer.status, JSON.stringify(answer)).toBe(200);
      expect(JSON.parse(answer.body!)).toMatchObject({ verdict: 'unknown', reason: 'cancelled' });
    }
    const lines = s
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; front?: number; role?: string; code?: number });
    const shutDown = lines.filter((l) => l.msg === 'shut down');
    expect(shutDown.filter((l) => l.front !== undefined).map((l) => l.front).sort()).toEqual([0, 1]);
    expect(shutDown.find((l) => l.role === 'primary')).toMatchObject({ code: 0 });
    expect((await solve(s, { game: 'freecell', deal: 1 }, bob)).error).toBe('ECONNREFUSED');
  });
});

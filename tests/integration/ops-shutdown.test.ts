/**
 * Graceful shutdown: first the sequence itself in-process (hooks before the
 * pool closes, running solves drained then cancelled and answered, the
 * listener closed), then the real server in a child process, sent SIGTERM
 * under load: it answers what it accepted and exits 0 within its deadline.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { gracefulShutdown, ServiceState, type ShutdownContext } from '../../server/lifecycle.js';
import { createLogger } from '../../server/logger.js';
import { createPool } from '../../server/pool.js';
import { createServiceApp } from '../../server/service.js';
import { postOnce, type OnceAnswer as Answer } from '../helpers/http.js';
import { ROOT } from '../helpers/paths.js';
import { until } from '../helpers/wait.js';

const FIXTURE_WORKER = join(ROOT, 'tests/fixtures/pool-worker.ts');

const LONG_REQUEST = {
  game: 'freecell',
  deal: 77,
  numbering: 'pysolfc',
  rules: { build: 'rank', freeCells: 0, sequenceMove: 'none' },
  limits: { maxStates: 50_000_000, timeoutMs: 60_000 },
};

/** The service app on a loopback port over a fixture pool (one thread, queue of 2), marked ready. */
async function startFixtureService() {
  const pool = createPool({ filename: FIXTURE_WORKER, threads: 1, maxQueue: 2 });
  const state = Object.assign(new ServiceState(), { ready: true });
  const logger = createLogger({ level: 'silent' });
  const app = createServiceApp({ solve: pool.solve, logger, state, poolStats: () => pool.stats(), app: { webRoot: null } });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  await new Promise<void>((r) => server.once('listening', () => r()));
  const { port } = server.address() as AddressInfo;
  return { pool, state, logger, server, port };
}

describe('gracefulShutdown (in-process, fixture pool)', () => {
  it('with readyDelayMs the listener stays open that long: /readyz and the API answer 503, a load balancer sees it', async () => {
    const { pool, state, logger, server, port } = await startFixtureService();
    const t0 = Date.now();
    const done = gracefulShutdown({ reason: 'test', state, server, pool, hooks: [], readyDelayMs: 1500, drainMs: 100, timeoutMs: 3000, logger });
    await new Promise((r) => setTimeout(r, 100));
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`, { headers: { connection: 'close' } });
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'stopping' });
    const api = await postOnce(port, { game: 'freecell', deal: 1 });
    expect(api.status).toBe(503);
    expect(JSON.parse(api.body!).error.code).toBe('overloaded');
    await done;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1490);
    expect((await postOnce(port, { game: 'freecell', deal: 2 })).error).toBe('ECONNREFUSED');
  });


  it('hooks run while solves may still finish; running solves are cancelled after the drain and answered; the listener closes', async () => {
    const { pool, state, logger, server, port } = await startFixtureService();

    // The fixture worker blocks every real deal until its stop flag is set.
    const running = postOnce(port, { game: 'freecell', deal: 1 });
    await until('the solve running', () => pool.stats().running > 0);

    const seen: { stopping: boolean; poolClosing: boolean; inFlight: number; timeLeft: number }[] = [];
    const hook = async (ctx: ShutdownContext) => {
      seen.push({ stopping: state.stopping, poolClosing: pool.closing, inFlight: pool.stats().inFlight, timeLeft: ctx.deadline - Date.now() });
      await new Promise((r) => setTimeout(r, 50));
    };
    const t0 = Date.now();
    await gracefulShutdown({ reason: 'test', state, server, pool, hooks: [hook], drainMs: 300, timeoutMs: 3000, logger });
    const took = Date.now() - t0;

    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ stopping: true, poolClosing: false, inFlight: 1 });
    expect(seen[0].timeLeft).toBeGreaterThan(2500);
    const answer = await running;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body!)).toMatchObject({ verdict: 'unknown', reason: 'cancelled' });
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(2500);
    expect(state).toMatchObject({ ready: false, stopping: true });
    expect((await postOnce(port, { game: 'freecell', deal: 2 })).error).toBe('ECONNREFUSED');
  });

  it('a hook that throws is logged and does not stop the shutdown', async () => {
    const pool = createPool({ filename: FIXTURE_WORKER, threads: 1 });
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(s) } });
    const server = serve({ fetch: () => new Response('ok'), port: 0, hostname: '127.0.0.1' }) as Server;
    await new Promise<void>((r) => server.once('listening', () => r()));
    await gracefulShutdown({
      reason: 'test',
      state: new ServiceState(),
      server,
      pool,
      hooks: [
        () => {
          throw new Error('hook broke');
        },
      ],
      drainMs: 100,
      timeoutMs: 2000,
      logger,
    });
    expect(lines.join('')).toMatch(/shutdown hook failed/);
    expect(lines.join('')).toMatch(/"msg":"shut down"/);
    expect(pool.closing).toBe(true);
  });
});

describe('SIGTERM on the real server under load (child process)', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  it('answers what it accepted, refuses the rest, and exits 0 within SHUTDOWN_TIMEOUT_MS', async () => {
    const SHUTDOWN_TIMEOUT_MS = 4000;
    child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        THREADS: '2',
        MAX_QUEUE: '8',
        SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
        SHUTDOWN_DRAIN_MS: '1000',
        LOG_LEVEL: 'info',
        API_KEYS: '',
        BATCH_DB_PATH: ':memory:', // no file in the checkout, no lock shared with other tests
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const proc = child;
    const logs: Record<string, unknown>[] = [];
    const notJson: string[] = [];
    let stderr = '';
    let buffered = '';
    proc.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const l of lines) {
        try {
          logs.push(JSON.parse(l) as Record<string, unknown>);
        } catch {
          notJson.push(l);
        }
      }
    });
    proc.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<{ code: number | null; at: number }>((resolve) => proc.once('exit', (code) => resolve({ code, at: Date.now() })));

    /** `cond`, or a throw as soon as the server has exited. */
    const whileRunning = (cond: () => boolean | Promise<boolean>) => () => {
      if (proc.exitCode !== null) throw new Error(`the server exited (${proc.exitCode})`);
      return cond();
    };
    const waitForLog = async (msg: string, timeoutMs: number) => {
      await until(`the "${msg}" log line`, whileRunning(() => logs.some((l) => l.msg === msg)), {
        timeoutMs,
        intervalMs: 20,
        detail: () => `stderr: ${stderr}\nstdout: ${JSON.stringify(logs)}`,
      });
      return logs.find((l) => l.msg === msg)!;
    };
    const port = Number((await waitForLog('listening', 30_000)).port);
    await waitForLog('ready', 30_000);

    // Load: one long solve, and four clients posting easy deals back to back.
    // No sleeps: SIGTERM goes once the long solve is running (the only solve
    // then, so /healthz's running count is it) and an easy one was answered.
    const long = postOnce(port, LONG_REQUEST);
    const running = { timeoutMs: 30_000, intervalMs: 10, detail: () => `stderr: ${stderr}` };
    await until(
      'the long solve running',
      whileRunning(async () => {
        const health = (await (await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { connection: 'close' } })).json()) as { pool: { running: number } };
        return health.pool.running >= 1;
      }),
      running,
    );
    let stop = false;
    const answers: Answer[] = [];
    const client = async (id: number) => {
      for (let n = 1 + id; !stop; n += 4) {
        const a = await postOnce(port, { game: 'freecell', deal: n });
        answers.push(a);
        if (a.error === 'ECONNREFUSED') break;
      }
    };
    const clients = [0, 1, 2, 3].map(client);
    await until('an easy solve answered', whileRunning(() => answers.some((a) => a.status === 200)), running);
    const beforeSignal = answers.filter((a) => a.status === 200).length;

    const signalledAt = Date.now();
    proc.kill('SIGTERM');
    const { code, at } = await exited;
    stop = true;
    await Promise.all(clients);

    const tally: Record<string, number> = {};
    for (const a of answers) tally[String(a.status ?? a.error)] = (tally[String(a.status ?? a.error)] ?? 0) + 1;
    console.log(`SIGTERM: exit ${code} after ${at - signalledAt} ms; easy requests: ${JSON.stringify(tally)}`);
    expect(code, stderr).toBe(0);
    expect(at - signalledAt).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
    expect(beforeSignal).toBeGreaterThan(0);

    // The long solve was accepted and running: it was answered, as cancelled.
    const longAnswer = await long;
    expect(longAnswer.status, JSON.stringify(longAnswer)).toBe(200);
    expect(JSON.parse(longAnswer.body!)).toMatchObject({ verdict: 'unknown', reason: 'cancelled' });

    // Every other request was answered 200 or refused (503 while stopping, or no connection).
    for (const a of answers) {
      if (a.status !== undefined) {
        expect([200, 503], a.body).toContain(a.status);
        if (a.status === 503) expect(JSON.parse(a.body!).error.code).toBe('overloaded');
      } else {
        // Refused once the listener closed; a reset can only hit a connection the kernel had queued as it closed.
        expect(['ECONNREFUSED', 'ECONNRESET']).toContain(a.error);
      }
    }

    // Structured logs only, with the shutdown's steps.
    expect(notJson).toEqual([]);
    const msgs = logs.map((l) => l.msg);
    expect(msgs).toContain('shutting down');
    expect(msgs).toContain('shut down');
    expect(logs.filter((l) => l.msg === 'request').every((l) => typeof l.reqId === 'string')).toBe(true);
  });
});

/**
 * The Redis server of the `redis` batch backend's tests, and batch worker
 * processes (`server/batch-worker-main.ts`) on loopback.
 *
 * The server's URL is `REDIS_URL` (`.ci/run` starts Debian's redis-server on
 * 127.0.0.1:6399 and sets it), default `redis://127.0.0.1:6399`. Without a
 * reachable server the tests are skipped locally, but fail under `CI=true`:
 * CI must never pass them silently.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort, lostItsPort } from './server-process.js';
import { ROOT } from './paths.js';

/** The test Redis server's URL. */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6399';

/**
 * True when the test Redis answers PING.
 * @throws Error under `CI=true` when it does not.
 */
export async function redisAvailable(): Promise<boolean> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2000, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch (err) {
    if (process.env.CI === 'true') {
      throw new Error(`CI=true but Redis at ${REDIS_URL} is unreachable (.ci/run must start redis-server): ${(err as Error).message}`);
    }
    console.warn(`Redis at ${REDIS_URL} is unreachable: the redis backend's tests are skipped (set REDIS_URL, or run redis-server --port 6399)`);
    return false;
  } finally {
    redis.disconnect();
  }
}

/** A fresh key prefix, so that test runs sharing a server never meet. */
export function testPrefix(name: string): string {
  return `test-${name}-${randomBytes(4).toString('hex')}`;
}

/** Deletes every key under `prefix`. */
export async function deletePrefix(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** A running worker process. */
export interface WorkerProcess {
  child: ChildProcess;
  /** Its `WORKER_METRICS_PORT`. */
  port: number;
  url: string;
  output(): string;
  /** Its `/healthz`: name, pool and worker numbers. */
  health(): Promise<WorkerHealth>;
  /** The text of its `/metrics`. */
  metrics(): Promise<string>;
  /** Sends `signal` and waits for the exit; resolves with the exit code (null when killed by a signal). */
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface WorkerHealth {
  worker: string;
  pool: { inFlight: number; running: number; completed: number };
  jobsInFlight: number;
  dealsInFlight: number;
  dealsTotal: number;
  jobsTotal: number;
  jobsHandedBack: number;
  duplicatesRefused: number;
}

/**
 * Starts `server/batch-worker-main.ts` (node with tsx's loader, not the tsx CLI,
 * so that a SIGKILL hits the worker itself) with `env` on top of a quiet test
 * environment, and waits until its `/healthz` answers (pool warm, subscribed).
 */
export async function startWorker(env: Record<string, string>): Promise<WorkerProcess> {
  // freePort's port may be taken before the worker listens (see startServer)
  for (let attempt = 1; ; attempt++) {
    try {
      return await startWorkerOn(env, await freePort());
    } catch (err) {
      if (attempt >= 3 || !lostItsPort((err as Error).message)) throw err;
    }
  }
}

async function startWorkerOn(env: Record<string, string>, port: number): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'server', 'batch-worker-main.ts')], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', WORKER_METRICS_PORT: String(port), LOG_LEVEL: 'warn', THREADS: '1', REDIS_URL, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const worker: WorkerProcess = {
    child,
    port,
    url,
    output: () => out,
    health: async () => (await fetch(`${url}/healthz`)).json() as Promise<WorkerHealth>,
    metrics: async () => (await fetch(`${url}/metrics`)).text(),
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      await closed; // all of its output, the line that says why included
      throw new Error(`the worker exited (${child.exitCode}):\n${out}`);
    }
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) return worker;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await worker.kill('SIGKILL');
      throw new Error(`the worker did not start in 60 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The real service in a child process (`tsx server/main.ts`) on a loopback
 * port, for tests that need a real socket, a SIGKILL or a restart.
 *
 * `SERVER_FRONTS=2` in the tests' environment starts every such server with
 * two HTTP fronts (`FRONTS=2`: a primary and two front processes, one
 * thread each), so that the same tests run against several fronts
 * (vitest.config.ts project `integration-fronts`); a test's own `FRONTS`
 * wins, and a test's `THREADS` below it gets one front a thread.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ROOT } from './paths.js';

/** A running server. */
export interface ServerProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** HTTP fronts (`FRONTS`): 1, or the fronts under the primary `child`. */
  fronts: number;
  /** Everything it printed so far (the fronts' lines too). */
  output(): string;
  /**
   * Sends `signal` and waits for the exit. SIGKILL with several fronts
   * kills the primary and the fronts at once (the process group: a machine
   * or container going down), any other signal goes to the primary only.
   */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** A port free on 127.0.0.1 now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** True when a child's output says it could not listen on its port (EADDRINUSE: `exitOnListenFault`). */
export function lostItsPort(output: string): boolean {
  return /cannot listen/.test(output) && /EADDRINUSE/.test(output);
}

/**
 * Starts `server/main.ts` with `env` on top of a quiet test environment (its
 * own in-memory batch store unless `env` names a BATCH_DB_PATH), on a
 * free loopback port, and waits until `GET /healthz` answers (with several
 * fronts, `GET /readyz`: every front ready). `freePort`'s
 * port is free when it is probed, not when the child listens a second or two
 * later: test files run in parallel and open connections all the time, so a
 * child that lost its port to one (EADDRINUSE) is started again on another,
 * up to 3 times. A `port` given by the caller is not changed. `entry`: a
 * compiled entry point to run instead (`dist/server/main.js`, what `npm
 * start` runs; the benchmarks measure its memory).
 * @throws Error with the child's output when it exits or does not answer in 30 s.
 */
export async function startServer(env: Record<string, string>, port?: number, entry?: string): Promise<ServerProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServerOn(env, port ?? (await freePort()), entry);
    } catch (err) {
      if (port !== undefined || attempt >= 3 || !lostItsPort((err as Error).message)) throw err;
    }
  }
}

async function startServerOn(env: Record<string, string>, port: number, entry?: string): Promise<ServerProcess> {
  const threads = env.THREADS ?? '2';
  // each front needs a thread: a test's THREADS below SERVER_FRONTS gets a front a thread
  const frontsEnv = process.env.SERVER_FRONTS ? { FRONTS: String(Math.min(Number(process.env.SERVER_FRONTS), Number(threads))) } : {};
  // FRONTS 1 unless asked: the default depends on the machine's cores
  const fullEnv = { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', THREADS: threads, BATCH_DB_PATH: ':memory:', FRONTS: '1', ...frontsEnv, ...env };
  const fronts = Number(fullEnv.FRONTS ?? 1);
  // Node itself with tsx's loader, not the tsx CLI: the CLI runs the server in a
  // grandchild process, which a SIGKILL of the CLI would leave running. A
  // compiled `entry` (dist/server/main.js, as `npm start` runs) needs no loader.
  const args = entry !== undefined ? [entry] : ['--import', 'tsx', join(ROOT, 'server', 'main.ts')];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    // BATCH_DB_PATH: not the checkout's data/batches.sqlite, which servers of
    // test files running in parallel would share (its locks, and any batch
    // left running in it, which each of them would resume)
    env: fullEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    // several fronts: a process group of their own, for a SIGKILL of the whole service
    detached: fronts > 1,
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const server: ServerProcess = {
    url,
    port,
    child,
    fronts,
    output: () => out,
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) {
        if (fronts > 1 && signal === 'SIGKILL') process.kill(-child.pid!, signal);
        else child.kill(signal);
      }
      await exited;
    },
  };
  // several fronts: ready once every front is (the batch front too); one: once it listens
  const probe = fronts > 1 ? '/readyz' : '/healthz';
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      await closed; // all of its output, the line that says why included
      throw new Error(`the server exited (${child.exitCode}):\n${out}`);
    }
    try {
      const res = await fetch(`${url}${probe}`);
      if (res.ok) return server;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await server.kill('SIGKILL');
      throw new Error(`the server did not start in 30 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The real service in a child process (`tsx server/main.ts`) on a loopback
 * port, for tests that need a real socket, a SIGKILL or a restart.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A running server. */
export interface ServerProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything it printed so far. */
  output(): string;
  /** Sends `signal` and waits for the exit. */
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

/**
 * Starts `server/main.ts` with `env` on top of a quiet test environment, on a
 * free loopback port, and waits until `GET /healthz` answers.
 */
export async function startServer(env: Record<string, string>, port?: number): Promise<ServerProcess> {
  port ??= await freePort();
  // Node itself with tsx's loader, not the tsx CLI: the CLI runs the server in a
  // grandchild process, which a SIGKILL of the CLI would leave running.
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'server', 'main.ts')], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', THREADS: '2', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const server: ServerProcess = {
    url,
    port,
    child,
    output: () => out,
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${out}`);
    try {
      const res = await fetch(`${url}/healthz`);
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

/**
 * `spawnSync`'s answer (status, signal, stdout, stderr, error) from an
 * asynchronous spawn, so that a test can run several independent command-line
 * checks at once (`Promise.all`) instead of one after the other. For checks
 * whose time is mostly the tool's start-up (tsx and the engine loading), such
 * as a usage error refused before any search: the second core is otherwise
 * idle while the test waits.
 */
import { spawn, type SpawnOptions } from 'node:child_process';

export interface SpawnAnswer {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Set when the child could not be started or ran past `timeout` (then killed with SIGTERM), as spawnSync sets it. */
  error?: Error;
}

export function spawnAsync(command: string, args: string[], options: SpawnOptions & { timeout?: number } = {}): Promise<SpawnAnswer> {
  const { timeout, ...rest } = options;
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...rest, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let error: Error | undefined;
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer =
      timeout === undefined
        ? undefined
        : setTimeout(() => {
            error = Object.assign(new Error(`spawnAsync ${command} ETIMEDOUT`), { code: 'ETIMEDOUT' });
            child.kill('SIGTERM');
          }, timeout);
    child.once('error', (e) => (error = e));
    child.once('close', (status, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ status, signal, stdout, stderr, ...(error ? { error } : {}) });
    });
  });
}

/**
 * The real server's socket deadlines: a client that stalls in the middle of
 * its request is cut off within about a second of REQUEST_TIMEOUT_MS, not up
 * to Node's default 30 s checking interval later; a body with a
 * Content-Encoding is refused 415 before it is read. And start-up faults of the
 * environment (the port taken) end the start with one line naming the variable.
 */
import { spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorResponseSchema } from '../../client-sdk/api/schemas.js';
import { startServer, type ServerProcess } from '../helpers/server-process.js';
import { ROOT } from '../helpers/paths.js';

let server: ServerProcess;
beforeAll(async () => {
  server = await startServer({ REQUEST_TIMEOUT_MS: '2000' });
}, 60_000);
afterAll(async () => server?.kill());

describe('request deadline', () => {
  it('answers 408 to a request body that stops coming, within about a second of REQUEST_TIMEOUT_MS', async () => {
    const started = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () => {
        socket.write('POST /v1/solve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"game"');
      });
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    const elapsed = Date.now() - started;
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    expect(elapsed).toBeLessThan(4500);
  }, 30_000);
});

describe('Content-Encoding', () => {
  const body = JSON.stringify({ game: 'freecell', deal: 1 });
  const send = (encoding: string, bytes: Uint8Array<ArrayBuffer> | string) =>
    fetch(`${server.url}/v1/solve`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': encoding }, body: bytes });

  it('a gzipped body, or a plain one labelled gzip, → 415 unsupported_media_type naming the encoding', async () => {
    for (const bytes of [new Uint8Array(gzipSync(body)) as Uint8Array<ArrayBuffer>, body]) {
      const res = await send('gzip', bytes);
      const text = await res.text();
      expect(res.status, text).toBe(415);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const { error } = ErrorResponseSchema.parse(JSON.parse(text));
      expect(error.code).toBe('unsupported_media_type');
      expect(error.message).toBe('Content-Encoding "gzip" is not supported: send the body uncompressed');
    }
  });

  it('Content-Encoding: identity is taken as no encoding', async () => {
    const res = await send('identity', body);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(((await res.json()) as { game: string }).game).toBe('freecell');
  });
});

describe('start-up faults', () => {
  it('a port in use stops the start with one fatal line naming PORT and HOST, no stack, exit 1', () => {
    const main = join(ROOT, 'server', 'main.ts');
    const run = spawnSync(process.execPath, ['--import', 'tsx', main], {
      env: { ...process.env, HOST: '127.0.0.1', PORT: String(server.port), LOG_LEVEL: 'warn', THREADS: '1', BATCH_DB_PATH: ':memory:' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status, run.stdout + run.stderr).toBe(1);
    const lines = (run.stdout + run.stderr).trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ level: 'fatal', msg: `PORT ${server.port} on HOST 127.0.0.1: cannot listen`, reason: expect.stringContaining('EADDRINUSE') });
    expect(lines[0]).not.toContain('stack');
  }, 40_000);
});

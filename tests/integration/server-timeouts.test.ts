/**
 * The real server's socket deadlines and faults below the app: a client
 * that stalls in the middle of its request is cut off within about a second
 * of REQUEST_TIMEOUT_MS, not up to Node's default 30 s checking interval
 * later, with a 408 JSON answer; bytes that are not HTTP get a 400 JSON
 * answer, not Node's bare status line (server/client-errors.ts); a body
 * with a Content-Encoding is refused 415 before it is read. And start-up
 * faults of the environment (the port taken) end the start with one line
 * naming the variable.
 */
import { spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorResponseSchema } from '../../client-sdk/api/schemas.js';
import { startServer, type ServerProcess } from '../helpers/server-process.js';
import { ROOT } from '../helpers/paths.js';

/** REQUEST_TIMEOUT_MS of the server: its least (config.ts), for fast tests. */
const REQUEST_TIMEOUT_MS = 1000;

let server: ServerProcess;
beforeAll(async () => {
  server = await startServer({ REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) });
}, 60_000);
afterAll(async () => server?.kill());

/** An answer read off a raw socket up to its close: status, headers (lower-case names), body, and the ms from connect to close. */
interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  ms: number;
}

/** Writes `bytes` on a new connection to the server (and nothing more), and reads all it answers until the server closes the connection. */
function raw(bytes: string): Promise<RawAnswer> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1', () => socket.write(bytes));
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString()));
    socket.on('error', reject);
    socket.on('close', () => {
      const cut = text.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = text.slice(0, cut < 0 ? text.length : cut).split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1] ?? NaN), headers, body: cut < 0 ? '' : text.slice(cut + 4), ms: Date.now() - started });
    });
  });
}

/** Checks a raw answer is a whole JSON error answer of `status` and `code`, closing the connection; its message. */
function expectJsonError(answer: RawAnswer, status: number, code: string): string {
  expect(answer.status, answer.body).toBe(status);
  expect(answer.headers['content-type']).toBe('application/json');
  expect(answer.headers.connection).toBe('close');
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
  const { error } = ErrorResponseSchema.parse(JSON.parse(answer.body));
  expect(error.code).toBe(code);
  return error.message;
}

/** The server's log lines at level error or worse, so far (LOG_LEVEL is warn: info and debug are not written). */
function errorLines(): string[] {
  return server.output().split('\n').filter((l) => /"level":"(error|fatal)"/.test(l));
}

describe('request deadline', () => {
  it('answers 408 request_timeout as JSON to a body shorter than its Content-Length, within about a second of REQUEST_TIMEOUT_MS; no error logged', async () => {
    const answer = await raw('POST /v1/solve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"game"');
    expect(expectJsonError(answer, 408, 'request_timeout')).toContain(`within ${REQUEST_TIMEOUT_MS} ms`);
    expect(answer.ms).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    expect(answer.ms).toBeLessThan(REQUEST_TIMEOUT_MS + 2500);
    // the request the app had begun to read is cut off with it: the client's going, not a fault of the server
    await new Promise((r) => setTimeout(r, 500)); // the logs' flush (100 ms) and more
    expect(errorLines()).toEqual([]);
  }, 10_000);
});

describe('requests that are not HTTP', () => {
  it('a malformed request line → 400 invalid_request as JSON, naming the parser code, and the connection closed', async () => {
    const message = expectJsonError(await raw('GARBAGE\r\n\r\n'), 400, 'invalid_request');
    expect(message).toMatch(/not valid HTTP/);
    expect(message).toContain('HPE_INVALID_METHOD');
  });

  it('an invalid Content-Length → 400 invalid_request as JSON naming HPE_INVALID_CONTENT_LENGTH', async () => {
    for (const length of ['-1', 'abc']) {
      const answer = await raw(`POST /v1/solve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{}`);
      expect(expectJsonError(answer, 400, 'invalid_request'), length).toContain('HPE_INVALID_CONTENT_LENGTH');
    }
    expect(errorLines()).toEqual([]);
  });
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

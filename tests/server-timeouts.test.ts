/**
 * The real server's socket deadlines: a client that stalls in the middle of
 * its request is cut off within about a second of REQUEST_TIMEOUT_MS, not up
 * to Node's default 30 s checking interval later.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from './helpers/server-process.js';

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

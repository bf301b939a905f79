/**
 * The headers and access log of the service as `npm start` runs it (the
 * compiled server, Node's HTTP server): every answer carries hono's secure
 * headers and an `X-Request-Id` (the client's when it is a sane token),
 * whether the route answers with a worker's bytes (`POST /v1/solve`), JSON
 * built on the main thread, an error, or a static file; and the access log
 * line of a request reaches stdout within a second although the log is
 * written in buffered writes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { securityHeaderValues } from '../../server/middleware/security.js';
import { startServer, type ServerProcess } from '../helpers/server-process.js';
import { until } from '../helpers/wait.js';

let server: ServerProcess;
let security: Record<string, string>;

beforeAll(async () => {
  server = await startServer({ LOG_LEVEL: 'info' });
  security = await securityHeaderValues();
}, 60_000);
afterAll(async () => server?.kill());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * `POST /v1/solve`, sent again (up to 20 times, 250 ms apart) while it is
 * refused 503: on a machine busy with other tests an interactive solve may
 * not start within its bounded wait, and this file is about the answer.
 */
async function solve(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(`${server.url}/v1/solve`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    if (res.status !== 503 || attempt === 20) return res;
    await res.arrayBuffer();
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('answers of the running service', () => {
  it('carry the secure headers and a request id, from every kind of route', async () => {
    expect(Object.keys(security).length).toBeGreaterThanOrEqual(8);
    const answers = {
      'a solve (bytes built on a worker)': await solve({ game: 'freecell', deal: 1, numbering: 'ms' }),
      'a validation error': await solve({ game: 'freecell', deal: 1, numbering: 'nope' }),
      'the games (JSON built here)': await fetch(`${server.url}/v1/games`),
      'an unknown path': await fetch(`${server.url}/v1/nothing`),
      'the web page (a static file)': await fetch(`${server.url}/`),
    };
    const statuses = Object.fromEntries(Object.entries(answers).map(([name, res]) => [name, res.status]));
    expect(statuses).toEqual({
      'a solve (bytes built on a worker)': 200,
      'a validation error': 400,
      'the games (JSON built here)': 200,
      'an unknown path': 404,
      'the web page (a static file)': 200,
    });
    for (const [name, res] of Object.entries(answers)) {
      for (const [header, value] of Object.entries(security)) expect(`${name}: ${header}: ${res.headers.get(header)}`).toBe(`${name}: ${header}: ${value}`);
      expect(res.headers.get('x-request-id'), name).toMatch(UUID);
      await res.arrayBuffer();
    }
    const solved = (await (await solve({ game: 'freecell', deal: 1, numbering: 'ms' })).json()) as { verdict: string };
    expect(solved.verdict).toBe('solved');
  });

  it("echo the client's request id when it is a sane token, and log the request under it within a second", async () => {
    const res = await solve({ game: 'freecell', deal: 2, numbering: 'ms' }, { 'x-request-id': 'headers-test-7' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('headers-test-7');
    await res.arrayBuffer();
    const logged = () =>
      server
        .output()
        .split('\n')
        .some((line) => line.includes('"reqId":"headers-test-7"') && line.includes('"route":"/v1/solve"') && line.includes('"status":200'));
    await until('the access log line of the request', logged, { timeoutMs: 1000, detail: () => server.output().slice(-2000) });
    const odd = await solve({ game: 'freecell', deal: 2, numbering: 'ms' }, { 'x-request-id': 'not a token!' });
    expect(odd.headers.get('x-request-id')).toMatch(UUID);
    await odd.arrayBuffer();
  });
});

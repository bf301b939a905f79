/**
 * Requests cheap to send that the HTTP layer once answered wrongly (a
 * hostile tryout, issue 36): each must get the right code and a message that
 * is true of what was sent, an answer of a bounded size, and a log line that
 * says what happened. In process (`app.request`), with a fake solve.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ErrorResponseSchema } from '../../client-sdk/api/schemas.js';
import type { SolveOutcome } from '../../client-sdk/core/solve-types.js';
import { createApp } from '../../server/app.js';
import { createBatchService } from '../../server/batches/embedded/service.js';
import { createLogger } from '../../server/logger.js';
import type { SolveFn } from '../../server/pool.js';
import { createServiceApp } from '../../server/service.js';
import { post } from '../helpers/http.js';
import { until } from '../helpers/wait.js';

const STATS = { statesExpanded: 1, statesStored: 1, elapsedMs: 1, memoryBytes: 1 };
const fakeSolve: SolveFn = async () => ({ verdict: 'unknown', reason: 'max_states', moves: [], stats: STATS });

const batches = createBatchService({ dbPath: ':memory:', pool: { solve: fakeSolve }, resume: false });
afterAll(() => batches.close());
const app = createApp({ solve: fakeSolve, logError: () => {}, webRoot: null, batches });

async function errorOf(res: Response, status: number, code: string) {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  const { error } = ErrorResponseSchema.parse(JSON.parse(text));
  expect(error.code, text).toBe(code);
  return { error, bytes: text.length };
}

describe('deal numbers out of every range', () => {
  it('a batch range with an end of 41+ digits is deal_out_of_range, not "a deal range is written first..last"', async () => {
    for (const deals of [`1..${'9'.repeat(41)}`, `${'1'.repeat(45)}-${'2'.repeat(45)}`]) {
      const { error } = await errorOf(await post(app, { game: 'freecell', deals }, { path: '/v1/batches' }), 400, 'deal_out_of_range');
      expect(error.path).toBe('deals');
      expect(error.message).not.toMatch(/first\.\.last/);
      expect(error.message).toMatch(/digits is out of range/);
    }
    // a range that is not one still says how a range is written
    const { error } = await errorOf(await post(app, { game: 'freecell', deals: '1...5' }, { path: '/v1/batches' }), 400, 'invalid_request');
    expect(error.message).toMatch(/first\.\.last/);
  });

  it('deal: 1e40 is deal_out_of_range, without telling to send it as a string (it would still be out of range)', async () => {
    for (const body of ['{"game":"freecell","deal":1e40}', '{"game":"freecell","deal":-1e40}', '{"game":"freecell","deal":1e21}']) {
      const { error } = await errorOf(await post(app, body), 400, 'deal_out_of_range');
      expect(error.path).toBe('deal');
      expect(error.message).not.toMatch(/string/);
    }
    // within PySolFC's range but beyond 2^53: the string form is the way, and the message says so
    const { error } = await errorOf(await post(app, '{"game":"freecell","deal":12345678901234567890,"numbering":"pysolfc"}'), 400, 'invalid_request');
    expect(error.message).toMatch(/must be sent as a string/);
  });
});

describe('game ids', () => {
  it('a game id of 65+ characters is a string too long to be a game, not "must be a game id (a string)"', async () => {
    const { error } = await errorOf(await post(app, { game: 'x'.repeat(65), deal: 1 }), 400, 'invalid_request');
    expect(error.path).toBe('game');
    expect(error.message).not.toMatch(/\(a string\)/);
    expect(error.message).toMatch(/65 characters/);
    // not a string at all: the message says so
    const { error: typed } = await errorOf(await post(app, { game: 7, deal: 1 }), 400, 'invalid_request');
    expect(typed.message).toMatch(/\(a string\)/);
  });
});

describe('unknown fields', () => {
  it('80,000 unknown fields get an answer of a few hundred bytes naming ten of them and counting the rest', async () => {
    const body: Record<string, unknown> = { game: 'freecell', deal: 1 };
    for (let i = 0; i < 80_000; i++) body[`k${i}`] = 1;
    const { error, bytes } = await errorOf(await post(app, body), 400, 'invalid_request');
    expect(bytes).toBeLessThan(1000);
    expect(error.message).toMatch(/"k0"/);
    expect(error.message).toMatch(/"k9"/);
    expect(error.message).not.toMatch(/"k10"/);
    expect(error.message).toMatch(/and 79990 more/);
    expect(error.path).toBe('k0');
  });

  it('an unknown field with a name of 100,000 characters is named by its first 64', async () => {
    const { error, bytes } = await errorOf(await post(app, { game: 'freecell', deal: 1, ['y'.repeat(100_000)]: 1 }), 400, 'invalid_request');
    expect(bytes).toBeLessThan(1000);
    expect(error.path).toBe(`${'y'.repeat(64)}…`);
  });
});

describe('charsets', () => {
  it('a body declared UTF-16 or Latin-1 is refused with 415, not read as UTF-8; UTF-8 and no charset are taken', async () => {
    for (const charset of ['utf-16', 'UTF-16LE', 'latin1', 'ISO-8859-1', '"windows-1252"']) {
      const res = await post(app, { game: 'freecell', deal: 1 }, { headers: { 'content-type': `application/json; charset=${charset}` } });
      const { error } = await errorOf(res, 415, 'unsupported_media_type');
      expect(error.message).toMatch(/UTF-8/);
    }
    for (const type of ['application/json', 'application/json; charset=utf-8', 'application/json;charset="UTF-8"', 'application/json; charset=utf8']) {
      expect((await post(app, { game: 'freecell', deal: 1 }, { headers: { 'content-type': type } })).status, type).toBe(200);
    }
  });
});

describe('content encodings', () => {
  it('a body with a Content-Encoding other than identity is refused with 415 naming it, on every JSON route; identity is taken', async () => {
    const routes: [string, unknown][] = [
      ['/v1/solve', { game: 'freecell', deal: 1 }],
      ['/v1/batches', { game: 'freecell', deals: '1..2' }],
      ['/v1/review', { game: 'freecell', deal: 1, moves: [] }],
    ];
    for (const [path, body] of routes) {
      for (const encoding of ['gzip', 'GZIP', 'br', 'deflate', 'gzip, identity', 'identity, gzip']) {
        const { error } = await errorOf(await post(app, body, { path, headers: { 'content-encoding': encoding } }), 415, 'unsupported_media_type');
        expect(error.message, `${path} ${encoding}`).toBe(`Content-Encoding ${JSON.stringify(encoding)} is not supported: send the body uncompressed`);
      }
    }
    for (const encoding of ['identity', 'Identity', ' identity ', 'identity, identity']) {
      expect((await post(app, { game: 'freecell', deal: 1 }, { headers: { 'content-encoding': encoding } })).status, encoding).toBe(200);
    }
  });
});

describe('a cancelled GET /v1/deals', () => {
  it('is logged as abandoned by the client (499), not as a 503 overloaded refusal', async () => {
    let calls = 0;
    const blocking: SolveFn = (_deal, _limits, signal) => {
      calls++;
      return new Promise<SolveOutcome>((resolve) => {
        const cancelled = () => resolve({ verdict: 'unknown', reason: 'cancelled', moves: [], stats: STATS });
        if (signal?.aborted) cancelled();
        else signal?.addEventListener('abort', cancelled, { once: true });
      });
    };
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({ level: 'debug', destination: { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) } });
    // an idle pool: nothing refuses anything
    const service = createServiceApp({ solve: blocking, logger, shed: () => false, app: { webRoot: null, parallelism: 2 } });
    const ac = new AbortController();
    const pending = Promise.resolve(service.request('/v1/deals?game=freecell&winnable=true&count=5', { signal: ac.signal }));
    await until('the first searches running', () => calls >= 2, { intervalMs: 1 });
    ac.abort();
    await pending.catch(() => undefined);
    await until('the access log line', () => lines.some((l) => l.path === '/v1/deals'), { intervalMs: 1 });
    const line = lines.find((l) => l.path === '/v1/deals')!;
    expect(line).toMatchObject({ status: 499, clientClosed: true, msg: 'request abandoned by the client' });
    expect(line.code).toBeUndefined();
    expect(line.answered).not.toBe(503);
    expect(lines.some((l) => l.msg === 'requests refused (503)' || l.msg === 'request refused')).toBe(false);
  });
});

describe('source maps', () => {
  const root = mkdtempSync(join(tmpdir(), 'web-root-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('are never served, even when a build left one beside the page; the page and its assets are', async () => {
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>t</title>');
    writeFileSync(join(root, 'assets', 'main-abc.js'), 'console.log(1);\n//# sourceMappingURL=main-abc.js.map\n');
    writeFileSync(join(root, 'assets', 'main-abc.js.map'), '{"version":3,"sources":["secret.ts"]}');
    const web = createApp({ solve: fakeSolve, logError: () => {}, webRoot: root });
    expect((await web.request('/')).status).toBe(200);
    expect((await web.request('/assets/main-abc.js')).status).toBe(200);
    const map = await web.request('/assets/main-abc.js.map');
    expect(map.status).toBe(404);
    expect(await map.text()).not.toMatch(/secret/);
  });
});

/**
 * The HTTP API, driven in-process through `app.request()` (no sockets).
 *
 * Most tests use a fake `solve` (HTTP behaviour only: validation, error
 * bodies, statuses, headers, the OpenAPI document); the last block solves
 * real deals through the real worker pool and replays the answers with the
 * independent checker.
 */
import type { Cancellation } from '../../server/pool.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatBoard } from '../../client-sdk/core/board.js';
import { generateDeal } from '../../client-sdk/core/deals/index.js';
import { loadEngineModule } from '../../client-sdk/core/engine/index.js';
import { SolverError } from '../../client-sdk/core/errors.js';
import { layoutToJson } from '../../client-sdk/core/layout.js';
import { findPreset, PRESETS, type Deal } from '../../client-sdk/core/rules.js';
import {
  ErrorResponseSchema,
  GamesResponseSchema,
  SolveResponseSchema,
  type ErrorResponse,
  type SolveResponse,
} from '../../client-sdk/api/schemas.js';
import type { SolveLimits, SolveOutcome } from '../../client-sdk/core/solve-types.js';
import { expectCheckedAnswer } from '../helpers/answers.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { createApp, type AppDeps } from '../../server/app.js';
import type { BatchBackend } from '../../server/batches/backend.js';
import { createPool, type SolverPool } from '../../server/pool.js';
import { DEFAULT_DEEP_BUDGET, DEFAULT_LIMITS_CONFIG } from '../../server/limits.js';
import { engineBuilt } from '../helpers/engine.js';
import { post } from '../helpers/http.js';
import { until } from '../helpers/wait.js';


interface Call {
  deal: Deal;
  limits: SolveLimits;
  signal?: Cancellation;
}

/** An app whose solve answers `unknown`/`max_states` at once and records its calls. */
function fakeApp(overrides: Partial<AppDeps> = {}) {
  const calls: Call[] = [];
  const app = createApp({
    solve: async (deal, limits, signal) => {
      calls.push({ deal, limits, signal });
      return { verdict: 'unknown', reason: 'max_states', moves: [], stats: { statesExpanded: 5, statesStored: 7, elapsedMs: 1, memoryBytes: 1024 } };
    },
    logError: () => {},
    ...overrides,
  });
  return { app, calls };
}

/** Posts and checks the error answer: status, code, and that the body has the documented shape. */
async function expectError(res: Response, status: number, code: string): Promise<ErrorResponse['error']> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = ErrorResponseSchema.parse(JSON.parse(text));
  expect(body.error.code, text).toBe(code);
  expect(text).not.toMatch(/\bat (?:async )?(?:[^ ()]+ \([^)]*:\d+:\d+\)|\S+:\d+:\d+)|\/work\/|\.ts:\d+|node_modules/); // no stack, no file path
  return body.error;
}

const FREECELL_1 = generateDeal('freecell', 'ms', 1).layout;
const FREECELL_RULES = findPreset('freecell')!.rules;
const BOARD_1 = formatBoard(FREECELL_1, FREECELL_RULES);

describe('POST /v1/solve: accepted requests (fake solve)', () => {
  it('solves a deal by number and answers the documented shape', async () => {
    const { app, calls } = fakeApp();
    const res = await post(app, { game: 'freecell', deal: 1 });
    expect(res.status).toBe(200);
    const body = SolveResponseSchema.parse(await res.json());
    expect(body).toMatchObject({ verdict: 'unknown', reason: 'max_states', game: 'freecell', rules: FREECELL_RULES, moves: [], notation: [], fcsMoves: [] });
    expect(body.board).toBe(BOARD_1);
    expect(body.stats).toEqual({
      statesExpanded: 5,
      statesStored: 7,
      elapsedMs: 1,
      memoryBytes: 1024,
      moveCount: 0,
      limits: { maxStates: 5_000_000, timeoutMs: 30_000 },
    });
    expect(calls).toHaveLength(1);
    expect(calls[0].deal.layout).toEqual(FREECELL_1);
    // the request's cancellation (its own AbortSignal's, under app.request)
    expect(calls[0].signal).toMatchObject({ aborted: false });
    expect(calls[0].signal?.addEventListener).toBeTypeOf('function');
  });

  it('takes a board text, a JSON layout, and big deal numbers as strings', async () => {
    const { app, calls } = fakeApp();
    expect((await post(app, { game: 'freecell', board: BOARD_1 })).status).toBe(200);
    expect((await post(app, { game: 'freecell', layout: layoutToJson(FREECELL_1) })).status).toBe(200);
    expect((await post(app, { game: 'freecell', deal: '1', numbering: 'ms' })).status).toBe(200);
    expect(calls.map((c) => c.deal.layout)).toEqual([FREECELL_1, FREECELL_1, FREECELL_1]);
    expect((await post(app, { game: 'freecell', deal: '12345678901234567', numbering: 'pysolfc' })).status).toBe(200);
  });

  it('defaults the numbering to ms where the game has it, else pysolfc', async () => {
    const { app, calls } = fakeApp();
    await post(app, { game: 'freecell', deal: 7 });
    await post(app, { game: 'freecell', deal: 7, numbering: 'ms' });
    expect(calls[0].deal.layout).toEqual(calls[1].deal.layout);
    await post(app, { game: 'seahaven_towers', deal: 7 });
    expect(calls[2].deal.layout).toEqual(generateDeal('seahaven_towers', 'pysolfc', 7).layout);
  });

  it('applies rule overrides and fits the dealt cells to them', async () => {
    const { app, calls } = fakeApp();
    const res = await post(app, { game: 'seahaven_towers', deal: 1, rules: { emptyColumn: 'any' } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as SolveResponse).rules.emptyColumn).toBe('any');
    expect(calls[0].deal.rules).toMatchObject({ emptyColumn: 'any', sequenceMove: 'cells_plus_one', columns: 10 });

    await post(app, { game: 'freecell', deal: 1, rules: { freeCells: 2 } });
    expect(calls[1].deal.rules.freeCells).toBe(2);
    expect(calls[1].deal.layout.freeCells).toEqual([null, null]);
  });

  it('applies limits within the caps, and configured defaults', async () => {
    const { app, calls } = fakeApp({ config: { limits: { defaultMaxStates: 1000, maxStatesCap: 2000 } } });
    await post(app, { game: 'freecell', deal: 1 });
    await post(app, { game: 'freecell', deal: 1, limits: { maxStates: 2000, timeoutMs: 120_000 } });
    expect(calls.map((c) => c.limits)).toEqual([
      { maxStates: 1000, timeoutMs: 30_000 },
      { maxStates: 2000, timeoutMs: 120_000 },
    ]);
  });

  it('accepts application/json with a charset and application/*+json', async () => {
    const { app } = fakeApp();
    expect((await post(app, { game: 'freecell', deal: 1 }, { headers: { 'content-type': 'application/json; charset=utf-8' } })).status).toBe(200);
    expect((await post(app, { game: 'freecell', deal: 1 }, { headers: { 'content-type': 'application/vnd.solver+json' } })).status).toBe(200);
  });

  it("passes the request's abort signal to solve (client disconnect cancels the search)", async () => {
    let seen: Cancellation | undefined;
    const { app } = fakeApp({
      solve: (_deal, _limits, signal) =>
        new Promise<SolveOutcome>((resolve) => {
          seen = signal;
          signal?.addEventListener('abort', () =>
            resolve({ verdict: 'unknown', reason: 'cancelled', moves: [], stats: { statesExpanded: 0, statesStored: 0, elapsedMs: 0, memoryBytes: 0 } }),
          );
        }),
    });
    const ac = new AbortController();
    const pending = post(app, { game: 'freecell', deal: 1 }, { signal: ac.signal });
    await until('the solve called', () => seen !== undefined, { intervalMs: 1 });
    expect(seen?.aborted).toBe(false);
    ac.abort();
    const res = await pending;
    expect(seen?.aborted).toBe(true);
    expect(((await res.json()) as SolveResponse).reason).toBe('cancelled');
  });
});

describe('POST /v1/solve: every 4xx', () => {
  const { app } = fakeApp();

  it('unknown game → 404 unknown_game', async () => {
    const e = await expectError(await post(app, { game: 'klondike', deal: 1 }), 404, 'unknown_game');
    expect(e.path).toBe('game');
    expect(e.message).toContain('klondike');
  });

  it("more than the engine's 18 columns, and an empty-cell rule that is none of any and none, are bad rules", async () => {
    const e = await expectError(await post(app, { game: 'fan', deal: 1, rules: { columns: 19 } }), 400, 'bad_rules');
    expect(e.path).toBe('rules.columns');
    const cell = await expectError(await post(app, { game: 'king_albert', deal: 1, rules: { emptyCell: 'kings' } }), 400, 'bad_rules');
    expect(cell.path).toBe('rules.emptyCell');
  });

  it('malformed JSON → 400 malformed_json with the line and column where parsing stopped', async () => {
    const end = await expectError(await post(app, '{"game": "freecell", "deal": 1'), 400, 'malformed_json');
    expect(end).toMatchObject({ line: 1, column: 31 }); // just past the last character
    const inside = await expectError(await post(app, '{\n  "game": "freecell",\n  "deal": 1,,\n}'), 400, 'malformed_json');
    expect(inside).toMatchObject({ line: 3, column: 13 }); // the second comma
    await expectError(await post(app, ''), 400, 'malformed_json');
    // V8 names no position for an unexpected token ("Unexpected token '}', ... is not valid JSON")
    const token = await expectError(await post(app, '{"game": "freecell",\n "deal": 1,\n "x": }'), 400, 'malformed_json');
    expect(token).toMatchObject({ line: 3, column: 7 }); // the "}" where a value should be
    expect(await expectError(await post(app, 'notjson'), 400, 'malformed_json')).toMatchObject({ line: 1, column: 1 });
  });

  it('a body that is not UTF-8 → 400 invalid_utf8 with the byte offset of the first bad byte', async () => {
    const head = new TextEncoder().encode('{"game": "freecell", "board": "');
    const board = new TextEncoder().encode(BOARD_1.replace(/\n/g, '\\n'));
    const tail = new TextEncoder().encode('"}');
    for (const bad of [[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xe2, 0x82]]) {
      // the bad bytes in place of a space within the first column line
      const cut = BOARD_1.indexOf(' ');
      const bytes = new Uint8Array([...head, ...board.subarray(0, cut), ...bad, ...board.subarray(cut + 1), ...tail]);
      const res = await app.request('/v1/solve', { method: 'POST', headers: { 'content-type': 'application/json' }, body: bytes });
      const e = await expectError(res, 400, 'invalid_utf8');
      expect(e.offset).toBe(head.length + cut);
      expect(e.message).toContain(`byte offset ${head.length + cut}`);
    }
    // Without the check the bytes became U+FFFD and the board an error elsewhere, or another text:
    // well-formed multi-byte UTF-8 still reaches the schema (here: an unknown game, named as sent)
    const e = await expectError(await post(app, { game: 'fréecell', deal: 1 }), 404, 'unknown_game');
    expect(e.message).toContain('fréecell');
  });

  it('a board whose columns are joined by U+2028 → 400 malformed_board at that character', async () => {
    const lines = BOARD_1.trimEnd().split('\n');
    const joined = `${lines[0]}\u2028${lines.slice(1).join('\n')}`;
    const e = await expectError(await post(app, { game: 'freecell', board: joined }), 400, 'malformed_board');
    expect(e).toMatchObject({ line: 1, column: lines[0].length + 1, token: '\u2028' });
  });

  it('a 52-card board with a column line too few is taken, and the echoed board shows the empty last column as ":"', async () => {
    const lines = BOARD_1.trimEnd().split('\n');
    const seven = [...lines.slice(0, 6), `${lines[6]} ${lines[7]}`].join('\n');
    const res = await post(app, { game: 'freecell', board: seven });
    expect(res.status).toBe(200);
    const body = (await res.json()) as SolveResponse;
    expect(body.board.split('\n').slice(0, 8)).toEqual([...seven.split('\n'), ':']);
  });

  it('wrong or missing content type → 415', async () => {
    await expectError(await post(app, { game: 'freecell', deal: 1 }, { headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_media_type');
    await expectError(await app.request('/v1/solve', { method: 'POST', body: JSON.stringify({ game: 'freecell', deal: 1 }) }), 415, 'unsupported_media_type');
  });

  it('malformed board → 400 malformed_board with the line, column and token', async () => {
    const lines = BOARD_1.split('\n');
    lines[2] = lines[2].replace(/^(\S+) (\S+)/, '$1 ZZ');
    const e = await expectError(await post(app, { game: 'freecell', board: lines.join('\n') }), 400, 'malformed_board');
    expect(e).toMatchObject({ line: 3, column: lines[2].indexOf('ZZ') + 1, token: 'ZZ' });
  });

  it('missing and duplicate cards → missing_card / duplicate_card', async () => {
    const missing = BOARD_1.replace(/^(\S+) /, '');
    const e1 = await expectError(await post(app, { game: 'freecell', board: missing }), 400, 'missing_card');
    expect(e1.message).toContain('JD');

    const lines = BOARD_1.split('\n');
    const second = lines[1].split(' ')[0];
    lines[0] = lines[0].replace(/^\S+/, second);
    const e2 = await expectError(await post(app, { game: 'freecell', board: lines.join('\n') }), 400, 'duplicate_card');
    expect(e2.token ?? e2.message).toContain(second);

    const json = layoutToJson(FREECELL_1);
    json.columns[0].pop();
    const e3 = await expectError(await post(app, { game: 'freecell', layout: json }), 400, 'missing_card');
    expect(e3.path).toMatch(/^layout/);
  });

  it('wrong number of columns or cells → wrong_column_count / wrong_cell_count', async () => {
    const json = layoutToJson(FREECELL_1);
    json.columns = json.columns.slice(0, 7).concat([[...json.columns[6], ...json.columns[7]]]).slice(0, 7);
    await expectError(await post(app, { game: 'freecell', layout: json }), 400, 'wrong_column_count');

    const board9 = `${BOARD_1}KS\n`;
    await expectError(await post(app, { game: 'freecell', board: board9 }), 400, 'wrong_column_count');

    const cells = `Freecells: - - - - -\n${BOARD_1}`;
    await expectError(await post(app, { game: 'freecell', board: cells }), 400, 'wrong_cell_count');
  });

  it('deal out of range → deal_out_of_range, with the range', async () => {
    const e = await expectError(await post(app, { game: 'freecell', deal: 2 ** 33 }), 400, 'deal_out_of_range');
    expect(e.message).toContain('8589934591');
    await expectError(await post(app, { game: 'freecell', deal: 0 }), 400, 'deal_out_of_range');
    await expectError(await post(app, { game: 'freecell', deal: -5 }), 400, 'deal_out_of_range');
    await expectError(await post(app, { game: 'seahaven_towers', deal: '123456789012345678901234' }), 400, 'deal_out_of_range');
  });

  it('a numbering the game does not have → numbering_not_supported', async () => {
    const e = await expectError(await post(app, { game: 'seahaven_towers', deal: 1, numbering: 'ms' }), 400, 'numbering_not_supported');
    expect(e.path).toBe('numbering');
    expect(e.message).toContain('pysolfc');
    await expectError(await post(app, { game: 'freecell', deal: 1, numbering: 'bogus' }), 400, 'invalid_request');
  });

  it('bad limits → bad_limits naming the allowed range', async () => {
    const e1 = await expectError(await post(app, { game: 'freecell', deal: 1, limits: { maxStates: 0 } }), 400, 'bad_limits');
    expect(e1).toMatchObject({ path: 'limits.maxStates' });
    expect(e1.message).toContain('1 to 50000000');
    const e2 = await expectError(await post(app, { game: 'freecell', deal: 1, limits: { timeoutMs: 10 ** 9 } }), 400, 'bad_limits');
    expect(e2.message).toContain('1 to 120000');
    await expectError(await post(app, { game: 'freecell', deal: 1, limits: { maxStates: 1.5 } }), 400, 'bad_limits');
    await expectError(await post(app, { game: 'freecell', deal: 1, limits: { maxStates: 'many' } }), 400, 'bad_limits');
    await expectError(await post(app, { game: 'freecell', deal: 1, limits: { maxStatez: 5 } }), 400, 'bad_limits');
  });

  it('bad rules → bad_rules with the field', async () => {
    const e = await expectError(await post(app, { game: 'freecell', deal: 1, rules: { columns: 11 } }), 400, 'bad_rules');
    expect(e.path).toBe('rules.columns');
    await expectError(await post(app, { game: 'freecell', deal: 1, rules: { freeCells: 9 } }), 400, 'bad_rules');
    await expectError(await post(app, { game: 'freecell', deal: 1, rules: { build: 'colour' } }), 400, 'bad_rules');
    // Valid rules that the dealt layout does not fit.
    const e2 = await expectError(await post(app, { game: 'freecell', deal: 1, rules: { columns: 9 } }), 400, 'bad_rules');
    expect(e2.path).toBe('rules.columns');
    await expectError(await post(app, { game: 'seahaven_towers', deal: 1, rules: { freeCells: 1 } }), 400, 'bad_rules');
  });

  it('schema violations → invalid_request with the path of the fault', async () => {
    const cases: [unknown, string | undefined][] = [
      [{ deal: 1 }, 'game'],
      [{ game: 'freecell' }, undefined],
      [{ game: 'freecell', deal: 1, board: BOARD_1 }, 'board'],
      [{ game: 'freecell', deal: 1.5 }, 'deal'],
      [{ game: 'freecell', deal: true }, 'deal'],
      [{ game: 'freecell', deal: 1, colour: 'red' }, 'colour'],
      [{ game: 'freecell', board: BOARD_1, numbering: 'ms' }, 'numbering'],
      [[1, 2], undefined],
    ];
    for (const [body, path] of cases) {
      const e = await expectError(await post(app, body), 400, 'invalid_request');
      expect(e.path, JSON.stringify(body)).toBe(path);
    }
    const big = await expectError(await post(app, '{"game": "freecell", "deal": 1152921504606846976}'), 400, 'invalid_request');
    expect(big.message).toContain('string of digits');
  });

  it("zod's own issues read in the house wording, on /v1/solve and /v1/proofs alike", async () => {
    const cases: [unknown, string, string][] = [
      [{ game: 'freecell', deal: 1, limits: { timeoutMs: '100' } }, 'bad_limits', 'limits.timeoutMs: expected a number, got a string'],
      [{ game: 'freecell', layout: { columns: [['AH']], foundations: { H: 14 } } }, 'invalid_layout', 'layout.foundations.H: must be at most 13'],
      [{ game: 'freecell', deal: 1, optimize: 'fast' }, 'invalid_request', 'optimize: must be one of "none", "length"'],
      [{ game: 'freecell', deal: 1, rules: { columns: 1.5 } }, 'bad_rules', 'rules.columns: expected an integer, got 1.5'],
      [[1, 2], 'invalid_request', 'expected an object, got a list'],
      [{ game: 'freecell', deal: -1e40 }, 'deal_out_of_range', 'deal number -1e+40 is out of range: deal numbers start at 1'],
    ];
    for (const path of ['/v1/solve', '/v1/proofs']) {
      for (const [body, code, message] of cases) {
        const e = await expectError(await post(app, body, { path }), 400, code);
        expect(e.message, `${path} ${JSON.stringify(body)}`).toBe(message);
      }
    }
  });

  it('a malformed JSON layout → invalid_layout with the path', async () => {
    const e = await expectError(await post(app, { game: 'freecell', layout: { columns: [[1, 2]] } }), 400, 'invalid_layout');
    expect(e.path).toBe('layout.columns.0.0');
  });

  it('oversized body → 413 payload_too_large, with or without Content-Length', async () => {
    const small = fakeApp({ config: { bodyLimitBytes: 2048 } }).app;
    const big = JSON.stringify({ game: 'freecell', board: `${BOARD_1}${' '.repeat(4000)}` });
    await expectError(await post(small, big, { headers: { 'content-length': String(big.length) } }), 413, 'payload_too_large');
    // No Content-Length: the body is counted while it streams.
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(big));
        c.close();
      },
    });
    const res = await small.request('/v1/solve', { method: 'POST', headers: { 'content-type': 'application/json' }, body: stream, duplex: 'half' } as RequestInit);
    await expectError(res, 413, 'payload_too_large');
    // The default limit is 1 MiB.
    const huge = JSON.stringify({ game: 'freecell', board: 'x'.repeat(1024 * 1024 + 10) });
    await expectError(await post(app, huge), 413, 'payload_too_large');
  });
});

describe('POST /v1/solve: the deep budget of the offline tools is not the service\'s', () => {
  // `npm run solve -- --deep` takes these (tests/integration/cli-deep.test.ts); the service keeps its caps
  it('refuses the deep positions, the deep deadline and a memory budget with 400 bad_limits, and never solves', async () => {
    const { app, calls } = fakeApp();
    const deal = { game: 'streets_and_alleys', deal: 77 };
    const states = await expectError(await post(app, { ...deal, limits: { maxStates: DEFAULT_DEEP_BUDGET.maxStates } }), 400, 'bad_limits');
    expect(states).toMatchObject({ path: 'limits.maxStates' });
    expect(states.message).toContain(`1 to ${DEFAULT_LIMITS_CONFIG.maxStatesCap}`);
    const time = await expectError(await post(app, { ...deal, limits: { timeoutMs: DEFAULT_DEEP_BUDGET.timeoutMs } }), 400, 'bad_limits');
    expect(time).toMatchObject({ path: 'limits.timeoutMs' });
    expect(time.message).toContain(`1 to ${DEFAULT_LIMITS_CONFIG.timeoutMsCap}`);
    await expectError(await post(app, { ...deal, limits: { maxStates: DEFAULT_LIMITS_CONFIG.maxStatesCap + 1 } }), 400, 'bad_limits');
    await expectError(await post(app, { ...deal, limits: { maxMemoryMb: DEFAULT_DEEP_BUDGET.maxMemoryMb } }), 400, 'bad_limits');
    expect(calls).toEqual([]);
    // the caps themselves are still taken
    const ok = await post(app, { ...deal, limits: { maxStates: DEFAULT_LIMITS_CONFIG.maxStatesCap, timeoutMs: DEFAULT_LIMITS_CONFIG.timeoutMsCap } });
    expect(ok.status).toBe(200);
    expect(calls[0].limits).toEqual({ maxStates: DEFAULT_LIMITS_CONFIG.maxStatesCap, timeoutMs: DEFAULT_LIMITS_CONFIG.timeoutMsCap });
  });
});

describe('errors outside the request', () => {
  it('unknown routes → 404 JSON; a known path with another method → 405 with Allow', async () => {
    const { app } = fakeApp();
    await expectError(await app.request('/v2/solve'), 404, 'not_found');
    await expectError(await app.request('/v1/solve/x'), 404, 'not_found');
    const get = await app.request('/v1/solve');
    expect(get.headers.get('allow')).toBe('POST');
    await expectError(get, 405, 'method_not_allowed');
    // the batch paths are known only to an app with batch routes
    await expectError(await app.request('/v1/batches/abc', { method: 'PUT' }), 404, 'not_found');
    const withBatches = fakeApp({ batches: {} as BatchBackend }).app; // no request below reaches the backend
    const put = await withBatches.request('/v1/batches/abc', { method: 'PUT' });
    expect(put.headers.get('allow')).toBe('GET, DELETE');
    await expectError(put, 405, 'method_not_allowed');
  });

  it('every documented /v1 path answers another method with 405 and the methods the document lists', async () => {
    const { app } = fakeApp({ batches: {} as BatchBackend });
    const doc = (await (await app.request('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    const paths = Object.entries(doc.paths).filter(([path]) => path.startsWith('/v1/'));
    expect(paths.length).toBeGreaterThanOrEqual(9);
    for (const [path, operations] of paths) {
      const res = await app.request(path.replace(/\{[^}]+\}/g, 'x'), { method: 'PATCH' });
      const documented = Object.keys(operations).map((m) => m.toUpperCase()).sort();
      expect(res.headers.get('allow')?.split(', ').sort(), path).toEqual(documented);
      await expectError(res, 405, 'method_not_allowed');
    }
  });

  it('an unexpected error → 500 internal_error without details', async () => {
    const logged: unknown[] = [];
    const { app } = fakeApp({
      solve: async () => {
        throw new Error('boom at /work/main/server/secret.ts:12');
      },
      logError: (_m, err) => logged.push(err),
    });
    const e = await expectError(await post(app, { game: 'freecell', deal: 1 }), 500, 'internal_error');
    expect(e.message).not.toContain('boom');
    expect(logged).toHaveLength(1);
  });

  it('overloaded → 503 with Retry-After', async () => {
    const { app } = fakeApp({
      solve: async () => {
        throw new SolverError('overloaded', 'the solver is busy; retry later');
      },
    });
    const res = await post(app, { game: 'freecell', deal: 1 });
    expect(res.headers.get('retry-after')).toBe('1');
    await expectError(res, 503, 'overloaded');
  });

  it('engine errors keep their code and status', async () => {
    const { app } = fakeApp({
      solve: async () => {
        throw new SolverError('solution_check_failed', 'the checker rejected move 12');
      },
    });
    await expectError(await post(app, { game: 'freecell', deal: 1 }), 500, 'solution_check_failed');
  });
});

describe('GET endpoints', () => {
  const { app } = fakeApp({ health: () => ({ pool: { threads: 2 } }) });

  it('/v1/games lists every preset with its rules and numberings', async () => {
    const res = await app.request('/v1/games');
    expect(res.status).toBe(200);
    const body = GamesResponseSchema.parse(await res.json());
    expect(body.games.map((g) => g.id)).toEqual(PRESETS.map((p) => p.id));
    for (const game of ['bakers_dozen', 'good_measure', 'fan', 'king_albert', 'siegecraft', 'stronghold']) expect(body.games.map((g) => g.id)).toContain(game);
    expect(body.games.find((g) => g.id === 'king_albert')).toMatchObject({ rules: { columns: 9, freeCells: 7, emptyCell: 'none' } });
    expect(body.games.find((g) => g.id === 'fan')).toMatchObject({ rules: { columns: 18, freeCells: 0, build: 'suit', emptyColumn: 'kings' } });
    const fc = body.games.find((g) => g.id === 'freecell')!;
    expect(fc).toMatchObject({ rules: FREECELL_RULES, numberings: ['ms', 'pysolfc'], defaultNumbering: 'ms' });
    expect(body.games.find((g) => g.id === 'seahaven_towers')).toMatchObject({ numberings: ['pysolfc'], defaultNumbering: 'pysolfc' });
  });

  it('/v1/games says which games take the foundation base from the deal (Penguin: the beak), and the others keep the listed one', async () => {
    const body = GamesResponseSchema.parse(await (await app.request('/v1/games')).json());
    expect(body.games.filter((g) => g.foundationBaseFromDeal).map((g) => g.id)).toEqual(['penguin']);
    for (const g of body.games) {
      expect(typeof g.foundationBaseFromDeal).toBe('boolean');
      if (g.defaultNumbering === null) continue;
      const bases = new Set([1, 2, 3, 4, 5, 6, 7, 8].map((n) => resolveDeal({ game: g.id, deal: n }).rules.foundationBase));
      // a listed base is what every deal gets; a base from the deal varies (the beak's rank)
      if (g.foundationBaseFromDeal) expect(bases.size).toBeGreaterThan(1);
      else expect([...bases]).toEqual([g.rules.foundationBase]);
    }
  });

  it('/healthz answers ok', async () => {
    const res = await app.request('/healthz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', pool: { threads: 2 } });
  });

  it('/openapi.json is an OpenAPI 3.1 document of the same schemas, with every $ref resolvable', async () => {
    const res = await app.request('/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, any>;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    const solve = doc.paths['/v1/solve'].post;
    expect(solve.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/SolveRequest' });
    expect(Object.keys(solve.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404', '413', '415', '429', '500', '503']));
    expect(Object.keys(doc.paths['/v1/games'].get.responses)).toEqual(expect.arrayContaining(['200', '401', '429']));
    // API keys are bearer tokens, and optional (a server without API_KEYS needs none)
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearerAuth: [] }, {}]);
    expect(doc.paths['/healthz'].get).toBeDefined();
    for (const name of ['SolveRequest', 'SolveResponse', 'ErrorResponse', 'Layout', 'Rules', 'Move', 'GamesResponse']) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    const req = doc.components.schemas.SolveRequest;
    expect(req.required).toEqual(['game']);
    expect(req.properties.deal.anyOf).toHaveLength(2);
    expect(req.additionalProperties).toBe(false);
    // Every $ref points into the document.
    const refs: string[] = [];
    const walk = (v: unknown) => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (k === '$ref' && typeof x === 'string') refs.push(x);
          else walk(x);
        }
      }
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(5);
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(doc.components.schemas[ref.split('/').pop()!], ref).toBeDefined();
    }
  });

  it('/openapi.json names every game preset (Penguin and Fortress included), from the presets themselves', async () => {
    const { app } = fakeApp();
    const doc = (await (await app.request('/openapi.json')).json()) as { info: { description: string }; components: { schemas: Record<string, { properties?: Record<string, { description?: string }> }> } };
    const gameDoc = doc.components.schemas.SolveRequest.properties!.game.description!;
    for (const preset of PRESETS) {
      expect(gameDoc).toContain(`\`${preset.id}\``);
      expect(doc.info.description).toContain(preset.name);
    }
  });

  it('/docs serves Swagger UI pointed at /openapi.json', async () => {
    const res = await app.request('/docs');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('SwaggerUIBundle');
    expect(html).toContain('/openapi.json');
    const asset = /src="([^"]*swagger-ui-bundle\.js)"/.exec(html)?.[1];
    expect(asset).toBeDefined();
    expect(asset).toMatch(/^\/docs\/assets\//); // served from swagger-ui-dist, no CDN
    if (asset!.startsWith('/')) {
      const js = await app.request(asset!);
      expect(js.status).toBe(200);
      expect(js.headers.get('content-type')).toMatch(/javascript/);
    }
  });
});

describe.skipIf(!engineBuilt())('real solves through the worker pool', () => {
  let pool: SolverPool;
  let app: ReturnType<typeof createApp>;

  beforeAll(async () => {
    pool = createPool({ module: await loadEngineModule(), threads: 2 });
    app = createApp({ solve: pool.solve });
  });
  afterAll(async () => {
    await pool.close();
  });

  it('Seahaven Towers #1', async () => {
    const res = await post(app, { game: 'seahaven_towers', deal: 1 });
    expect(res.status).toBe(200);
    const body = SolveResponseSchema.parse(await res.json());
    expect(body.verdict).toBe('solved');
    expectCheckedAnswer(body);
  });

  it('Microsoft FreeCell #1', async () => {
    const res = await post(app, { game: 'freecell', deal: 1, numbering: 'ms' });
    expect(res.status).toBe(200);
    const body = SolveResponseSchema.parse(await res.json());
    expect(body.verdict).toBe('solved');
    expect(body.board.split('\n')[0]).toBe('JD KD 2S 4C 3S 6D 6S');
    expectCheckedAnswer(body);
  });

  it('a small state budget answers unknown / max_states', async () => {
    // 20 positions cannot hold a solution's path (each of its moves stores one),
    // whatever the search order
    const res = await post(app, { game: 'freecell', deal: 5, rules: { freeCells: 2 }, limits: { maxStates: 20 } });
    const body = SolveResponseSchema.parse(await res.json());
    expect(body).toMatchObject({ verdict: 'unknown', reason: 'max_states', moves: [] });
  });
});

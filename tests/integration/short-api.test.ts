/**
 * `optimize: "length"` through the HTTP API and the real worker pool
 * (docs/short-solutions.md): the answer reports the first and the returned
 * length, every solution replays under the independent checker, bad options
 * are 400s with a machine-readable code, and the OpenAPI document has them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEngineModule } from '../../client-sdk/core/engine/index.js';
import { ErrorResponseSchema, SolveResponseSchema } from '../../client-sdk/api/schemas.js';
import { countedMoves } from '../../client-sdk/core/shorten.js';
import { expectCheckedAnswer } from '../helpers/answers.js';
import { createApp } from '../../server/app.js';
import { createPool, type SolverPool } from '../../server/pool.js';
import { engineBuilt } from '../helpers/engine.js';
import { post } from '../helpers/http.js';

describe.skipIf(!engineBuilt())('optimize: "length" through the worker pool', () => {
  let pool: SolverPool;
  let app: ReturnType<typeof createApp>;

  beforeAll(async () => {
    pool = createPool({ module: await loadEngineModule(), threads: 2 });
    app = createApp({ solve: pool.solve });
  });
  afterAll(async () => {
    await pool.close();
  });

  // Deal 6 (62 counted moves first) is shortened already by the session's
  // first beam, 64 wide, ~5 ms of a warm engine: so 200 ms of wall clock
  // leave a margin of ~40x for a busy CI machine (deal 617 needed a wide
  // beam, and a wide beam stopped by the deadline returns nothing).
  it('MS FreeCell #6: shorter, checked, and the report matches both solutions', async () => {
    const fast = SolveResponseSchema.parse(await (await post(app, { game: 'freecell', deal: 6 })).json());
    expect(fast.verdict).toBe('solved');
    expect(fast.optimize).toBeUndefined();
    const res = await post(app, { game: 'freecell', deal: 6, optimize: 'length', limits: { optimizeMs: 200 } });
    expect(res.status).toBe(200);
    const body = SolveResponseSchema.parse(await res.json());
    expect(body.verdict).toBe('solved');
    expectCheckedAnswer(body);
    const o = body.optimize!;
    expect(o.firstLength).toBe(countedMoves(fast.moves));
    expect(o.length).toBe(countedMoves(body.moves));
    expect(o.length).toBeLessThan(o.firstLength);
    expect(o.budgetMs).toBe(200);
    expect(typeof o.budgetExhausted).toBe('boolean');
  });

  it('Seahaven Towers #1 with the default budget', async () => {
    const body = SolveResponseSchema.parse(await (await post(app, { game: 'seahaven_towers', deal: 1, optimize: 'length' })).json());
    expect(body.verdict).toBe('solved');
    expectCheckedAnswer(body);
    expect(body.optimize!.budgetMs).toBe(1000);
    expect(body.optimize!.length).toBeLessThanOrEqual(body.optimize!.firstLength);
  });

  // The engine polls its clock every 256 positions; the peephole pass and the
  // checks come after the budget: together tens of ms (docs/short-solutions.md).
  it('keeps to its budget: a 30 ms shortening ends within 150 ms of it (wall clock)', { retry: 2 }, async () => {
    const res = await post(app, { game: 'freecell', deal: 617, optimize: 'length', limits: { optimizeMs: 30 } });
    const body = SolveResponseSchema.parse(await res.json());
    expectCheckedAnswer(body);
    expect(body.optimize!.budgetExhausted).toBe(true);
    expect(body.optimize!.elapsedMs).toBeGreaterThanOrEqual(30);
    expect(body.optimize!.elapsedMs).toBeLessThan(30 + 150);
  });

  it('an unsolvable deal stays unsolvable, with no optimize report', async () => {
    const body = SolveResponseSchema.parse(await (await post(app, { game: 'freecell', deal: 11982, optimize: 'length', limits: { optimizeMs: 50 } })).json());
    expect(body.verdict).toBe('unsolvable');
    expect(body.optimize).toBeUndefined();
  });
});

describe('optimize: bad requests', () => {
  const app = createApp({
    solve: async () => {
      throw new Error('a bad request must not reach the solver');
    },
    logError: () => {},
  });

  it.each([
    [{ game: 'freecell', deal: 1, limits: { optimizeMs: 100 } }, 'bad_limits', 'limits.optimizeMs'],
    [{ game: 'freecell', deal: 1, optimize: 'length', limits: { optimizeMs: 0 } }, 'bad_limits', 'limits.optimizeMs'],
    [{ game: 'freecell', deal: 1, optimize: 'length', limits: { optimizeMs: 20_000 } }, 'bad_limits', 'limits.optimizeMs'],
    [{ game: 'freecell', deal: 1, optimize: 'length', limits: { optimizeMs: 'soon' } }, 'bad_limits', 'limits.optimizeMs'],
    [{ game: 'freecell', deal: 1, optimize: 'shortest' }, 'invalid_request', 'optimize'],
  ])('%j → 400 %s', async (body, code, path) => {
    const res = await post(app, body);
    expect(res.status).toBe(400);
    const error = ErrorResponseSchema.parse(await res.json()).error;
    expect(error.code).toBe(code);
    expect(error.path).toBe(path);
  });

  it('the OpenAPI document describes optimize and limits.optimizeMs', async () => {
    const doc = (await (await app.request('/openapi.json')).json()) as { components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };
    expect(doc.components.schemas.SolveRequest.properties).toHaveProperty('optimize');
    expect(doc.components.schemas.LimitsRequest.properties).toHaveProperty('optimizeMs');
    expect(doc.components.schemas.SolveResponse.properties).toHaveProperty('optimize');
    expect(doc.components.schemas).toHaveProperty('OptimizeInfo');
  });
});

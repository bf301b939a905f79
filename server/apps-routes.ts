/**
 * The app routes (docs/apps.md), described with
 * @hono/zod-openapi like `POST /v1/solve`:
 *
 * - `POST /v1/review` → where a played game was lost (`reviewGame`);
 * - `POST /v1/difficulty` → `min_cells` / `castle_ladder` (`rateDifficulty`);
 * - `GET /v1/deals?game=…&winnable=true&count=…&seed=…` → winnable deal
 *   numbers (`winnableDeals`).
 *
 * The logic is in client-sdk/api/apps.ts (shared with the SDK's local
 * solver); here it runs on the worker pool, `parallelism` positions at once.
 * Errors go through the app's one `onError` (thrown `SolverError`s).
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import {
  DealsQuerySchema,
  DealsResponseSchema,
  DifficultyRequestSchema,
  DifficultyResponseSchema,
  ReviewRequestSchema,
  ReviewResponseSchema,
} from '../client-sdk/api/apps-schemas.js';
import { rateDifficulty, reviewGame, winnableDeals, type AppsConfig, type Decider } from '../client-sdk/api/apps.js';
import { errorContent, JSON_BODY_RESPONSES, requestHook, SOLVER_RESPONSES } from './openapi.js';

/** What the app routes need from the app. */
export interface AppRouteDeps {
  /** The pool's solve and its thread count. */
  decider: Decider;
  /** Budgets and certificate caps. */
  config: AppsConfig;
  /** The app's JSON body gate (415 / `malformed_json`). */
  jsonBody: MiddlewareHandler;
}

/** Adds `POST /v1/review`, `POST /v1/difficulty` and `GET /v1/deals` to `app`. */
export function registerAppRoutes(app: OpenAPIHono, deps: AppRouteDeps): void {
  const { decider, config } = deps;

  const reviewRoute = createRoute({
    method: 'post',
    path: '/v1/review',
    tags: ['apps'],
    summary: 'Review a played game',
    description:
      'Replays the moves of a game (each checked legal: an illegal one is a 400 `illegal_move` with `path: moves.<i>`), decides the positions along the way ' +
      '(a winnable position proves the ones before it, a lost one the ones after it; several searched at once), and names the first move after which the game ' +
      'could not be won, with the proof of that position (`proof: true`: its certificate) and a checked winning line from the position before it.',
    middleware: [deps.jsonBody] as const,
    request: { body: { required: true, content: { 'application/json': { schema: ReviewRequestSchema } } } },
    responses: {
      200: { description: 'The verdict on every position, the losing move and the winning alternative.', content: { 'application/json': { schema: ReviewResponseSchema } } },
      400: errorContent('Invalid request; `illegal_move` names the move (`path: moves.<i>`, `token`) and why.'),
      ...JSON_BODY_RESPONSES,
      ...SOLVER_RESPONSES,
    },
  });

  const difficultyRoute = createRoute({
    method: 'post',
    path: '/v1/difficulty',
    tags: ['apps'],
    summary: 'Rate a deal: fewest free cells, or the Castle ladder',
    description:
      '`min_cells` (games with free cells): the fewest free cells the deal can be won with, a checked solution with that many and a complete search with one fewer. ' +
      '`castle_ladder` (games without, whose emptied columns take any card): the strictest of no_empty_column < kings_to_empty < as_dealt < one_free_cell on which it can be won. ' +
      '`unknown` when a budget ran out. Fan, Baker\'s Dozen and Good Measure fit neither (400 at `game`).',
    middleware: [deps.jsonBody] as const,
    request: { body: { required: true, content: { 'application/json': { schema: DifficultyRequestSchema } } } },
    responses: {
      200: { description: 'The value, with its solution and the proof one rung below.', content: { 'application/json': { schema: DifficultyResponseSchema } } },
      400: errorContent('Invalid request, or a measure the game does not fit (`path: measure`).'),
      ...JSON_BODY_RESPONSES,
      ...SOLVER_RESPONSES,
    },
  });

  const dealsRoute = createRoute({
    method: 'get',
    path: '/v1/deals',
    tags: ['apps'],
    summary: 'Winnable deal numbers',
    description:
      'Draws deal numbers of a game (seeded: the same seed gives the same draw) and offers the first `count` whose verdict is `solved` (a solution replayed by the checker); ' +
      '`unsolvable` and `unknown` ones are skipped and listed in `skipped`, never offered.',
    request: { query: DealsQuerySchema },
    responses: {
      200: { description: 'The winnable deals.', content: { 'application/json': { schema: DealsResponseSchema } } },
      400: errorContent('Invalid query: count, seed, range, numbering, budgets.'),
      ...SOLVER_RESPONSES,
    },
  });

  app.openapi(reviewRoute, async (c) => c.json(await reviewGame(c.req.valid('json'), decider, config, c.req.raw.signal), 200), requestHook(reviewRoute));
  app.openapi(difficultyRoute, async (c) => c.json(await rateDifficulty(c.req.valid('json'), decider, config, c.req.raw.signal), 200), requestHook(difficultyRoute));
  app.openapi(dealsRoute, async (c) => c.json(await winnableDeals(c.req.valid('query'), decider, config, c.req.raw.signal), 200), requestHook(dealsRoute));
}

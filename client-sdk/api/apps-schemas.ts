/**
 * The wire contract of the app endpoints, in zod 4 like
 * `schemas.ts`: `POST /v1/review` (where a played game was lost),
 * `GET /v1/deals` (winnable deal numbers) and `POST /v1/difficulty`
 * (fewest free cells, or the Castle ladder). The server validates with
 * these schemas, the OpenAPI document is generated from them, and the SDK's
 * client parses every answer with them. docs/apps.md describes each.
 */
import { z } from 'zod';
import {
  DealNumberSchema,
  GameIdSchema,
  LimitsSchema,
  MoveSchema,
  NumberingSchema,
  ProofSchema,
  RulesSchema,
  SolveRequestSchema,
  SolveStatsSchema,
} from './schemas.js';

const positionRefine = (req: { deal?: unknown; board?: unknown; layout?: unknown; numbering?: unknown }, ctx: z.RefinementCtx): void => {
  const given = (['deal', 'board', 'layout'] as const).filter((k) => req[k] !== undefined);
  if (given.length !== 1) {
    ctx.addIssue({
      code: 'custom',
      message: given.length === 0 ? 'give the position: exactly one of deal, board, layout' : `give exactly one of deal, board, layout (got ${given.join(', ')})`,
      path: given.length === 0 ? [] : [given[1]],
    });
  }
  if (req.numbering !== undefined && req.deal === undefined) {
    ctx.addIssue({ code: 'custom', message: 'numbering applies only to a deal number', path: ['numbering'] });
  }
};

/**
 * Refinement of the review and difficulty bodies: they take `POST
 * /v1/solve`'s fields, but their searches decide verdicts and return the
 * first solution found, so `optimize` and `limits.optimizeMs` would be
 * ignored; they are refused instead (`invalid_request` at `optimize`,
 * `bad_limits` at `limits.optimizeMs`), as batches refuse `limits.optimizeMs`.
 */
const noShorteningRefine =
  (route: string) =>
  (req: { optimize?: unknown; limits?: { optimizeMs?: unknown } }, ctx: z.RefinementCtx): void => {
    if (req.optimize !== undefined) {
      ctx.addIssue({ code: 'custom', message: `applies to POST /v1/solve only: ${route} decides verdicts and returns the first solution found`, path: ['optimize'] });
    }
    if (req.limits?.optimizeMs !== undefined) {
      ctx.addIssue({ code: 'custom', message: `applies to POST /v1/solve only (with optimize: "length"): ${route} does not shorten solutions`, path: ['limits', 'optimizeMs'] });
    }
  };

/** `optimize` of the review and difficulty bodies: listed so that it is refused by name, not as an unknown field. */
const refusedOptimize = (route: string) =>
  SolveRequestSchema.shape.optimize.meta({ description: `Not taken by ${route} (400 \`invalid_request\`): its searches return the first solution found. So is \`limits.optimizeMs\` (400 \`bad_limits\`).` });

/** At most this many moves in one review (a won FreeCell game takes about 100). */
export const MAX_REVIEW_MOVES = 2000;

/**
 * The message of a review of more than `MAX_REVIEW_MOVES` moves, given as a
 * list (the schema refuses it) or as one string of notation (`reviewGame`
 * refuses it once the string is split): `at most 2,000 moves in one review,
 * got 2,002`, after the path `moves: `.
 * @param count the moves the review was given.
 */
export function tooManyMovesMessage(count: number): string {
  return `at most ${MAX_REVIEW_MOVES.toLocaleString('en')} moves in one review, got ${count.toLocaleString('en')}`;
}

/** At most this many characters of notation in one review's `moves` string. */
export const MAX_REVIEW_TEXT = 20_000;

/**
 * A JSON move of a request (a review's `moves`): the fields of {@link MoveSchema},
 * strict, so that a misspelt or extra field (`"colour"`) is a 400 naming
 * `moves.<i>.<key>` instead of being ignored. (Answers' moves are not strict:
 * a client keeps working when the service adds a field.)
 */
export const MoveRequestSchema = z.strictObject(MoveSchema.shape);

/** The message of a review's list entry that is neither a notation token nor an object (a JSON move's own faults name their key). */
const MOVE_ENTRY_ERROR =
  'a move is a notation token (a string such as "3a") or a JSON move {from, fromIndex, to, toIndex, count, card, auto}';

/** Body of `POST /v1/review`: a start position (as `POST /v1/solve`) and the moves the player made. */
export const ReviewRequestSchema = z
  .strictObject({
    ...SolveRequestSchema.shape,
    optimize: refusedOptimize('POST /v1/review'),
    moves: z
      .union([
        z
          .string()
          .max(MAX_REVIEW_TEXT, { error: `at most ${MAX_REVIEW_TEXT.toLocaleString('en')} characters of notation` })
          .meta({ description: 'Standard notation, tokens separated by spaces or commas: `"3a 32 a3 1h"`.' }),
        z
          .array(z.union([z.string().max(8), MoveRequestSchema], { error: MOVE_ENTRY_ERROR }))
          .max(MAX_REVIEW_MOVES, { error: (issue) => tooManyMovesMessage((issue.input as unknown[]).length) }),
      ], {
        error: (issue) =>
          issue.input === undefined
            ? 'required: the moves the player made, as standard notation ("3a 32 a3") or a list of tokens or JSON moves'
            : 'must be standard notation as one string ("3a 32 a3") or a list of tokens or JSON moves',
      })
      .meta({
        description:
          'The moves the player made from the start, every one (foundation moves too): standard notation as one string or a list, or JSON moves (as `POST /v1/solve` answers them). ' +
          'A column-to-column token moves the longest run that may legally go there.',
        example: '3a 32 a3',
      }),
  })
  .superRefine(positionRefine)
  .superRefine(noShorteningRefine('POST /v1/review'))
  .meta({ id: 'ReviewRequest',
    description: 'A played game: the start (deal number, board or layout) and the moves made.',
    example: { game: 'freecell', deal: 1, moves: '3a 32 a3' },
  });

/** How a position's verdict in a review was established. */
export const ReviewBasisSchema = z.enum(['search', 'on_solution', 'before_winnable', 'after_lost', 'budget']).meta({
  description:
    '`search`: its own search (a checked solution, or a complete search); `on_solution`: the position lies on a checked solution found for an earlier position; ' +
    '`before_winnable`: a later position of the game is winnable (the player\'s moves, then that solution); `after_lost`: it follows a lost position ' +
    '(every position reachable from a lost one is lost: the lost one\'s complete search explored it); `budget`: its search ran out of budget.',
});

/** The verdict on one position of a reviewed game. */
export const ReviewPositionSchema = z
  .object({
    index: z.number().int().meta({ description: 'Position after this many moves (0 = the start).' }),
    verdict: z.enum(['solved', 'unsolvable', 'unknown']),
    basis: ReviewBasisSchema,
    reason: z.enum(['max_states', 'timeout', 'memory', 'cancelled']).optional(),
  })
  .meta({ id: 'ReviewPosition' });

/** A solution from a given position, checked by the independent checker. */
export const LineSchema = z
  .object({
    board: z.string().meta({ description: 'The position the line starts from, fc-solve text.' }),
    moves: z.array(MoveSchema),
    notation: z.array(z.string()),
    moveCount: z.number().int(),
  })
  .meta({ id: 'Line' });

/** Answer of `POST /v1/review`. */
export const ReviewResponseSchema = z
  .object({
    game: GameIdSchema,
    rules: RulesSchema,
    board: z.string().meta({ description: 'The start position, fc-solve text.' }),
    moves: z.array(MoveSchema).meta({ description: "The player's moves as JSON (card and count read off the position for notation)." }),
    notation: z.array(z.string()).meta({ description: "The player's moves in standard notation." }),
    result: z.enum(['won', 'winnable', 'lost', 'lost_at_start', 'unknown']).meta({
      description:
        '`won`: every card home at the end; `winnable`: the last position can still be won (`continuation`); `lost`: `lost` names the move after which it could not be won; ' +
        '`lost_at_start`: the start itself cannot be won (proof in `lost`); `unknown`: a budget ran out between the last position known winnable and the first known lost (`unknown`).',
    }),
    positions: z.array(ReviewPositionSchema).meta({ description: 'Every position of the game, the start included (moves + 1 entries).' }),
    lost: z
      .object({
        moveIndex: z.number().int().nullable().meta({ description: '0-based index of the losing move; null with `lost_at_start`.' }),
        move: MoveSchema.nullable(),
        notation: z.string().nullable(),
        board: z.string().meta({ description: 'The lost position (after the move), fc-solve text.' }),
        proof: ProofSchema,
      })
      .optional()
      .meta({ description: 'With `lost` and `lost_at_start`: the first lost position and the proof of its complete search (the certificate with `proof: true`).' }),
    alternative: z
      .object({
        moveIndex: z.number().int().meta({ description: 'The move it replaces.' }),
        move: MoveSchema,
        notation: z.string(),
        line: LineSchema,
      })
      .optional()
      .meta({
        description:
          'With `lost`: a winning move at the position before the losing move; `line` is a whole winning line from that position, its first move being `move`, replayed by the checker.',
      }),
    continuation: LineSchema.optional(),
    unknown: z
      .object({
        from: z.number().int().meta({ description: 'First position whose verdict is unknown.' }),
        to: z.number().int().meta({ description: 'Last position whose verdict is unknown.' }),
        reasons: z.array(z.enum(['max_states', 'timeout', 'memory', 'cancelled', 'max_searches'])).meta({
          description: 'The budgets that ran out; `max_searches`: the review ran its most searches (2·log2(positions) + 8) with positions still open.',
        }),
      })
      .optional(),
    stats: z
      .object({
        searches: z.number().int().meta({ description: 'Searches run (positions decided by their own search).' }),
        statesExpanded: z.number().int(),
        elapsedMs: z.number().meta({ description: 'Wall-clock time of the review, ms.' }),
        limits: LimitsSchema,
      })
      .meta({ id: 'ReviewStats', description: 'What the review cost; `limits`: the budgets of each search.' }),
  })
  .meta({ id: 'ReviewResponse', description: 'The verdict of a played game; `continuation` comes with `winnable`: a checked solution from the last position.' });

/** The difficulty measures. */
export const MeasureSchema = z.enum(['min_cells', 'castle_ladder']).meta({
  description:
    '`min_cells` (games with free cells): the fewest free cells the deal can be won with. `castle_ladder` (games without free cells whose emptied columns take any card): the most restrictive rung of ' +
    '`no_empty_column` < `kings_to_empty` < `as_dealt` < `one_free_cell` under which the deal can be won. docs/apps.md defines both.',
});

/** Body of `POST /v1/difficulty`: a position as for `POST /v1/solve`, and the measure. */
export const DifficultyRequestSchema = z
  .strictObject({
    ...SolveRequestSchema.shape,
    optimize: refusedOptimize('POST /v1/difficulty'),
    measure: MeasureSchema.optional().meta({
      description:
        'Default: the one that fits the game, `min_cells` with free cells, `castle_ladder` without. A measure that does not fit is a 400 at `measure`; ' +
        'a game that neither fits (Fan, Baker\'s Dozen, Good Measure: no cells, an emptied column takes Kings only or no card) a 400 at `game`.',
    }),
  })
  .superRefine(positionRefine)
  .superRefine(noShorteningRefine('POST /v1/difficulty'))
  .meta({ id: 'DifficultyRequest', example: { game: 'freecell', deal: 1 } });

/** One rung of a difficulty measure. */
export const RungSchema = z
  .object({
    label: z.string().meta({ description: 'e.g. `2_cells`, `kings_to_empty`.' }),
    rules: RulesSchema,
    verdict: z.enum(['solved', 'unsolvable', 'unknown']),
    basis: z.enum(['search', 'implied', 'budget']).meta({
      description: '`search`: its own search; `implied`: from a neighbouring rung (a solution under stricter rules is one under looser rules; a deal lost under looser rules is lost under stricter ones).',
    }),
    reason: z.enum(['max_states', 'timeout', 'memory', 'cancelled']).optional(),
    stats: SolveStatsSchema.omit({ limits: true }).optional(),
  })
  .meta({ id: 'Rung' });

/** Answer of `POST /v1/difficulty`. */
export const DifficultyResponseSchema = z
  .object({
    game: GameIdSchema,
    measure: MeasureSchema,
    verdict: z.enum(['decided', 'unsolvable', 'unknown']).meta({
      description: '`decided`: `value` is proven (a checked solution at it, a complete search one rung below); `unsolvable`: lost even on the loosest rung (proof); `unknown`: a budget ran out (`low`..`high`).',
    }),
    value: z.number().int().nullable().meta({ description: '`min_cells`: the fewest free cells; `castle_ladder`: the rung, 0 (`no_empty_column`) to 3 (`one_free_cell`). Null unless `decided`.' }),
    label: z.string().nullable(),
    low: z.number().int().nullable().meta({ description: 'With `unknown`: the value is at least this (null: no lower bound proven).' }),
    high: z.number().int().nullable().meta({ description: 'With `unknown`: the value is at most this (null: not winnable on any rung searched).' }),
    rungs: z.array(RungSchema).meta({ description: 'Every rung, strictest first.' }),
    solution: LineSchema.extend({ label: z.string(), rules: RulesSchema }).optional().meta({ description: 'A checked solution at `value` (or at `high`).' }),
    proof: z
      .object({ label: z.string(), rules: RulesSchema, board: z.string(), proof: ProofSchema })
      .optional()
      .meta({ description: 'The complete search one rung below `value` (or at `low`), with its certificate when `proof: true`.' }),
    definition: z.string(),
    stats: z.object({
      searches: z.number().int().meta({
        description: 'Searches run: one a rung searched, plus one when `proof: true` searched the rung below again to build its certificate.',
      }),
      elapsedMs: z.number(),
      limits: LimitsSchema,
    }),
  })
  .meta({ id: 'DifficultyResponse' });

/** Largest `count` of `GET /v1/deals`. */
export const MAX_WINNABLE_COUNT = 1000;

/** Query of `GET /v1/deals`. */
export const DealsQuerySchema = z
  .strictObject({
    game: GameIdSchema,
    winnable: z.enum(['true', 'false']).optional().meta({ description: '`true` (default): only deals whose verdict is `solved`; `false`: the drawn numbers, not solved.' }),
    count: z.string().regex(/^\d{1,4}$/, { error: 'count must be an integer from 1 to 1000' }).optional().meta({ description: `How many deals, 1..${MAX_WINNABLE_COUNT}; default 10.`, example: '10' }),
    seed: z.string().regex(/^\d{1,10}$/, { error: 'seed must be an integer from 0 to 4294967295' }).optional().meta({ description: 'Seed of the draw, 0..2^32-1; default 0. The same seed gives the same deals.', example: '42' }),
    numbering: NumberingSchema.optional(),
    from: z.string().regex(/^\d{1,40}$/, { error: 'from must be a deal number' }).optional().meta({ description: 'Smallest deal number drawn; default 1.' }),
    to: z.string().regex(/^\d{1,40}$/, { error: 'to must be a deal number' }).optional().meta({ description: 'Largest deal number drawn; default: the 1,000,000th number from `from` (within the numbering).' }),
    maxStates: z.string().regex(/^\d{1,12}$/, { error: 'maxStates must be an integer' }).optional().meta({ description: 'State budget of each deal (as `limits.maxStates`).' }),
    timeoutMs: z.string().regex(/^\d{1,12}$/, { error: 'timeoutMs must be an integer' }).optional().meta({ description: 'Deadline of each deal, ms (as `limits.timeoutMs`).' }),
    solutions: z.enum(['true', 'false']).optional().meta({ description: '`true`: each deal carries its solution (JSON moves and notation).' }),
  })
  .meta({ id: 'DealsQuery' });

/** One winnable deal. */
export const WinnableDealSchema = z
  .object({
    deal: DealNumberSchema,
    moveCount: z.number().int().meta({ description: 'Moves of the solution found (not necessarily the shortest).' }),
    decided: z.literal('checked_solution').meta({ description: "How the verdict was reached: the engine's solution, replayed by the independent checker." }),
    stats: SolveStatsSchema.omit({ limits: true, moveCount: true }),
    moves: z.array(MoveSchema).optional(),
    notation: z.array(z.string()).optional(),
  })
  .meta({ id: 'WinnableDeal' });

/** Answer of `GET /v1/deals`. */
export const DealsResponseSchema = z
  .object({
    game: GameIdSchema,
    numbering: NumberingSchema,
    seed: z.number().int(),
    winnable: z.boolean(),
    range: z.object({ from: DealNumberSchema, to: DealNumberSchema }),
    deals: z.array(WinnableDealSchema),
    skipped: z
      .array(z.object({ deal: DealNumberSchema, verdict: z.enum(['unsolvable', 'unknown']), reason: z.enum(['max_states', 'timeout', 'memory', 'cancelled']).optional() }))
      .meta({ description: 'Deals drawn before the last one offered that were not offered: unsolvable, or unknown within the budget.' }),
    tried: z.number().int().meta({ description: 'Deals drawn and decided, in draw order, up to the last one offered.' }),
    exhausted: z.boolean().meta({ description: 'True when the draw limit (10 × count + 100, or the range) ran out before `count` deals were found.' }),
    timedOut: z
      .boolean()
      .optional()
      .meta({ description: 'Set (true) when the request\'s deadline (`timeoutMs` from its arrival) came before `count` deals were found: the deals are those found by then.' }),
    limits: LimitsSchema,
  })
  .meta({ id: 'DealsResponse' });

/** A parsed review request. */
export type ReviewRequest = z.infer<typeof ReviewRequestSchema>;
/** The answer of a review. */
export type ReviewResponse = z.infer<typeof ReviewResponseSchema>;
/** A parsed difficulty request. */
export type DifficultyRequest = z.infer<typeof DifficultyRequestSchema>;
/** The answer of a difficulty request. */
export type DifficultyResponse = z.infer<typeof DifficultyResponseSchema>;
/** The query of `GET /v1/deals` (strings, as in a URL). */
export type DealsQuery = z.infer<typeof DealsQuerySchema>;
/** The answer of `GET /v1/deals`. */
export type DealsResponse = z.infer<typeof DealsResponseSchema>;
/** A difficulty measure. */
export type Measure = z.infer<typeof MeasureSchema>;

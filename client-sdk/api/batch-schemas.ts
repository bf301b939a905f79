/**
 * The wire contract of batch analysis (`/v1/batches`), in zod 4 like
 * `schemas.ts`: the server validates with these schemas, the OpenAPI document
 * is generated from them, and the SDK's client takes its types from them.
 *
 * A batch is one game, one set of rules and per-deal budgets, and a list of
 * positions: a range of deal numbers (`"1..100000"`), a list of deal numbers,
 * or a list of boards (fc-solve text). Every position has an `index` (0-based,
 * its place in the batch); results are keyed by it.
 */
import { z } from 'zod';
import { UNKNOWN_REASONS, VERDICTS } from '../core/solve-types.js';
import { belowFirstDealMessage, DealNumberSchema, GameIdSchema, isBelowFirstDeal, LimitsRequestSchema, LimitsSchema, MAX_DEAL_DIGITS, MoveSchema, NumberingSchema, RulesOverrideSchema, RulesSchema } from './schemas.js';

/**
 * `"1..100000"`, `"1-100000"`: a range of deal numbers, both ends included.
 * The shape only: `BatchDealsSchema` refuses an end of more than
 * `MAX_DEAL_DIGITS` digits as out of range, and so a range with a
 * negative or zero end (`"-5..5"`, `"0..10"`): deal numbers start at 1.
 */
export const DEAL_RANGE_PATTERN = /^\s*(\d+)\s*(?:\.\.|-)\s*(\d+)\s*$/;

/** A range of the shape of `DEAL_RANGE_PATTERN` whose ends may carry a minus sign: `"-5..5"`. */
const SIGNED_RANGE_PATTERN = /^\s*(-?\s*\d+)\s*(?:\.\.|-)\s*(-?\s*\d+)\s*$/;

/** The first end of a range below 1 (`"-5"` of `"-5..5"`, `"0"` of `"0..10"`, spaces dropped); undefined when it has none, or is no range. */
function endBelowOne(range: string): string | undefined {
  const m = SIGNED_RANGE_PATTERN.exec(range);
  return m ? [m[1], m[2]].map((end) => end.replace(/\s+/g, '')).find(isBelowFirstDeal) : undefined;
}

/** The longer end of a range that has the shape of `DEAL_RANGE_PATTERN`, in digits (0 when it has not). */
function longestEnd(range: string): number {
  const m = DEAL_RANGE_PATTERN.exec(range);
  return m ? Math.max(m[1].length, m[2].length) : 0;
}

/** The positions of a batch given by deal numbers. */
export const BatchDealsSchema = z
  .union([
    z
      .string()
      // a range with an end below 1 ("-5..5", "0..10"): out of range (as such a deal number), not malformed
      .refine((range) => endBelowOne(range) === undefined, {
        error: (issue) => belowFirstDealMessage(endBelowOne(issue.input as string)!),
        params: { code: 'deal_out_of_range' },
        abort: true,
      })
      .regex(DEAL_RANGE_PATTERN, { error: 'a deal range is written "first..last", e.g. "1..1000"' })
      // the shape of a range, with an end longer than any numbering's: out of range (as a lone deal number of that length)
      .refine((range) => longestEnd(range) <= MAX_DEAL_DIGITS, {
        error: (issue) => `a deal number of ${longestEnd(issue.input as string)} digits is out of range: no numbering has deals beyond ${MAX_DEAL_DIGITS} digits`,
        params: { code: 'deal_out_of_range' },
      })
      .meta({ description: 'A range of deal numbers, both ends included: `"1..100000"` (or `"1-100000"`).', example: '1..1000' }),
    z
      .strictObject({ from: DealNumberSchema, to: DealNumberSchema })
      .meta({ description: 'A range of deal numbers, both ends included.', example: { from: 1, to: 1000 } }),
    z.array(DealNumberSchema).min(1).meta({ description: 'A list of deal numbers, in the order they get their `index`.', example: [1, 617, 11982] }),
  ], { error: 'expected a range "1..1000" (or "1-1000"), {"from": 1, "to": 1000}, or a list of deal numbers like [1, 617, 11982]' })
  .meta({ id: 'BatchDeals' });

/**
 * What a batch keeps of its deals: `all` stores every deal's result one by
 * one (with its solution); `exceptions` stores only the deals that are not
 * solved (unsolvable, unknown, error) and counts the solved ones in the
 * summary (a census: no cap on the size of a range).
 */
export const BatchResultsModeSchema = z.enum(['all', 'exceptions']).meta({
  id: 'BatchResultsMode',
  description:
    '`all` (default): every deal\'s result is stored and streamed, with its solution. `exceptions`: only the unsolvable, unknown and error deals are stored one by one; ' +
    'the solved deals are counted and summarised (counts, histograms of moves, positions and time) but not stored, so a range of any size costs the same storage.',
});

/** Body of `POST /v1/batches`. Exactly one of `deals` and `boards`. */
export const BatchRequestSchema = z
  .strictObject({
    game: GameIdSchema,
    deals: BatchDealsSchema.optional(),
    boards: z
      .array(z.string())
      .min(1)
      .optional()
      .meta({ description: 'Positions in fc-solve board text, one per deal (see `SolveRequest.board`); the request body limit applies.' }),
    numbering: NumberingSchema.optional().meta({ description: 'Numbering of `deals`; default as for `POST /v1/solve`.' }),
    rules: RulesOverrideSchema.optional(),
    limits: LimitsRequestSchema.optional(),
    name: z.string().max(200).optional().meta({ description: 'A label of your choice, echoed in the status.' }),
    results: BatchResultsModeSchema.optional(),
  })
  .superRefine((req, ctx) => {
    const given = (['deals', 'boards'] as const).filter((k) => req[k] !== undefined);
    if (given.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: given.length === 0 ? 'give the positions: deals or boards' : 'give either deals or boards, not both',
        path: given.length === 0 ? [] : ['boards'],
      });
    }
    if (req.numbering !== undefined && req.deals === undefined) {
      ctx.addIssue({ code: 'custom', message: 'numbering applies only to deal numbers', path: ['numbering'] });
    }
  })
  .meta({ id: 'BatchRequest',
    description:
      'Many positions of one game, solved one by one with the same rules and per-deal budgets (`limits`: the budgets of each deal, not of the whole batch; defaults and caps as for `POST /v1/solve`).',
    example: { game: 'freecell', deals: '1..1000', numbering: 'ms', limits: { maxStates: 1000000, timeoutMs: 10000 } },
  });

/** Verdict of one deal of a batch: the three verdicts of a solve, or `error` when the solve itself failed. */
export const BatchVerdictSchema = z.enum([...VERDICTS, 'error']);

/** Counts of finished deals by verdict. */
export const BatchCountsSchema = z
  .object({
    solved: z.number().int(),
    unsolvable: z.number().int(),
    unknown: z.number().int(),
    error: z.number().int().meta({ description: 'Deals whose solve failed (e.g. `solution_check_failed`); see their result lines.' }),
  })
  .meta({ id: 'BatchCounts' });

/** One bucket of a histogram over a range of values, `from` included, `to` not. */
const RangeBucketSchema = z.object({ from: z.number(), to: z.number(), count: z.number().int() });

/**
 * Distributions of the solved deals, over fixed buckets (the same for every
 * batch, so the histograms of two batches, or of parts of one, add up).
 */
export const BatchDistributionsSchema = z
  .object({
    moves: z
      .array(z.object({ moves: z.number().int(), count: z.number().int() }))
      .meta({ description: 'Solved deals by solution length (moves as `moveCount` counts them), one entry per length that occurs, shortest first.' }),
    positions: z.array(RangeBucketSchema).meta({
      description: 'Solved deals by positions the search expanded (`stats.statesExpanded`), in powers of two: [0, 1), [1, 2), [2, 4), [4, 8), …; buckets with no deal left out.',
    }),
    timeMs: z.array(RangeBucketSchema).meta({
      description: 'Solved deals by engine time in ms, rounded to whole microseconds, in powers of two of microseconds: [0, 0.001), [0.001, 0.002), [0.002, 0.004), …; buckets with no deal left out.',
    }),
  })
  .meta({ id: 'BatchDistributions' });

/** Statistics over the finished deals. */
export const BatchSummarySchema = z
  .object({
    solvable: z
      .object({
        share: z.number().meta({ description: 'solved / (solved + unsolvable): the share of decided deals that are solvable.' }),
        low: z.number().meta({ description: 'Lower end of the 95 % Wilson score interval of `share`.' }),
        high: z.number().meta({ description: 'Upper end of the 95 % Wilson score interval of `share`.' }),
        decided: z.number().int().meta({ description: 'solved + unsolvable: the sample the interval is computed on.' }),
      })
      .nullable()
      .meta({ description: 'Null until a deal is decided. Unknowns are left out of the share and counted apart.' }),
    unknown: z.number().int().meta({ description: 'Deals whose budget ran out: they could go either way.' }),
    unknownShare: z.number().meta({ description: 'unknown / done.' }),
    meanMoves: z.number().nullable().meta({ description: 'Mean solution length of the solved deals (moves as `stats.moveCount` counts them).' }),
    meanMsPerDeal: z.number().nullable().meta({ description: 'Mean engine time per finished deal, milliseconds (search time on one thread).' }),
    meanPositionsPerDeal: z.number().nullable().meta({ description: 'Mean positions expanded per finished deal (`stats.statesExpanded`).' }),
    distributions: BatchDistributionsSchema,
  })
  .meta({ id: 'BatchSummary' });

/** Answer of `POST /v1/batches` (202), `GET /v1/batches/{id}` and `DELETE /v1/batches/{id}`. */
export const BatchStatusSchema = z
  .object({
    id: z.string(),
    name: z.string().optional(),
    status: z.enum(['running', 'done', 'cancelled']).meta({
      description: '`running` until every deal has a result (also across a restart of the server), then `done`; `cancelled` after a DELETE.',
    }),
    game: GameIdSchema,
    numbering: NumberingSchema.nullable(),
    rules: RulesSchema,
    limits: LimitsSchema,
    createdAt: z.string().meta({ description: 'ISO 8601.' }),
    finishedAt: z.string().nullable(),
    total: z.number().int().meta({ description: 'Deals in the batch.' }),
    done: z.number().int().meta({ description: 'Deals with a result.' }),
    counts: BatchCountsSchema,
    dealsPerSecond: z.number().meta({ description: 'Recent throughput (last 30 s while running; over the whole run once finished).' }),
    etaSeconds: z.number().nullable().meta({ description: 'Estimated seconds to the end at the recent throughput; null when unknown or finished.' }),
    summary: BatchSummarySchema,
    results: BatchResultsModeSchema,
    stored: z.number().int().meta({ description: 'Results stored one by one and readable from `urls.results`: every finished deal in `all` mode, the unsolvable, unknown and error ones in `exceptions` mode; 0 once purged.' }),
    purgedAt: z.string().nullable().meta({ description: 'ISO 8601 time the stored results were deleted (`DELETE /v1/batches/{id}/results`, or the retention time); null while they are kept. The status and summary stay.' }),
    urls: z
      .object({
        self: z.string(),
        results: z.string().meta({ description: 'NDJSON stream of the results; `text/event-stream` with `Accept: text/event-stream`.' }),
      })
      .meta({ description: 'Paths relative to the service.' }),
  })
  .meta({ id: 'BatchStatus' });

/** Counters of one deal's solve. */
export const BatchResultStatsSchema = z
  .object({
    statesExpanded: z.number().int(),
    statesStored: z.number().int(),
    elapsedMs: z.number().meta({ description: 'Engine time, milliseconds.' }),
  })
  .meta({ id: 'BatchResultStats' });

/** One line of `GET /v1/batches/{id}/results`. */
export const BatchResultSchema = z
  .object({
    seq: z.number().int().min(1).meta({ description: 'Position in completion order, 1-based: the cursor to resume after (`?after=seq`).' }),
    index: z.number().int().min(0).meta({ description: 'Place of the deal in the batch, 0-based.' }),
    deal: DealNumberSchema.nullable().meta({ description: 'The deal number; null for a board.' }),
    verdict: BatchVerdictSchema,
    reason: z.enum(UNKNOWN_REASONS).optional().meta({ description: 'Which budget ran out; only with `unknown`.' }),
    moveCount: z.number().int().meta({ description: 'Moves of the solution (0 unless solved).' }),
    notation: z.array(z.string()).meta({ description: 'The solution in standard notation.' }),
    moves: z.array(MoveSchema).optional().meta({ description: 'The solution as JSON moves; only with `?moves=true`.' }),
    stats: BatchResultStatsSchema,
    error: z.object({ code: z.string(), message: z.string() }).optional().meta({ description: 'Why the solve failed; only with verdict `error`.' }),
  })
  .meta({ id: 'BatchResult' });

/** `unsolvable,unknown,error`: a comma-separated list of verdicts. */
export const VERDICT_LIST_PATTERN = /^(solved|unsolvable|unknown|error)(,(solved|unsolvable|unknown|error))*$/;

/** Query of `GET /v1/batches/{id}/results`. */
export const BatchResultsQuerySchema = z.object({
  verdict: z
    .string()
    .regex(VERDICT_LIST_PATTERN, { error: 'must be a comma-separated list of verdicts: solved, unsolvable, unknown, error (e.g. "unsolvable,unknown,error")' })
    .optional()
    .meta({
      description:
        'Only the results of these verdicts, comma-separated (e.g. `unsolvable,unknown,error`); default all. `seq` stays the result\'s place among all stored results, so a filtered stream has gaps in `seq` and resumes with `after` as usual. ' +
        '`solved` in a batch that keeps `exceptions` is a 400: solved deals are not stored there.',
    }),
  after: z
    .string()
    .regex(/^\d{1,15}$/, { error: 'must be a whole number of at most 15 digits: the seq of the last result received (0 = from the start)' })
    .optional()
    .meta({ description: 'Resume after this `seq` (the last one received); default 0 = from the start. SSE clients may send `Last-Event-ID` instead.' }),
  moves: z.enum(['true', 'false']).optional().meta({ description: 'Include each solution as JSON `moves` (default false: `notation` only).' }),
  follow: z.enum(['true', 'false']).optional().meta({
    description: 'Keep the stream open until the batch ends, sending results as they are decided (default true); false answers what is there now.',
  }),
});

/** Path parameter of the batch routes. */
export const BatchIdParamSchema = z.object({
  id: z.string().min(1).max(64).meta({ param: { name: 'id', in: 'path' }, example: '7f9c1c1e-0f53-4a9e-9d8e-2f0e5e0b7a51' }),
});

/** A parsed, valid batch request. */
export type BatchRequest = z.infer<typeof BatchRequestSchema>;
/** The deals part of a batch request. */
export type BatchDeals = z.infer<typeof BatchDealsSchema>;
/** Progress and summary of a batch. */
export type BatchStatus = z.infer<typeof BatchStatusSchema>;
/** One deal's result in a batch. */
export type BatchResult = z.infer<typeof BatchResultSchema>;
/** Verdict of one deal of a batch. */
export type BatchVerdict = z.infer<typeof BatchVerdictSchema>;
/** Statistics of a batch. */
export type BatchSummary = z.infer<typeof BatchSummarySchema>;
/** What a batch keeps: `all` or `exceptions`. */
export type BatchResultsMode = z.infer<typeof BatchResultsModeSchema>;
/** The histograms of a batch's solved deals. */
export type BatchDistributions = z.infer<typeof BatchDistributionsSchema>;

/** z of the 95 % two-sided normal quantile. */
const Z95 = 1.959963984540054;

/**
 * The Wilson score interval of a proportion (Wilson 1927; e.g. Agresti &
 * Coull 1998): for `successes` out of `n`, with z = 1.96,
 * centre = (p + z²/2n) / (1 + z²/n), half width = z·√(p(1−p)/n + z²/4n²) / (1 + z²/n).
 * Unlike p ± z·√(p(1−p)/n) it stays inside [0, 1] and is not empty at p = 0 or 1.
 * @returns `{share, low, high}`; null when n is 0.
 */
export function wilsonInterval(successes: number, n: number, z = Z95): { share: number; low: number; high: number } | null {
  if (n <= 0) return null;
  const p = successes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return { share: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/**
 * The wire contract of the solver service, in zod 4: one source for request
 * validation on the server, the typed HTTP client of the SDK, and the OpenAPI
 * document (`GET /openapi.json`), which is generated from these schemas.
 *
 * Plain `zod`, so that the SDK's client does not load hono: names,
 * descriptions and examples are zod's own metadata (`.meta({ id, description,
 * example })`, zod's global registry), which the server's
 * `@hono/zod-openapi` reads when it writes the document (`id` becomes the
 * component name; zod-to-openapi's `getMetadataFromRegistry`).
 *
 * Request objects are strict (an unknown field is an error, so a typo such as
 * `"limit"` cannot be silently ignored); response objects are not, so that a
 * client keeps working when the service adds a field.
 */
import { z } from 'zod';
import { ERROR_STATUS, SolverError, type ErrorCode } from '../core/errors.js';
import { issueMessage, shortened, unknownKeysMessage } from '../core/issue-messages.js';
import { LayoutJsonSchema } from '../core/layout.js';
import { MOVE_SOURCES, MOVE_TARGETS } from '../core/moves.js';
import { AUTO_MOVE_RULES, CERTIFICATE_FORMAT, CERTIFICATE_MEDIA_TYPE } from '../core/proof/format.js';
import { MS_MAX } from '../core/deals/ms.js';
import { PYSOLFC_MAX } from '../core/deals/pysolfc.js';
import { UNKNOWN_REASONS, VERDICTS } from '../core/solve-types.js';
import { BUILD_RULES, EMPTY_CELL_RULES, EMPTY_COLUMN_RULES, ENGINE_MAX_COLUMNS, MAX_FREE_CELLS, NUMBERINGS, PRESETS, SEQUENCE_MOVE_RULES } from '../core/rules.js';

/** Longest game id accepted (every preset's is far shorter). */
const MAX_GAME_ID_LENGTH = 64;

/** Game identifier, one of `GET /v1/games`. */
export const GameIdSchema = z
  .string({
    error: (issue) => {
      if (issue.input === undefined) return 'required: a game id from GET /v1/games, e.g. "freecell"';
      if (typeof issue.input !== 'string') return 'must be a game id (a string) from GET /v1/games, e.g. "freecell"';
      // a string, of a length no game id has
      return issue.input.length === 0
        ? 'must not be empty: a game id from GET /v1/games, e.g. "freecell"'
        : `no game has an id of ${issue.input.length} characters (at most ${MAX_GAME_ID_LENGTH}); GET /v1/games lists the games`;
    },
  })
  .min(1)
  .max(MAX_GAME_ID_LENGTH)
  .meta({
    // Every preset named, from the presets themselves (so the document cannot leave one out).
    description: `Game preset id, as listed by \`GET /v1/games\`: ${PRESETS.map((p) => `\`${p.id}\``).join(', ')}.`,
    example: 'seahaven_towers',
  });

/** A deal numbering scheme. */
export const NumberingSchema = z.enum(NUMBERINGS).meta({
  description:
    '`ms`: Microsoft FreeCell / FreeCell Pro numbers (1..2^33-1). `pysolfc`: PySolFC game numbers (every game).',
});

/** Most digits a deal number string may have (every numbering's last deal is far shorter). */
export const MAX_DEAL_DIGITS = 40;

/** The last deal of any numbering (PySolFC's 10^20 − 1; `ms` ends at 2^33 − 1). */
const LAST_DEAL = MS_MAX > PYSOLFC_MAX ? MS_MAX : PYSOLFC_MAX;

/**
 * The message of a deal number below 1, which no numbering has (every one
 * starts at 1): `deal number -5 is out of range: deal numbers start at 1`.
 * @param shown the number as the request wrote it (cut to 64 characters).
 */
export function belowFirstDealMessage(shown: string): string {
  return `deal number ${shortened(shown)} is out of range: deal numbers start at 1`;
}

/** True for a deal number written in digits that is below 1: a minus sign and digits (`-5`, `-0`), or zeros alone (`0`, `000`). */
export function isBelowFirstDeal(text: string): boolean {
  return /^(-\d+|0+)$/.test(text);
}

/**
 * A deal number: a JSON integer, or a string of decimal digits for numbers
 * beyond 2^53 (which a JSON number cannot carry exactly). A number no
 * numbering has fails with code `deal_out_of_range`, whatever its form: one
 * below 1 (`0`, `-5`, `"-5"`, `-1e40`), a digit string longer than
 * `MAX_DEAL_DIGITS`, a number beyond every numbering's last deal (`1e40`: as
 * a string it would be out of range too).
 */
export const DealNumberSchema = z
  .union(
    [
      z
        .number()
        // first, and the end of the checks: a number no numbering reaches is out of range, whatever its form
        .refine((n) => !(n < 1), {
          error: (issue) => belowFirstDealMessage(String(issue.input)),
          params: { code: 'deal_out_of_range' },
          abort: true,
        })
        .refine((n) => !(n > Number(LAST_DEAL)), {
          error: (issue) => `deal number ${String(issue.input)} is out of range: no numbering has deals beyond ${LAST_DEAL}`,
          params: { code: 'deal_out_of_range' },
          abort: true,
        })
        .int({
          error: (issue) =>
            issue.code === 'too_big' || issue.code === 'too_small'
              ? 'deal numbers beyond 2^53 must be sent as a string of digits'
              : 'deal must be an integer or a string of decimal digits',
        }),
      z
        .string()
        // a negative number or zero in digits: out of range (as the JSON number), not malformed
        .refine((s) => !isBelowFirstDeal(s), {
          error: (issue) => belowFirstDealMessage(issue.input as string),
          params: { code: 'deal_out_of_range' },
          abort: true,
        })
        .regex(/^\d+$/, { error: 'deal must be a string of decimal digits' })
        // Digits, but more than any numbering has: out of range (the code says so), not malformed.
        .refine((s) => s.length <= MAX_DEAL_DIGITS, {
          error: (issue) => `deal number of ${(issue.input as string).length} digits is out of range: no numbering has deals beyond ${MAX_DEAL_DIGITS} digits`,
          params: { code: 'deal_out_of_range' },
        }),
    ],
    { error: 'deal must be an integer or a string of decimal digits' },
  )
  .meta({
    description: 'Deal number: an integer, or a string of digits for numbers above 2^53. Which range is valid depends on the numbering.',
    example: 1,
  });

export const BuildRuleSchema = z.enum(BUILD_RULES).meta({
  description: 'How tableau cards build down: alternate colours, in suit, any suit (rank only), or in suit up or down.',
});
export const EmptyColumnRuleSchema = z.enum(EMPTY_COLUMN_RULES).meta({
  description: 'Which cards an empty column takes: any card, kings only (with wrapping ranks: the rank below the foundation base), or none.',
});
export const EmptyCellRuleSchema = z.enum(EMPTY_CELL_RULES).meta({
  description: 'What an empty free cell takes: any card, or none (the cells are a reserve the deal fills, played from and never filled: King Albert). Absent: any.',
});
export const SequenceMoveRuleSchema = z.enum(SEQUENCE_MOVE_RULES).meta({
  description:
    'How many cards move at once between columns: `none` single cards; `supermove` (f+1)·2^e; `cells_plus_one` f+1; `unlimited` any valid sequence (f = empty free cells, e = empty columns other than the destination).',
});

const rulesShape = {
  columns: z.number().int().min(1).max(ENGINE_MAX_COLUMNS).meta({ description: `Tableau columns, 1..${ENGINE_MAX_COLUMNS}.` }),
  freeCells: z.number().int().min(0).max(MAX_FREE_CELLS).meta({ description: `Free cells (or reserve cells, see emptyCell), 0..${MAX_FREE_CELLS}.` }),
  emptyCell: EmptyCellRuleSchema.optional(),
  build: BuildRuleSchema,
  emptyColumn: EmptyColumnRuleSchema,
  sequenceMove: SequenceMoveRuleSchema,
  foundationBase: z.number().int().min(1).max(13).meta({ description: 'Rank the foundations start from, 1..13 (1 = Ace).' }),
  wrap: z.boolean().meta({ description: 'Ranks wrap K→A on the foundations and A→K on the tableau (Penguin).' }),
};

/** Every rule parameter of a game (the `Rules` type of `rules.ts`). */
export const RulesSchema = z.object(rulesShape).meta({ id: 'Rules', description: 'Rule parameters of a game (rules as data).' });

/**
 * A partial rules override: any subset of the rule parameters, each within its
 * range, applied on top of the game preset's rules.
 */
export const RulesOverrideSchema = z
  .strictObject(rulesShape)
  .partial()
  .meta({ id: 'RulesOverride',
    description: "Overrides of the preset's rules, e.g. `{\"emptyColumn\": \"any\"}`. The position must fit the resulting rules.",
    example: { emptyColumn: 'any' },
  });

/**
 * Budgets asked for by a request. Only the type is checked here: the range
 * (1 up to the server's cap) is checked by `resolveLimits`, which knows the
 * caps and names them in its `bad_limits` error.
 */
export const LimitsRequestSchema = z
  .strictObject({
    maxStates: z.number().optional().meta({
      type: 'integer',
      minimum: 1,
      description: 'Most positions the search may store: an integer from 1 to the server cap (defaults: 5,000,000, cap 50,000,000).',
    }),
    timeoutMs: z.number().optional().meta({
      type: 'integer',
      minimum: 1,
      description: 'Deadline of the search in milliseconds: an integer from 1 to the server cap (defaults: 30,000, cap 120,000).',
    }),
    optimizeMs: z.number().optional().meta({
      type: 'integer',
      minimum: 1,
      description:
        'With `optimize: "length"`: milliseconds spent shortening the solution after it was found, an integer from 1 to 10,000 (default 1,000). Comes on top of `timeoutMs`.',
    }),
  })
  .meta({ id: 'LimitsRequest' });

/** Body of `POST /v1/solve`. Exactly one of `deal`, `board`, `layout`. */
export const SolveRequestSchema = z
  .strictObject({
    game: GameIdSchema,
    deal: DealNumberSchema.optional(),
    numbering: NumberingSchema.optional().meta({
      description: "Numbering of `deal`. Default: `ms` when the game supports it, otherwise `pysolfc`. Only with `deal`.",
    }),
    board: z.string().optional().meta({
      description:
        'The start position in fc-solve board text: optional `Foundations:` and `Freecells:` lines, then one line per column, deepest card first.',
      example:
        'Freecells: - 2H 6H -\nJD 9S JS 4D 6D\n2D 5S AS 7S 8S\n9H AD AH 3S 8D\nJC QC 3C TD QS\n5D KH 4C 4S 6C\n7H 3H 5C TH 3D\n7C 2S TS 8H 8C\n5H KS QH 2C TC\nKD 9D 4H JH 6S\nKC QD AC 7D 9C\n',
    }),
    layout: LayoutJsonSchema.meta({ id: 'Layout' }).optional(),
    rules: RulesOverrideSchema.optional(),
    limits: LimitsRequestSchema.optional(),
    optimize: z.enum(['none', 'length']).optional().meta({
      description:
        '`length`: after a solution is found, spend `limits.optimizeMs` making it shorter (beam search and a checked peephole pass, docs/short-solutions.md); ' +
        'the answer\'s `optimize` says how long the first solution was. The verdict never changes. Default `none`: the first solution, fastest.',
    }),
    proof: z.boolean().optional().meta({
      description:
        'With `true`, an `unsolvable` answer carries its certificate inline (`proof.certificate`, base64 gzip) when it is within the size cap the answer states; ' +
        '`POST /v1/proofs` returns it as a file. Checked with `npm run check-proof` (docs/proofs.md).',
    }),
  })
  .superRefine((req, ctx) => {
    const given = (['deal', 'board', 'layout'] as const).filter((k) => req[k] !== undefined);
    if (given.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message:
          given.length === 0
            ? 'give the position: exactly one of deal, board, layout'
            : `give exactly one of deal, board, layout (got ${given.join(', ')})`,
        path: given.length === 0 ? [] : [given[1]],
      });
    }
    if (req.numbering !== undefined && req.deal === undefined) {
      ctx.addIssue({ code: 'custom', message: 'numbering applies only to a deal number', path: ['numbering'] });
    }
  })
  .meta({ id: 'SolveRequest',
    description: 'A position to solve: a game, and exactly one of a deal number, a board text or a JSON layout.',
    example: { game: 'seahaven_towers', deal: 1, limits: { maxStates: 1000000 } },
  });

/** One move of a solution (`Move` of `moves.ts`), indices 0-based. */
export const MoveSchema = z
  .object({
    from: z.enum(MOVE_SOURCES),
    fromIndex: z.number().int().min(0).meta({ description: 'Source column or free cell, 0-based.' }),
    to: z.enum(MOVE_TARGETS),
    toIndex: z.number().int().min(0).meta({ description: 'Target column or free cell, 0-based; for a foundation the suit (0 C, 1 D, 2 H, 3 S).' }),
    count: z.number().int().min(1).meta({ description: 'Cards moved (more than 1 only for a sequence move).' }),
    card: z.string().meta({ description: 'The moved card; for a sequence move the deepest card of the run.', example: '9H' }),
    auto: z.boolean().meta({ description: 'Played by the solver as a safe auto-move to the foundation.' }),
  })
  .meta({ id: 'Move' });

/** The budgets a solve actually ran with (after defaults and caps). */
export const LimitsSchema = z
  .object({
    maxStates: z.number().int(),
    timeoutMs: z.number().int(),
  })
  .meta({ id: 'Limits' });

/** Counters of one solve. */
export const SolveStatsSchema = z
  .object({
    statesExpanded: z.number().int().meta({ description: 'Positions whose moves were generated.' }),
    statesStored: z.number().int().meta({ description: 'Distinct canonical positions stored.' }),
    elapsedMs: z.number().meta({ description: 'Wall-clock time of the search, milliseconds.' }),
    memoryBytes: z.number().int().meta({ description: 'Bytes of Wasm linear memory in use at the end of the search.' }),
    moveCount: z.number().int().meta({ description: 'Moves in the solution: foundation and auto-moves included, a sequence move counts one.' }),
    limits: LimitsSchema,
  })
  .meta({ id: 'SolveStats' });

/** What the shortening did (`ShortenReport` of client-sdk/core/solve-types.ts; client-sdk/core/shorten.ts does it). */
export const OptimizeInfoSchema = z
  .object({
    firstLength: z.number().int().meta({ description: 'Moves of the first solution found, not counting safe auto-moves (a sequence move counts one).' }),
    length: z.number().int().meta({ description: 'Moves of the returned solution, counted the same way (never more than `firstLength`).' }),
    budgetExhausted: z.boolean().meta({ description: 'True when `limits.optimizeMs` ran out before the last beam finished.' }),
    elapsedMs: z.number().meta({ description: 'Wall-clock milliseconds spent shortening.' }),
    beamWidth: z.number().int().meta({ description: 'Widest beam that ran to its end (0 when none did).' }),
    budgetMs: z.number().int().meta({ description: 'The shortening budget used, milliseconds.' }),
  })
  .meta({ id: 'OptimizeInfo', description: 'What the shortening did; only with `optimize: "length"` and a `solved` verdict.' });

/** One reduction of the search (client-sdk/core/proof/format.ts `reductionsFor`). */
export const ReductionSchema = z
  .object({
    name: z.enum(['safe_auto_moves', 'column_order', 'free_cell_order', 'suit_pools']),
    meaning: z.string().meta({ description: 'What the reduction does and why it loses no solution, in one line.' }),
    rule: z.enum(AUTO_MOVE_RULES).optional().meta({ description: 'For `safe_auto_moves`: the rule applied (docs/proofs.md).' }),
  })
  .meta({ id: 'Reduction' });

/** The certificate part of a proof: inline, or why not. */
export const CertificateInfoSchema = z
  .object({
    included: z.boolean().meta({ description: 'True when `data` holds the certificate.' }),
    format: z.literal(CERTIFICATE_FORMAT).optional(),
    version: z.number().int().optional(),
    mediaType: z.literal(CERTIFICATE_MEDIA_TYPE).optional(),
    encoding: z.literal('base64').optional(),
    data: z.string().optional().meta({ description: 'The certificate file (gzip), base64.' }),
    bytes: z.number().int().optional().meta({ description: 'Size of the certificate file in bytes (also when it was over the cap).' }),
    reason: z.enum(['over_size_cap', 'over_position_cap']).optional().meta({ description: 'Why the certificate is not included.' }),
    maxBytes: z.number().int().optional().meta({ description: 'The size cap of inline certificates, bytes.' }),
    download: z.string().optional().meta({ description: 'Where the file can be fetched instead (same request body).' }),
    positions: z.number().int().optional(),
    maxPositions: z.number().int().optional().meta({ description: 'The most positions the service puts in a certificate.' }),
    estimatedRawBytes: z.number().int().optional().meta({ description: 'Bytes of keys before compression (positions × 48).' }),
  })
  .meta({ id: 'CertificateInfo', description: 'The certificate of a proof, only when the request asked for `proof: true`: inline, or why not.' });

/** The proof summary of an `unsolvable` answer. */
export const ProofSchema = z
  .object({
    positions: z.number().int().meta({ description: 'Distinct canonical positions reachable from the start; the search examined every one (of the pooled game when `pools` is set).' }),
    pools: z.array(z.string()).optional().meta({ description: 'Set when the proof is of the pooled game (docs/proofs.md, "Pooled certificates"): the suits merged into pools, e.g. ["C", "DH", "S"].' }),
    reductions: z.array(ReductionSchema).meta({ description: 'Every reduction the search used; nothing else was pruned.' }),
    fingerprint: z.string().meta({ description: 'Fingerprint of the explored set, 16 hex digits: the sum mod 2^64 of FNV-1a-64 over each 48-byte key.' }),
    fingerprintAlgorithm: z.string(),
    certificate: CertificateInfoSchema.optional(),
  })
  .meta({ id: 'Proof', description: 'What the complete search proved, and how to check it (docs/proofs.md).' });

/** Answer of `POST /v1/solve`. */
export const SolveResponseSchema = z
  .object({
    verdict: z.enum(VERDICTS).meta({
      description: '`solved`: a solution checked by an independent replay. `unsolvable`: the complete search found none. `unknown`: a budget ran out (see `reason`).',
    }),
    reason: z.enum(UNKNOWN_REASONS).optional().meta({ description: 'Which budget ended the search; only with `unknown`.' }),
    game: GameIdSchema,
    rules: RulesSchema,
    board: z.string().meta({ description: 'The start position in fc-solve board text.' }),
    moves: z.array(MoveSchema).meta({ description: 'The solution (empty unless solved).' }),
    notation: z.array(z.string()).meta({ description: 'The solution in standard notation (`3a`, `a4`, `3h`, `38`), one entry per move.' }),
    fcsMoves: z.array(z.string()).meta({ description: "The solution as fc-solve's text lines (`Move a card from stack 3 to freecell 0`)." }),
    stats: SolveStatsSchema,
    optimize: OptimizeInfoSchema.optional(),
    proof: ProofSchema.optional(),
  })
  .meta({
    id: 'SolveResponse',
    description:
      'The verdict and its evidence. `optimize` comes only with `optimize: "length"` and a `solved` verdict; `proof` only with `unsolvable` (positions examined, reductions, fingerprint, and the certificate when asked for).',
  });

const errorCodes = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** Body of every error answer: a stable code, a message, and where the fault is. */
export const ErrorResponseSchema = z
  .object({
    error: z.object({
      code: z.enum(errorCodes).meta({ description: 'Stable machine-readable error code.' }),
      message: z.string().meta({ description: 'Human-readable explanation.' }),
      line: z.number().int().optional().meta({ description: '1-based line of the board text at fault, or of a request body that is not valid JSON.' }),
      column: z.number().int().optional().meta({ description: '1-based character in that line.' }),
      token: z.string().optional().meta({ description: 'The offending token.' }),
      path: z.string().optional().meta({ description: 'Dotted path of the offending request field, e.g. `layout.columns.3`.' }),
      offset: z.number().int().optional().meta({ description: '0-based byte offset of the first byte that is not UTF-8 (`invalid_utf8`), in the request body or file.' }),
    }),
  })
  .meta({ id: 'ErrorResponse',
    example: { error: { code: 'malformed_board', message: 'not a card: "ZZ"', line: 3, column: 7, token: 'ZZ' } },
  });

/** One game preset as `GET /v1/games` lists it. */
export const GameSchema = z
  .object({
    id: GameIdSchema,
    name: z.string(),
    description: z.string(),
    rules: RulesSchema,
    numberings: z.array(NumberingSchema).meta({ description: 'Deal numberings the game accepts; empty when a board or layout is required.' }),
    defaultNumbering: NumberingSchema.nullable().meta({ description: 'Numbering used when a request gives a deal without one; null when the game has no deal numbers.' }),
    foundationBaseFromDeal: z.boolean().optional().meta({
      description:
        'true: each numbered deal fixes its own foundation base, the rank of its first card dealt (Penguin\'s beak), and answers with that `rules.foundationBase` ' +
        '(with `wrap`, `emptyColumn: "kings"` then takes the rank below it); the `rules.foundationBase` listed here applies only to a board or layout sent without an override. ' +
        'false: the listed base is that of every position. Always sent; optional for servers that predate it.',
    }),
  })
  .meta({ id: 'Game' });

/** Answer of `GET /v1/games`. */
export const GamesResponseSchema = z.object({ games: z.array(GameSchema) }).meta({ id: 'GamesResponse' });

/** Answer of `GET /healthz`. */
export const HealthResponseSchema = z
  .object({ status: z.literal('ok') })
  .catchall(z.unknown())
  .meta({ id: 'HealthResponse' });

/** Most problems one validation message lists; the rest are counted. */
const MAX_LISTED_PROBLEMS = 10;

/** A zod issue flattened: its full path and message, and an error code a refinement asked for. */
interface FlatIssue {
  path: PropertyKey[];
  message: string;
  code?: ErrorCode;
}

/**
 * The issues of a failure, with every union resolved to the branch the input
 * was meant for: the one branch whose type the input has (e.g. the list in
 * `deals: [1, "2", 3.5]`), whose own issues then name the entry at fault
 * (`deals.2`). A union with no such single branch stays one issue with its
 * own message.
 */
function flatten(issues: readonly z.core.$ZodIssue[], prefix: PropertyKey[] = []): FlatIssue[] {
  const out: FlatIssue[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union') {
      // a branch whose type the input does not have says so at its root (zod may add
      // more issues there, e.g. a string's length check on a 100,000-entry list)
      const typed = issue.errors.filter((branch) => !branch.some((i) => i.code === 'invalid_type' && i.path.length === 0));
      if (typed.length === 1) {
        out.push(...flatten(typed[0], path));
        continue;
      }
    }
    if (issue.code === 'unrecognized_keys' && issue.keys.length > 0) {
      path.push(shortened(issue.keys[0]));
      out.push({ path, message: unknownKeysMessage(issue.keys) });
      continue;
    }
    const asked = issue.code === 'custom' ? (issue.params as { code?: ErrorCode } | undefined)?.code : undefined;
    out.push({ path, message: issue.message, ...(asked ? { code: asked } : {}) });
  }
  return out;
}

/**
 * One problem of a validation message: `path: message`, except when the
 * message already starts with the field's name (`count must be an integer
 * ...`), which then takes the full dotted path in place of the name instead
 * of a second copy (`count must ...`, not `count: count must ...`;
 * `limits.maxStates must ...` for `maxStates must ...` under `limits`).
 * @param path the issue's path (keys and indices as strings); empty: the request itself.
 * @param message the schema's message for the issue.
 */
function located(path: readonly string[], message: string): string {
  if (path.length === 0) return message;
  const at = path.join('.');
  const name = path[path.length - 1];
  return message.startsWith(`${name} `) ? `${at}${message.slice(name.length)}` : `${at}: ${message}`;
}

/**
 * Turns a zod failure into a `SolverError` whose `path` names the field at
 * fault (e.g. `layout.columns.3`; the first one when there are several). The
 * message lists every problem (`path: message`, or the message alone when it
 * starts with the field's name: `located`; `; `-separated, at most 10,
 * then how many more). The code is the one a refinement asked for (e.g.
 * `deal_out_of_range`), else follows the part of the request: `limits.*` →
 * `bad_limits`, `rules.*` → `bad_rules`, `layout.*` → `invalid_layout`,
 * anything else → `invalid_request`.
 */
export function validationError(error: z.ZodError): SolverError {
  const issues = flatten(error.issues);
  const first = issues[0] ?? { path: [], message: 'invalid request' };
  const dotted = first.path.map(String).join('.');
  const root = first.path.length > 0 ? String(first.path[0]) : '';
  const code: ErrorCode =
    first.code ??
    (root === 'limits' ? 'bad_limits' : root === 'rules' ? 'bad_rules' : root === 'layout' ? 'invalid_layout' : 'invalid_request');
  const listed = issues.slice(0, MAX_LISTED_PROBLEMS).map((i) => located(i.path.map(String), i.message));
  const rest = issues.length - listed.length;
  const message = `${listed.join('; ') || 'invalid request'}${rest > 0 ? ` (and ${rest} more problem${rest > 1 ? 's' : ''})` : ''}`;
  return new SolverError(code, message, dotted ? { path: dotted } : undefined);
}

/**
 * Parses a request with its schema, the way the service does: zod's own
 * messages in the house wording (`issueMessage`, given to this parse only,
 * so that zod's global configuration, and with it the messages of an app
 * that embeds the SDK, stay untouched).
 * @throws SolverError `validationError` of the failure.
 */
export function parseRequest<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value, { error: issueMessage });
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data;
}

/**
 * As `parseRequest`, for a schema that may refine asynchronously (the
 * service's route validation parses that way).
 * @throws SolverError `validationError` of the failure.
 */
export async function parseRequestAsync<S extends z.ZodType>(schema: S, value: unknown): Promise<z.infer<S>> {
  const parsed = await schema.safeParseAsync(value, { error: issueMessage });
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data;
}

/** A parsed, valid solve request. */
export type SolveRequest = z.infer<typeof SolveRequestSchema>;
/** Rules override of a request. */
export type RulesOverride = z.infer<typeof RulesOverrideSchema>;
/** Limits part of a request. */
export type LimitsRequest = z.infer<typeof LimitsRequestSchema>;
/** The answer of a solve. */
export type SolveResponse = z.infer<typeof SolveResponseSchema>;
/** The body of an error answer. */
export type ErrorResponse = z.infer<typeof ErrorResponseSchema>;
/** One game of `GET /v1/games`. */
export type GameInfo = z.infer<typeof GameSchema>;
/** The answer of `GET /v1/games`. */
export type GamesResponse = z.infer<typeof GamesResponseSchema>;

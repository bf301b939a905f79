/**
 * From a solve request to what the engine needs, and from the engine's answer
 * to the response: shared by the service (`server/app.ts`), the CLI and the
 * SDK's local solver, so that all three read a request the same way.
 *
 * - `resolveDeal`: game preset + rule overrides + position (deal number, board
 *   text or JSON layout) → `Deal`.
 * - `resolveLimits`: requested budgets → budgets within a policy's caps (the
 *   service's, server/limits.ts, or the local solver's).
 * - `buildSolveResponse`: engine outcome → the `SolveResponse` wire shape.
 */
import { formatBoard, parseBoard } from '../core/board.js';
import { generateDeal } from '../core/deals/index.js';
import { SolverError } from '../core/errors.js';
import { layoutFromJson, validateLayout } from '../core/layout.js';
import { toFcsMoves, toStandardNotation } from '../core/notation.js';
import {
  BUILD_RULES,
  EMPTY_CELL_RULES,
  EMPTY_COLUMN_RULES,
  findPreset,
  PRESETS,
  SEQUENCE_MOVE_RULES,
  ENGINE_MAX_COLUMNS,
  MAX_FREE_CELLS,
  type Deal,
  type GamePreset,
  type Layout,
  type Numbering,
  type Rules,
} from '../core/rules.js';
import { proofToWire } from '../core/proof/format.js';
import type { GamesResponse, LimitsRequest, RulesOverride, SolveRequest, SolveResponse } from './schemas.js';
import type { SolveLimits, SolveOutcome } from '../core/solve-types.js';
import type { ShortenOptions } from '../core/shorten.js';

/**
 * Defaults and caps of the solve budgets, as a front end applies them: the
 * service's (server/limits.ts, from its configuration) or the SDK's local
 * solver's (client-sdk/sdk/local.ts). States are a count, times milliseconds.
 */
export interface BudgetPolicy {
  /** `maxStates` when the request gives none. */
  defaultMaxStates: number;
  /** Largest `maxStates` a request may ask for. */
  maxStatesCap: number;
  /** `timeoutMs` when the request gives none. */
  defaultTimeoutMs: number;
  /** Largest `timeoutMs` a request may ask for. */
  timeoutMsCap: number;
}

/**
 * The numbering a deal number is read in when the request names none: `ms`
 * when the game supports Microsoft numbers, else `pysolfc`; `null` when the
 * game has no deal numbers at all (a board or layout is required).
 */
export function defaultNumbering(preset: GamePreset): Numbering | null {
  if (preset.numberings.includes('ms')) return 'ms';
  if (preset.numberings.includes('pysolfc')) return 'pysolfc';
  return null;
}

/**
 * Looks up a game preset.
 * @throws SolverError `unknown_game` (404) when there is no preset of that id.
 */
export function requirePreset(game: string): GamePreset {
  const preset = findPreset(game);
  if (!preset) throw new SolverError('unknown_game', `unknown game "${game}"; GET /v1/games lists the games`, { path: 'game' });
  return preset;
}

/**
 * The preset's rules with `override` applied, checked: columns
 * 1..ENGINE_MAX_COLUMNS (18, what the engine plays), free cells 0..8,
 * foundation base 1..13, known enum values (`emptyCell` when given).
 * @throws SolverError `bad_rules` naming the field and its allowed range.
 */
export function applyRules(base: Rules, override: RulesOverride | undefined): Rules {
  const rules: Rules = { ...base, ...stripUndefined(override ?? {}) };
  checkInt(rules.columns, 1, ENGINE_MAX_COLUMNS, 'rules.columns');
  checkInt(rules.freeCells, 0, MAX_FREE_CELLS, 'rules.freeCells');
  checkInt(rules.foundationBase, 1, 13, 'rules.foundationBase');
  checkEnum(rules.build, BUILD_RULES, 'rules.build');
  checkEnum(rules.emptyColumn, EMPTY_COLUMN_RULES, 'rules.emptyColumn');
  if (rules.emptyCell !== undefined) checkEnum(rules.emptyCell, EMPTY_CELL_RULES, 'rules.emptyCell');
  checkEnum(rules.sequenceMove, SEQUENCE_MOVE_RULES, 'rules.sequenceMove');
  if (typeof rules.wrap !== 'boolean') throw new SolverError('bad_rules', 'rules.wrap must be true or false', { path: 'rules.wrap' });
  checkBaseWraps(rules);
  return rules;
}

/**
 * A foundation base other than the Ace only exists with wrapping ranks
 * (docs/rules.md: "foundation base: Ace, or a rank chosen by the deal (Penguin),
 * wrapping K→A"); the engine counts ranks from the base, so it would solve
 * such a deal as wrapping while the checker, told `wrap: false`, refuses the
 * solution. Found by tests/integration/fuzz-api.test.ts (`{"game": "penguin", "deal": 1,
 * "rules": {"wrap": false}}` was a 500).
 * @throws SolverError `bad_rules` at `rules.wrap`.
 */
function checkBaseWraps(rules: Rules): void {
  if (rules.foundationBase !== 1 && !rules.wrap) {
    throw new SolverError('bad_rules', `a foundation base other than the Ace (here ${rules.foundationBase}) needs wrap: true`, { path: 'rules.wrap' });
  }
}

/**
 * Turns a (schema-valid) solve request into the deal to solve.
 *
 * - rules: the preset's rules plus `req.rules` (see `applyRules`); a deal
 *   generator that fixes the foundation base (Penguin's beak) overrides it;
 * - position: from `deal` (in `req.numbering`, default `defaultNumbering`), or
 *   `board` (fc-solve text), or `layout` (JSON); the position is validated
 *   against the rules (every card once, column and cell counts).
 *
 * A dealt position is fitted to overridden rules where nothing is lost: free
 * cells are added empty, or trailing empty cells dropped (so `{"game":
 * "freecell", "deal": 1, "rules": {"freeCells": 2}}` works); anything else
 * that does not fit is `bad_rules`.
 *
 * @throws SolverError `unknown_game`, `bad_rules`, `layout_required`,
 *   `numbering_not_supported`, `deal_out_of_range`, `malformed_board`,
 *   `invalid_layout`, `missing_card`, `duplicate_card`, `wrong_column_count`,
 *   `wrong_cell_count`, `invalid_request`.
 */
export function resolveDeal(req: SolveRequest): Deal {
  const preset = requirePreset(req.game);
  const rules = applyRules(preset.rules, req.rules);
  const given = [req.deal, req.board, req.layout].filter((x) => x !== undefined).length;
  if (given !== 1) throw new SolverError('invalid_request', 'give exactly one of deal, board, layout');

  if (req.deal !== undefined) {
    const numbering = req.numbering ?? defaultNumbering(preset);
    if (numbering === null) {
      throw new SolverError('layout_required', `${preset.name} has no deal numbers: give a board or a layout`, { path: 'deal' });
    }
    if (!preset.numberings.includes(numbering)) {
      throw new SolverError(
        'numbering_not_supported',
        `${preset.name} deals are not numbered "${numbering}"; supported: ${preset.numberings.join(', ')}`,
        { path: 'numbering' },
      );
    }
    const dealt = generateDeal(preset.id, numbering, req.deal);
    if (dealt.foundationBase !== undefined) {
      // the deal fixes the base (Penguin's beak): an override must agree or be refused, never be dropped
      const asked = req.rules?.foundationBase;
      if (asked !== undefined && asked !== dealt.foundationBase) {
        throw new SolverError(
          'bad_rules',
          `this deal's beak card sets the foundation base to ${dealt.foundationBase} (${preset.name}); rules.foundationBase ${asked} contradicts it`,
          { path: 'rules.foundationBase' },
        );
      }
      rules.foundationBase = dealt.foundationBase;
    }
    checkBaseWraps(rules);
    const layout = fitLayout(dealt.layout, rules);
    try {
      validateLayout(layout, rules);
    } catch (err) {
      // The deal is valid under its game's rules, so an override broke it (e.g. a foundation
      // base of 7 on a Castle deal, whose aces are dealt to the foundations): say so at the
      // rules, not at a layout the client never sent.
      if (!(err instanceof SolverError)) throw err;
      const culprit = req.rules?.foundationBase !== undefined ? 'rules.foundationBase' : 'rules';
      throw new SolverError('bad_rules', `this deal cannot be played under these rules: ${err.message}`, { path: culprit });
    }
    return { rules, layout };
  }

  // Both parsers validate the position (client-sdk/core/layout.ts validateLayout)
  // and locate faults by line/column/token or by JSON path.
  if (req.board !== undefined) return { rules, layout: parseBoard(req.board, rules) };
  return { rules, layout: layoutFromJson(req.layout!, rules) };
}

/**
 * Fits a dealt layout to (possibly overridden) rules without losing a card.
 * @throws SolverError `bad_rules` when the deal cannot be played under them.
 */
function fitLayout(layout: Layout, rules: Rules): Layout {
  if (layout.columns.length !== rules.columns) {
    throw new SolverError(
      'bad_rules',
      `this deal has ${layout.columns.length} columns but the rules ask for ${rules.columns}`,
      { path: 'rules.columns' },
    );
  }
  let freeCells = layout.freeCells;
  if (freeCells.length < rules.freeCells) {
    freeCells = [...freeCells, ...new Array<null>(rules.freeCells - freeCells.length).fill(null)];
  } else if (freeCells.length > rules.freeCells) {
    if (freeCells.slice(rules.freeCells).some((c) => c !== null)) {
      throw new SolverError(
        'bad_rules',
        `this deal fills free cells beyond the ${rules.freeCells} the rules allow`,
        { path: 'rules.freeCells' },
      );
    }
    freeCells = freeCells.slice(0, rules.freeCells);
  }
  return { ...layout, freeCells };
}

/**
 * Applies the defaults (the game's own, when its preset has `defaultLimits`,
 * else the policy's) and the policy's caps to the budgets a request asks for.
 * @param limits the request's `limits`, if any
 * @param policy defaults and caps (the service's or the local solver's)
 * @param game the preset id, for its own defaults
 * @returns the budgets to solve with: states (count) and deadline (ms)
 * @throws SolverError `bad_limits`, naming the allowed range, when a value is
 *   not an integer from 1 to its cap.
 */
export function resolveLimits(
  limits: LimitsRequest | undefined,
  policy: BudgetPolicy,
  game?: string,
): SolveLimits {
  // a game's own defaults (rules.ts `defaultLimits`) replace the service's, within the caps
  const gameDefaults = game === undefined ? undefined : findPreset(game)?.defaultLimits;
  const maxStates = limits?.maxStates ?? Math.min(gameDefaults?.maxStates ?? policy.defaultMaxStates, policy.maxStatesCap);
  const timeoutMs = limits?.timeoutMs ?? Math.min(gameDefaults?.timeoutMs ?? policy.defaultTimeoutMs, policy.timeoutMsCap);
  if (!Number.isInteger(maxStates) || maxStates < 1 || maxStates > policy.maxStatesCap) {
    throw new SolverError('bad_limits', `limits.maxStates must be an integer from 1 to ${policy.maxStatesCap}`, { path: 'limits.maxStates' });
  }
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > policy.timeoutMsCap) {
    throw new SolverError('bad_limits', `limits.timeoutMs must be an integer from 1 to ${policy.timeoutMsCap}`, { path: 'limits.timeoutMs' });
  }
  return { maxStates, timeoutMs };
}

/** `limits.optimizeMs` when a request asks for `optimize: "length"` without one, ms. */
export const DEFAULT_OPTIMIZE_MS = 1000;
/** Largest `limits.optimizeMs`, ms. */
export const OPTIMIZE_MS_CAP = 10_000;
export { PLAYER_OPTIMIZE_MS } from '../core/shorten.js';

/**
 * The shortening a request asks for: `undefined` for `optimize` absent or
 * `"none"`, else the budget `limits.optimizeMs` (default DEFAULT_OPTIMIZE_MS).
 * @throws SolverError `bad_limits` when `limits.optimizeMs` is not an integer
 *   from 1 to OPTIMIZE_MS_CAP, or is given without `optimize: "length"`.
 */
export function resolveOptimize(req: Pick<SolveRequest, 'optimize' | 'limits'>): ShortenOptions | undefined {
  const ms = req.limits?.optimizeMs;
  if (req.optimize !== 'length') {
    if (ms !== undefined) throw new SolverError('bad_limits', 'limits.optimizeMs applies only with optimize: "length"', { path: 'limits.optimizeMs' });
    return undefined;
  }
  const budgetMs = ms ?? DEFAULT_OPTIMIZE_MS;
  if (!Number.isInteger(budgetMs) || budgetMs < 1 || budgetMs > OPTIMIZE_MS_CAP) {
    throw new SolverError('bad_limits', `limits.optimizeMs must be an integer from 1 to ${OPTIMIZE_MS_CAP}`, { path: 'limits.optimizeMs' });
  }
  return { budgetMs };
}

/**
 * The wire answer of one solve: verdict, the start position as fc-solve text,
 * the moves in JSON, standard notation and fc-solve lines, and the counters
 * with the budgets used. `stats.moveCount` counts every move (foundation and
 * auto-moves included; a sequence move counts one). An `unsolvable` outcome's
 * `proof` (client-sdk/core/proof/format.ts) becomes the answer's `proof`, its
 * certificate in base64.
 */
export function buildSolveResponse(game: string, deal: Deal, limits: SolveLimits, outcome: SolveOutcome): SolveResponse {
  return {
    verdict: outcome.verdict,
    ...(outcome.reason !== undefined ? { reason: outcome.reason } : {}),
    game,
    rules: deal.rules,
    board: formatBoard(deal.layout, deal.rules),
    moves: outcome.moves,
    notation: toStandardNotation(outcome.moves, deal.rules),
    fcsMoves: toFcsMoves(outcome.moves),
    stats: { ...outcome.stats, moveCount: outcome.moves.length, limits },
    ...(outcome.optimize !== undefined ? { optimize: outcome.optimize } : {}),
    ...(outcome.proof !== undefined ? { proof: proofToWire(outcome.proof) } : {}),
  };
}

function checkInt(value: unknown, min: number, max: number, path: string): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new SolverError('bad_rules', `${path} must be an integer from ${min} to ${max}`, { path });
  }
}

function checkEnum(value: unknown, allowed: readonly string[], path: string): void {
  if (typeof value !== 'string' || !allowed.includes(value)) {
    throw new SolverError('bad_rules', `${path} must be one of ${allowed.join(', ')}`, { path });
  }
}

function stripUndefined<T extends object>(obj: T): Partial<T> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The answer of `GET /v1/games`, built from the presets (the service and the SDK's local solver). */
export function gamesResponse(): GamesResponse {
  return {
    games: PRESETS.map((p) => ({
      id: p.id,
      name: p.name,
      description: p.description,
      rules: p.rules,
      numberings: [...p.numberings],
      defaultNumbering: defaultNumbering(p),
      foundationBaseFromDeal: p.foundationBaseFromDeal === true,
    })),
  };
}

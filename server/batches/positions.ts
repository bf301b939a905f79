/**
 * The positions of a batch: from the request to a stored `BatchSpec` (all
 * validated up front, so a batch never fails half way on bad input), and from
 * a deal index back to the request of that one deal.
 */
import { DEAL_RANGE_PATTERN, type BatchRequest } from '../../client-sdk/api/batch-schemas.js';
import { dealRange, generateDeal } from '../../client-sdk/core/deals/index.js';
import { SolverError } from '../../client-sdk/core/errors.js';
import { defaultNumbering, requirePreset, resolveDeal, resolveLimits } from '../../client-sdk/api/request.js';
import type { LimitsConfig } from '../limits.js';
import type { Deal } from '../../client-sdk/core/rules.js';
import type { SolveRequest } from '../../client-sdk/api/schemas.js';
import { dealNumberAt, type BatchPositions, type BatchSpec } from './model.js';

/**
 * Validates a batch request and returns what to store: the spec (rules and
 * limits resolved) and the number of deals.
 * @param maxDeals largest batch accepted that keeps every result (one that
 *   keeps exceptions only has no such cap: its storage does not grow with
 *   its size; the queued-deals quotas bound it, see `checkQuota`).
 * @throws SolverError as `POST /v1/solve` does for the game, rules, numbering
 *   and limits; `deal_out_of_range` for a deal outside the numbering's range
 *   (path `deals` or `deals.<i>`); any board error with path `boards.<i>`;
 *   `bad_rules` for `rules.foundationBase` with the deal numbers of a game
 *   whose deals fix their own base (Penguin);
 *   `invalid_request` for an empty or reversed range or more than `maxDeals` deals
 *   (more than 2^53 - 1 in any mode).
 */
export function planBatch(req: BatchRequest, limitsConfig: LimitsConfig, maxDeals: number): { spec: BatchSpec; total: number } {
  if (req.results === 'exceptions') maxDeals = Number.MAX_SAFE_INTEGER;
  const preset = requirePreset(req.game);
  const limits = resolveLimits(req.limits, limitsConfig, req.game);
  // batches keep the fast default: the first solution of each deal
  if ((req.limits as { optimizeMs?: unknown } | undefined)?.optimizeMs !== undefined) {
    throw new SolverError('bad_limits', 'limits.optimizeMs applies to POST /v1/solve only; batches return the first solution of each deal', { path: 'limits.optimizeMs' });
  }
  let positions: BatchPositions;
  let numbering: BatchSpec['numbering'] = null;
  let total: number;

  if (req.deals !== undefined) {
    numbering = req.numbering ?? defaultNumbering(preset);
    if (numbering === null) throw new SolverError('layout_required', `${preset.name} has no deal numbers: give boards`, { path: 'deals' });
    const range = dealRange(preset.id, numbering);
    const check = (value: number | string, path: string): bigint => {
      const n = typeof value === 'number' ? (Number.isSafeInteger(value) ? BigInt(value) : null) : BigInt(value);
      if (n === null || n < range.min || n > range.max) {
        throw new SolverError('deal_out_of_range', `${path}: ${numbering} deals are integers from ${range.min} to ${range.max}`, {
          path,
          token: String(value),
        });
      }
      return n;
    };
    if (Array.isArray(req.deals)) {
      if (req.deals.length > maxDeals) throw tooMany(req.deals.length, maxDeals);
      req.deals.forEach((d, i) => check(d, `deals.${i}`));
      positions = { kind: 'list', deals: req.deals };
      total = req.deals.length;
    } else {
      let fromText: string | number;
      let toText: string | number;
      if (typeof req.deals === 'string') {
        const m = DEAL_RANGE_PATTERN.exec(req.deals)!;
        [fromText, toText] = [m[1], m[2]];
      } else {
        [fromText, toText] = [req.deals.from, req.deals.to];
      }
      const from = check(fromText, 'deals');
      const to = check(toText, 'deals');
      if (to < from) throw new SolverError('invalid_request', `deals: the range ${from}..${to} is empty (first > last)`, { path: 'deals' });
      const count = to - from + 1n;
      if (count > BigInt(maxDeals)) throw tooMany(count, maxDeals);
      positions = { kind: 'range', from: String(from), to: String(to) };
      total = Number(count);
    }
  } else {
    const boards = req.boards!;
    if (boards.length > maxDeals) throw tooMany(boards.length, maxDeals);
    positions = { kind: 'boards', boards };
    total = boards.length;
  }

  const spec: BatchSpec = {
    game: preset.id,
    numbering,
    ...(req.rules !== undefined ? { rulesOverride: req.rules } : {}),
    rules: preset.rules,
    limits,
    positions,
    ...(req.name !== undefined ? { name: req.name } : {}),
    ...(req.results === 'exceptions' ? { results: 'exceptions' as const } : {}),
  };
  // Deals that fix their own foundation base (Penguin's beak) each fix a
  // different one: a batch-wide override would contradict most of them.
  if (positions.kind !== 'boards' && req.rules?.foundationBase !== undefined && generateDeal(preset.id, numbering!, dealNumberAt(spec, 0)!).foundationBase !== undefined) {
    throw new SolverError(
      'bad_rules',
      `${preset.name} deals each fix their own foundation base (the beak card), so rules.foundationBase applies to batches of boards only`,
      { path: 'rules.foundationBase' },
    );
  }
  // Resolve every board (they are few: the body limit bounds them) and the
  // first deal, so that a bad board, bad rules or a numbering the game lacks
  // fail now, with their location, and never in the middle of the batch.
  const probe = positions.kind === 'boards' ? positions.boards.length : 1;
  for (let i = 0; i < probe; i++) {
    try {
      spec.rules = dealAt(spec, i).rules;
    } catch (err) {
      if (err instanceof SolverError && positions.kind === 'boards' && !REQUEST_LEVEL_CODES.has(err.code)) {
        throw new SolverError(err.code, `boards.${i}: ${err.message}`, { ...err.location, path: `boards.${i}` });
      }
      throw err;
    }
  }
  return { spec, total };
}

/** Faults of the request as a whole rather than of one board: their path stays as it is. */
const REQUEST_LEVEL_CODES = new Set(['unknown_game', 'bad_rules', 'layout_required', 'numbering_not_supported']);

function tooMany(count: number | bigint, maxDeals: number): SolverError {
  const hint = maxDeals < Number.MAX_SAFE_INTEGER ? ' that keeps every result; "results": "exceptions" keeps only the deals not solved and has no such cap' : '';
  return new SolverError('invalid_request', `deals: ${count} deals is more than the ${maxDeals} a batch may hold${hint}`, { path: 'deals' });
}

/** The solve request of deal `index`, as `POST /v1/solve` would take it. */
export function requestAt(spec: BatchSpec, index: number): SolveRequest {
  const base = { game: spec.game, ...(spec.rulesOverride !== undefined ? { rules: spec.rulesOverride } : {}) };
  const p = spec.positions;
  if (p.kind === 'boards') return { ...base, board: p.boards[index] };
  return { ...base, deal: dealNumberAt(spec, index)!, numbering: spec.numbering ?? undefined };
}

/** The deal to solve for index `index`. @throws SolverError as `resolveDeal`. */
export function dealAt(spec: BatchSpec, index: number): Deal {
  return resolveDeal(requestAt(spec, index));
}

/**
 * What solitaire apps ask of a solver, on top of single solves:
 *
 * - `reviewGame`: where a played game was lost, with the proof of the lost
 *   position and a winning move at the position before it;
 * - `rateDifficulty`: the fewest free cells a deal can be won with
 *   (`min_cells`), or for games without cells the Castle ladder
 *   (`castle_ladder`), each with a checked solution at the answer and a
 *   complete search one rung below;
 * - `winnableDeals`: reproducible draws of deal numbers whose verdict is
 *   `solved`.
 *
 * Every verdict comes from a search through a `Decider` (the service's
 * worker pool, or the SDK's in-process engine): a solution the engine
 * returns has been replayed by the independent checker (core/verify.ts)
 * before it arrives here, an `unsolvable` is a complete search (with its
 * proof summary, core/proof/), and a search that ran out of budget stays
 * `unknown`. The only inferences drawn are the two that follow from the
 * rules (docs/apps.md, "Why the shortcuts are sound"):
 *
 * 1. along a game, winnability is monotone: a position from which a move
 *    leads to a winnable position is winnable (the move, then that
 *    solution), and every position reachable from a lost position is lost
 *    (else the lost one would be winnable), so the positions of a game are
 *    a winnable prefix and a lost suffix;
 * 2. along a ladder of rules where each rung allows every move of the one
 *    before (more free cells; `none` ⊂ `kings` ⊂ `any` empty-column rules),
 *    a solution under stricter rules is one under looser rules, and a deal
 *    lost under looser rules is lost under stricter ones.
 *
 * Both make the question "where does the verdict flip" a search for a
 * boundary in a monotone sequence, which `findBoundary` answers with as few
 * searches as it can, several at once when the decider has threads.
 */
import { uniformBigInt } from 'pure-rand/distribution/uniformBigInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { formatBoard } from '../core/board.js';
import { dealRange } from '../core/deals/index.js';
import { SolverError } from '../core/errors.js';
import type { Move } from '../core/moves.js';
import { layoutKey, replayMoveList, splitMoveText } from '../core/move-list.js';
import { toStandardNotation } from '../core/notation.js';
import { proofToWire, type ProofRequest } from '../core/proof/format.js';
import { proofRequestFor, type ProofCaps } from '../core/proof/certificate.js';
import type { Deal, Layout, Rules } from '../core/rules.js';
import { elapsedMsSince, type SolveLimits, type SolveOutcome, type UnknownReason } from '../core/solve-types.js';
import { applyMove, checkSolution, isWon } from '../core/verify.js';
import { MAX_REVIEW_MOVES, MAX_WINNABLE_COUNT, MeasureSchema, tooManyMovesMessage, type DealsQuery, type DealsResponse, type DifficultyRequest, type DifficultyResponse, type Measure, type ReviewRequest, type ReviewResponse } from './apps-schemas.js';
import { defaultNumbering, requirePreset, resolveDeal, resolveLimits, type BudgetPolicy } from './request.js';
import type { SolveRequest } from './schemas.js';

/**
 * Decides one position: the service's `pool.solve` or the SDK's engine. Must
 * answer as `Engine.solve` does (a solution already replayed by the checker;
 * `unsolvable` from a complete search, with `proof` summary), and build the
 * certificate when `options.proof.certificate` is set. `limits` already
 * holds no more time than the request has left; `options.deadline` is that
 * deadline (`Date.now()` ms), for a decider that queues (the service's pool
 * counts the wait toward it).
 */
export type DecideFn = (deal: Deal, limits: SolveLimits, signal?: AbortSignal, options?: { proof?: ProofRequest; deadline?: number }) => Promise<SolveOutcome>;

/** A decide function and how many positions it can decide at once (the pool's threads; 1 in-process). */
export interface Decider {
  decide: DecideFn;
  parallelism: number;
  /**
   * Admission check, called once per request after it has been validated
   * (deal generated, moves replayed, query checked) and before its first
   * `decide`: throws to refuse the whole request. The service sheds load
   * with it (SolverError `overloaded`, 503, when the pool's queue is full,
   * docs/operations.md "Budgets, overload and faults"); absent: always admitted.
   * @throws SolverError whatever the caller's check throws (`overloaded`).
   */
  admit?: () => void;
}

/** Budgets and certificate caps of the app endpoints (the service's configuration). */
export interface AppsConfig {
  limits: BudgetPolicy;
  proofCaps: ProofCaps;
}

// ---------------------------------------------------------------------------
// The boundary of a monotone sequence
// ---------------------------------------------------------------------------

/** Options of {@link findBoundary}. */
export interface BoundaryOptions {
  /** Indices to decide first, in this order, when they are still open (e.g. the two ends). */
  first?: readonly number[];
  /** After a `solved` index: the largest index that solution also proves winnable (default: the index itself). */
  extend?: (index: number, outcome: SolveOutcome) => number;
  /** Stops the search (the running decisions come back `unknown`/`cancelled`). */
  signal?: AbortSignal;
  /** Most indices decided in all (default: no cap); beyond it the open ones stay open. */
  maxSearches?: number;
  /** `Date.now()` after which no round starts (the request's deadline); the open ones stay open. */
  deadline?: number;
}

/** What {@link findBoundary} found. */
export interface Boundary {
  /** Largest index known winnable (-1: none). */
  lo: number;
  /** Smallest index known lost (`size`: none). */
  hi: number;
  /** The outcome of every index that was searched. */
  outcomes: Map<number, SolveOutcome>;
  /** True when `maxSearches` stopped the search with indices still open. */
  capped: boolean;
  /** True when the deadline stopped the search with indices still open. */
  timedOut: boolean;
}

/**
 * Finds where a monotone verdict flips: indices `0..size-1` whose verdict is
 * `solved` on a prefix and `unsolvable` on the rest. Each round decides up
 * to `parallelism` open indices at once (those in `first`, then evenly
 * spaced ones), until every index between the last known winnable and the
 * first known lost has been searched; an `unknown` index stays open as a
 * gap. About log_{p+1}(size) rounds when nothing is unknown; at most
 * `maxSearches` decisions in all.
 * @throws SolverError `engine_error` when a solved index lies after an
 *   unsolvable one (a checked solution against a complete search: never
 *   expected), and whatever `probe` throws.
 */
export async function findBoundary(
  size: number,
  probe: (index: number, signal: AbortSignal) => Promise<SolveOutcome>,
  parallelism: number,
  options: BoundaryOptions = {},
): Promise<Boundary> {
  const outcomes = new Map<number, SolveOutcome>();
  let lo = -1;
  let hi = size;
  const slots = Math.max(1, Math.floor(parallelism));
  let capped = false;
  let timedOut = false;
  for (;;) {
    if (options.signal?.aborted) break;
    const open: number[] = [];
    for (let i = lo + 1; i < hi; i++) if (!outcomes.has(i)) open.push(i);
    if (open.length === 0) break;
    if (options.deadline !== undefined && Date.now() >= options.deadline) {
      timedOut = true;
      break;
    }
    const left = (options.maxSearches ?? Infinity) - outcomes.size;
    if (left <= 0) {
      capped = true;
      break;
    }
    const picks: number[] = [];
    for (const f of options.first ?? []) if (picks.length < slots && open.includes(f) && !picks.includes(f)) picks.push(f);
    const rest = open.filter((i) => !picks.includes(i));
    picks.splice(Math.min(slots, left));
    const room = Math.max(0, Math.min(slots - picks.length, rest.length, left - picks.length));
    for (let j = 0; j < room; j++) {
      const i = rest[Math.floor(((j + 1) * rest.length) / (room + 1))];
      if (!picks.includes(i)) picks.push(i);
    }
    const round = new AbortController();
    const onAbort = () => round.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const results = await Promise.all(
        picks.map((i) =>
          probe(i, round.signal).catch((err: unknown) => {
            round.abort();
            throw err;
          }),
        ),
      );
      picks.forEach((i, j) => {
        const outcome = results[j];
        outcomes.set(i, outcome);
        if (outcome.verdict === 'solved') lo = Math.max(lo, i, options.extend?.(i, outcome) ?? i);
        else if (outcome.verdict === 'unsolvable') hi = Math.min(hi, i);
      });
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
    }
    if (lo >= hi) {
      throw new SolverError('engine_error', `position ${lo} was found winnable after position ${hi} was proven lost; the verdicts contradict each other`);
    }
  }
  return { lo, hi, outcomes, capped, timedOut };
}

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/** The position part of a review or difficulty request, as `resolveDeal` takes it. */
function positionRequest(req: SolveRequest): SolveRequest {
  const { game, deal, numbering, board, layout, rules } = req;
  return { game, deal, numbering, board, layout, rules } as SolveRequest;
}

const WON_STATS = { statesExpanded: 0, statesStored: 0, elapsedMs: 0, memoryBytes: 0 };

/**
 * The deadline of an app request as a whole: its time budget
 * (`limits.timeoutMs`: the game's or the service's default, capped like a
 * solve's) from its arrival. Every search of the request ends by it.
 */
function requestDeadline(limits: SolveLimits): number {
  return Date.now() + limits.timeoutMs;
}

/** `limits` for a search that begins now and must end by `deadline`; undefined when no time is left. */
function withinDeadline(limits: SolveLimits, deadline: number): SolveLimits | undefined {
  const left = Math.floor(deadline - Date.now());
  if (left < 1) return undefined;
  return left < limits.timeoutMs ? { ...limits, timeoutMs: left } : limits;
}

/** The answer of a search there was no time left for. */
function timedOutOutcome(): SolveOutcome {
  return { verdict: 'unknown', reason: 'timeout', moves: [], stats: { ...WON_STATS } };
}

/** A decide that answers a won position at once (nothing to search), and one past the request's deadline `timeout` without a search. */
function decideOrWon(decider: Decider, deal: Deal, limits: SolveLimits, deadline: number, signal?: AbortSignal, proof?: ProofRequest): Promise<SolveOutcome> {
  if (isWon(deal.layout)) return Promise.resolve({ verdict: 'solved', moves: [], stats: { ...WON_STATS } });
  const left = withinDeadline(limits, deadline);
  if (left === undefined) return Promise.resolve(timedOutOutcome());
  return decider.decide(deal, left, signal, { ...(proof ? { proof } : {}), deadline });
}

function line(rules: Rules, layout: Layout, moves: Move[]) {
  return { board: formatBoard(layout, rules), moves, notation: toStandardNotation(moves, rules), moveCount: moves.length };
}

function wireStats(outcome: SolveOutcome) {
  return { ...outcome.stats, moveCount: outcome.moves.length };
}

function proofOf(outcome: SolveOutcome) {
  if (outcome.proof === undefined) throw new SolverError('engine_error', 'an unsolvable verdict came without its proof summary');
  return proofToWire(outcome.proof);
}

// ---------------------------------------------------------------------------
// Review of a played game
// ---------------------------------------------------------------------------

/**
 * Reviews a played game (`POST /v1/review`): replays the moves (each checked
 * legal), decides the positions along the way with as few searches as the
 * monotonicity allows (see the file comment), and names the first move after
 * which the game could not be won, with the proof of that position and a
 * winning line from the position before it.
 *
 * Shapes: `ReviewRequest` → `ReviewResponse` (apps-schemas.ts); positions are
 * numbered by the moves played (0 = start), moves by their 0-based index.
 * `limits` are per search; `proof: true` adds the lost position's
 * certificate (one more search of that position).
 * @throws SolverError as `resolveDeal`/`resolveLimits`; `illegal_move` (400,
 *   `path: moves.<i>`, `token`) for the first unreadable or illegal move;
 *   `invalid_request` for more than 2,000 moves; `engine_error` on
 *   contradicting verdicts; the decider's errors (`overloaded`, ...).
 */
export async function reviewGame(req: ReviewRequest, decider: Decider, config: AppsConfig, signal?: AbortSignal): Promise<ReviewResponse> {
  const started = performance.now();
  const deal = resolveDeal(positionRequest(req));
  const limits = resolveLimits(req.limits, config.limits, req.game);
  const { rules } = deal;
  const entries = typeof req.moves === 'string' ? splitMoveText(req.moves) : req.moves;
  if (entries.length > MAX_REVIEW_MOVES) {
    throw new SolverError('invalid_request', `moves: ${tooManyMovesMessage(entries.length)}`, { path: 'moves' });
  }
  const { moves, positions } = replayMoveList(rules, deal.layout, entries);
  const n = moves.length;
  decider.admit?.();
  const deadline = requestDeadline(limits);

  // Checked solutions known per position, and how each position got its verdict.
  const solutions = new Map<number, Move[]>();
  const onSolution = new Set<number>();
  const extend = (i: number, outcome: SolveOutcome): number => {
    solutions.set(i, outcome.moves);
    // the positions that solution passes through, to spot the player's later positions on it
    const steps = new Map<string, number>();
    let layout = positions[i];
    steps.set(layoutKey(layout), 0);
    outcome.moves.forEach((move, s) => {
      layout = applyMove(rules, layout, move);
      if (!steps.has(layoutKey(layout))) steps.set(layoutKey(layout), s + 1);
    });
    let best = i;
    for (let k = i + 1; k <= n; k++) {
      const step = steps.get(layoutKey(positions[k]));
      if (step === undefined) continue;
      const rest = outcome.moves.slice(step);
      if (!checkSolution(rules, positions[k], rest).ok) continue;
      if (!solutions.has(k)) {
        solutions.set(k, rest);
        onSolution.add(k);
      }
      best = k;
    }
    return best;
  };

  let searches = 0;
  let statesExpanded = 0;
  const boundary = await findBoundary(
    n + 1,
    async (i, roundSignal) => {
      const outcome = await decideOrWon(decider, { rules, layout: positions[i] }, limits, deadline, anySignal(signal, roundSignal));
      if (!isWon(positions[i])) searches++;
      statesExpanded += outcome.stats.statesExpanded;
      return outcome;
    },
    decider.parallelism,
    { first: [n, 0], extend, signal, maxSearches: reviewSearchCap(n + 1), deadline },
  );
  const { lo, hi, outcomes, capped, timedOut } = boundary;

  const positionList = positions.map((_, i) => {
    const probed = outcomes.get(i);
    if (i <= lo) return { index: i, verdict: 'solved' as const, basis: probed?.verdict === 'solved' ? ('search' as const) : onSolution.has(i) ? ('on_solution' as const) : ('before_winnable' as const) };
    if (i >= hi) return { index: i, verdict: 'unsolvable' as const, basis: probed?.verdict === 'unsolvable' ? ('search' as const) : ('after_lost' as const) };
    return { index: i, verdict: 'unknown' as const, basis: 'budget' as const, ...(probed?.reason !== undefined ? { reason: probed.reason } : {}) };
  });

  const base = {
    game: req.game,
    rules,
    board: formatBoard(deal.layout, rules),
    moves,
    notation: toStandardNotation(moves, rules),
    positions: positionList,
  };
  const stats = () => ({ searches, statesExpanded, elapsedMs: elapsedMsSince(started), limits });

  if (lo === n) {
    if (isWon(positions[n])) return { ...base, result: 'won', stats: stats() };
    return { ...base, result: 'winnable', continuation: line(rules, positions[n], solutions.get(n)!), stats: stats() };
  }
  if (hi <= n && hi === lo + 1) {
    let lostOutcome = outcomes.get(hi)!;
    const left = withinDeadline(limits, deadline);
    if (req.proof === true && left !== undefined) {
      const proofReq = proofRequestFor(hi === 0 ? req : { game: req.game }, config.proofCaps, 'inline');
      const again = await decider.decide({ rules, layout: positions[hi] }, left, signal, { proof: proofReq, deadline });
      searches++;
      if (again.verdict === 'unsolvable') lostOutcome = again;
    }
    const lost = {
      moveIndex: hi === 0 ? null : hi - 1,
      move: hi === 0 ? null : moves[hi - 1],
      notation: hi === 0 ? null : base.notation[hi - 1],
      board: formatBoard(positions[hi], rules),
      proof: proofOf(lostOutcome),
    };
    if (hi === 0) return { ...base, result: 'lost_at_start', lost, stats: stats() };
    const winning = solutions.get(lo)!;
    return {
      ...base,
      result: 'lost',
      lost,
      alternative: { moveIndex: lo, move: winning[0], notation: toStandardNotation([winning[0]], rules)[0], line: line(rules, positions[lo], winning) },
      stats: stats(),
    };
  }
  const reasons: (UnknownReason | 'max_searches')[] = [
    ...new Set([...outcomes.entries()].filter(([i, o]) => i > lo && i < hi && o.reason !== undefined).map(([, o]) => o.reason as UnknownReason)),
  ];
  if (capped) reasons.push('max_searches');
  if (timedOut && !reasons.includes('timeout')) reasons.push('timeout');
  return { ...base, result: 'unknown', unknown: { from: lo + 1, to: hi - 1, reasons }, stats: stats() };
}

/**
 * Most searches one review may run: twice a bisection of its positions plus
 * 8, so that a game whose searches keep running out of budget ends (its
 * open positions `unknown`, reason `max_searches`) instead of searching
 * every position.
 */
export function reviewSearchCap(positions: number): number {
  return 2 * Math.ceil(Math.log2(positions + 1)) + 8;
}

/** A signal that fires when either fires. */
function anySignal(a: AbortSignal | undefined, b: AbortSignal): AbortSignal {
  return a === undefined ? b : AbortSignal.any([a, b]);
}

// ---------------------------------------------------------------------------
// Difficulty
// ---------------------------------------------------------------------------

interface Rung {
  label: string;
  value: number;
  deal: Deal;
}

/** Definitions of the measures, as the answer states them. */
export const MEASURE_DEFINITIONS: Record<Measure, string> = {
  min_cells:
    'the fewest free cells with which the deal can be won under the game\'s other rules (cards dealt into cells stay; a deal with c cards in its cells needs at least c): ' +
    'a checked solution with that many cells, and a complete search that finds none with one fewer',
  castle_ladder:
    'the strictest rung on which the deal can be won: 0 no_empty_column (an emptied column takes no card), 1 kings_to_empty (only Kings), 2 as_dealt (any card, the game itself), ' +
    '3 one_free_cell (the game plus one free cell); each rung allows every move of the one before, so a checked solution on the answer and a complete search that finds none on the rung below settle it',
};

/**
 * Whether `measure` can rate a deal under `rules`: `min_cells` needs free
 * cells to take away; `castle_ladder` needs no free cells and empty columns
 * that take any card, since its rungs are that rule made stricter (and one
 * free cell added).
 */
function measureFits(measure: Measure, rules: Rules): boolean {
  return measure === 'min_cells' ? rules.freeCells > 0 : rules.freeCells === 0 && rules.emptyColumn === 'any';
}

/**
 * The measure a difficulty request uses: the one it names, or the one that
 * fits the rules (`min_cells` first).
 * @throws SolverError `invalid_request` (path `measure`) when the named one
 *   does not fit the rules; (path `game`) when none is named and none fits
 *   (games without free cells whose empty columns take Kings only or no
 *   card: Fan, Baker's Dozen, Good Measure).
 */
function chooseMeasure(named: Measure | undefined, rules: Rules, game: string): Measure {
  const fitting = MeasureSchema.options.filter((m) => measureFits(m, rules));
  const why = 'min_cells needs free cells, castle_ladder no free cells and empty columns that take any card';
  if (named === undefined) {
    if (fitting.length > 0) return fitting[0];
    throw new SolverError('invalid_request', `no difficulty measure fits ${game} under these rules: ${why}`, { path: 'game' });
  }
  if (fitting.includes(named)) return named;
  const instead = fitting.length > 0 ? `; use ${fitting.join(' or ')}` : '; no measure fits these rules';
  throw new SolverError('invalid_request', `${named} does not fit ${game} under these rules (${why})${instead}`, { path: 'measure' });
}

/** The rungs of a measure for a deal, strictest first; the measure fits the deal's rules (`chooseMeasure`). */
function rungsFor(measure: Measure, deal: Deal): Rung[] {
  const { rules, layout } = deal;
  if (measure === 'min_cells') {
    const held = layout.freeCells.filter((c) => c !== null);
    const rungs: Rung[] = [];
    for (let k = held.length; k <= rules.freeCells; k++) {
      const cells = [...held, ...new Array<null>(k - held.length).fill(null)];
      rungs.push({ label: `${k}_cells`, value: k, deal: { rules: { ...rules, freeCells: k }, layout: { ...layout, freeCells: cells } } });
    }
    return rungs;
  }
  const at = (label: string, value: number, r: Partial<Rules>, cells: null[]): Rung => ({ label, value, deal: { rules: { ...rules, ...r }, layout: { ...layout, freeCells: cells } } });
  return [
    at('no_empty_column', 0, { emptyColumn: 'none' }, []),
    at('kings_to_empty', 1, { emptyColumn: 'kings' }, []),
    at('as_dealt', 2, {}, []),
    at('one_free_cell', 3, { freeCells: 1 }, [null]),
  ];
}

/**
 * Rates a deal's difficulty (`POST /v1/difficulty`) by `min_cells` or
 * `castle_ladder` ({@link MEASURE_DEFINITIONS}): searches the rungs for the
 * boundary between lost and winnable (loosest rung first, then bisection,
 * `parallelism` rungs at once), and answers the value with a checked
 * solution on it and the proof of the rung below (`proof: true`: with the
 * certificate, one more search), or `unknown` with the bounds proven and
 * the budgets that ran out.
 * @throws SolverError as `resolveDeal`/`resolveLimits`; `invalid_request`
 *   (path `measure`) for a measure the rules do not fit, (path `game`) when
 *   no measure is named and none fits (`chooseMeasure`); the decider's errors.
 */
export async function rateDifficulty(req: DifficultyRequest, decider: Decider, config: AppsConfig, signal?: AbortSignal): Promise<DifficultyResponse> {
  const started = performance.now();
  const deal = resolveDeal(positionRequest(req));
  const limits = resolveLimits(req.limits, config.limits, req.game);
  const measure = chooseMeasure(req.measure, deal.rules, req.game);
  const rungs = rungsFor(measure, deal);
  const size = rungs.length;
  decider.admit?.();
  const deadline = requestDeadline(limits);
  // boundary index i = loosest first: rung size-1-i
  const rungAt = (i: number) => rungs[size - 1 - i];
  let searches = 0;
  const { lo, hi, outcomes } = await findBoundary(
    size,
    async (i, roundSignal) => {
      searches++;
      return decideOrWon(decider, rungAt(i).deal, limits, deadline, anySignal(signal, roundSignal));
    },
    decider.parallelism,
    { first: [0], signal, deadline },
  );
  const rungList = rungs.map((rung, r) => {
    const i = size - 1 - r;
    const o = outcomes.get(i);
    const verdict = i <= lo ? ('solved' as const) : i >= hi ? ('unsolvable' as const) : ('unknown' as const);
    const basis = o?.verdict === verdict ? (verdict === 'unknown' ? ('budget' as const) : ('search' as const)) : ('implied' as const);
    return {
      label: rung.label,
      rules: rung.deal.rules,
      verdict,
      basis,
      ...(basis === 'budget' && o?.reason !== undefined ? { reason: o.reason } : {}),
      ...(o !== undefined ? { stats: wireStats(o) } : {}),
    };
  });
  const solvedRung = lo >= 0 ? rungAt(lo) : undefined;
  const lostRung = hi < size ? rungAt(hi) : undefined;
  let proofPart: DifficultyResponse['proof'];
  if (lostRung !== undefined) {
    let outcome = outcomes.get(hi)!;
    const left = withinDeadline(limits, deadline);
    if (req.proof === true && left !== undefined) {
      const again = await decider.decide(lostRung.deal, left, signal, { proof: proofRequestFor(req, config.proofCaps, 'inline'), deadline });
      searches++;
      if (again.verdict === 'unsolvable') outcome = again;
    }
    proofPart = { label: lostRung.label, rules: lostRung.deal.rules, board: formatBoard(lostRung.deal.layout, lostRung.deal.rules), proof: proofOf(outcome) };
  }
  const solution =
    solvedRung !== undefined
      ? { label: solvedRung.label, rules: solvedRung.deal.rules, ...line(solvedRung.deal.rules, solvedRung.deal.layout, outcomes.get(lo)!.moves) }
      : undefined;
  const decided = lo >= 0 && hi === lo + 1;
  const verdict = decided ? 'decided' : lo === -1 && hi === 0 ? 'unsolvable' : 'unknown';
  return {
    game: req.game,
    measure,
    verdict,
    value: decided ? solvedRung!.value : null,
    label: decided ? solvedRung!.label : null,
    low: verdict === 'unknown' ? (hi < size ? rungs[size - hi].value : rungs[0].value) : null,
    high: verdict === 'unknown' && solvedRung !== undefined ? solvedRung.value : null,
    rungs: rungList,
    ...(solution !== undefined ? { solution } : {}),
    ...(proofPart !== undefined ? { proof: proofPart } : {}),
    definition: MEASURE_DEFINITIONS[measure],
    stats: { searches, elapsedMs: elapsedMsSince(started), limits },
  };
}

// ---------------------------------------------------------------------------
// Winnable deals
// ---------------------------------------------------------------------------

/** Default top of the range deal numbers are drawn from. */
export const DEFAULT_DRAW_MAX = 1_000_000n;

/**
 * The deal numbers drawn for `seed` from `from..to` (both included), distinct,
 * in draw order: xoroshiro128+ (pure-rand) seeded with `seed`, each number
 * uniform over the range, repeats skipped. The same seed and range give the
 * same sequence on every machine. At most `limit` numbers (fewer when the
 * range is smaller).
 */
export function drawDeals(seed: number, from: bigint, to: bigint, limit: number): bigint[] {
  const rng = xoroshiro128plus(seed | 0);
  const size = to - from + 1n;
  const want = size < BigInt(limit) ? Number(size) : limit;
  const seen = new Set<bigint>();
  const out: bigint[] = [];
  if (size <= BigInt(limit) * 4n) {
    // a small range: a seeded Fisher-Yates shuffle of all of it (no rejection loop near the end)
    const all = Array.from({ length: Number(size) }, (_, i) => from + BigInt(i));
    for (let i = 0; i < want; i++) {
      const j = i + Number(uniformBigInt(rng, 0n, BigInt(all.length - 1 - i)));
      [all[i], all[j]] = [all[j], all[i]];
      out.push(all[i]);
    }
    return out;
  }
  while (out.length < want) {
    const n = uniformBigInt(rng, from, to);
    if (seen.has(n)) continue;
    seen.add(n);
    out.push(n);
  }
  return out;
}

function dealNumber(n: bigint): number | string {
  return n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString();
}

/**
 * Winnable deals (`GET /v1/deals?winnable=true`): draws deal numbers
 * ({@link drawDeals}) and decides them in draw order, `parallelism` at a
 * time, until `count` are `solved`; offers those, each with its solution
 * length (and solution with `solutions=true`), and lists the ones drawn
 * before the last offered that were `unsolvable` or `unknown` (never
 * offered). The answer depends only on the query, as long as no deal's
 * verdict depends on the time budget (a `timeout` makes it machine-bound:
 * use `maxStates` for reproducible draws). When `signal` fires first (the
 * client went away), it answers what was decided by then: the deals whose
 * search it stopped are skipped as `unknown`/`cancelled`, `exhausted` false.
 * @throws SolverError `unknown_game`, `layout_required`,
 *   `numbering_not_supported`, `deal_out_of_range` (path `from`/`to`),
 *   `invalid_request` (count, seed, `winnable=false`), `bad_limits`; the decider's errors.
 */
export async function winnableDeals(query: DealsQuery, decider: Decider, config: AppsConfig, signal?: AbortSignal): Promise<DealsResponse> {
  const preset = requirePreset(query.game);
  if (query.winnable === 'false') {
    throw new SolverError('invalid_request', 'this endpoint offers winnable deals only (winnable=true); any deal number of the range is a deal', { path: 'winnable' });
  }
  const numbering = query.numbering ?? defaultNumbering(preset);
  if (numbering === null) throw new SolverError('layout_required', `${preset.name} has no deal numbers`, { path: 'game' });
  if (!preset.numberings.includes(numbering)) {
    throw new SolverError('numbering_not_supported', `${preset.name} deals are not numbered "${numbering}"; supported: ${preset.numberings.join(', ')}`, { path: 'numbering' });
  }
  const range = dealRange(preset.id, numbering);
  const from = query.from !== undefined ? BigInt(query.from) : range.min;
  // Without `to`: DEFAULT_DRAW_MAX numbers from `from` on, within the numbering.
  const defaultTo = from + DEFAULT_DRAW_MAX - 1n;
  const to = query.to !== undefined ? BigInt(query.to) : range.max < defaultTo ? range.max : defaultTo;
  if (from < range.min || from > range.max) throw new SolverError('deal_out_of_range', `from: ${numbering} deals are integers from ${range.min} to ${range.max}`, { path: 'from' });
  if (to < range.min || to > range.max) throw new SolverError('deal_out_of_range', `to: ${numbering} deals are integers from ${range.min} to ${range.max}`, { path: 'to' });
  if (to < from) throw new SolverError('invalid_request', `to (${to}) is below from (${from})`, { path: 'to' });
  const count = query.count !== undefined ? Number(query.count) : 10;
  if (!Number.isInteger(count) || count < 1 || count > MAX_WINNABLE_COUNT) {
    throw new SolverError('invalid_request', `count must be an integer from 1 to ${MAX_WINNABLE_COUNT}`, { path: 'count' });
  }
  const seed = query.seed !== undefined ? Number(query.seed) : 0;
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new SolverError('invalid_request', 'seed must be an integer from 0 to 4294967295', { path: 'seed' });
  const limits = resolveLimits(
    { ...(query.maxStates !== undefined ? { maxStates: Number(query.maxStates) } : {}), ...(query.timeoutMs !== undefined ? { timeoutMs: Number(query.timeoutMs) } : {}) },
    config.limits,
    preset.id,
  );
  const withSolutions = query.solutions === 'true';
  const drawn = drawDeals(seed, from, to, count * 10 + 100);
  decider.admit?.();
  const deadline = requestDeadline(limits);
  let timedOut = false;

  const results: (SolveOutcome | undefined)[] = new Array(drawn.length);
  const deals: Deal[] = [];
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  let next = 0;
  let scanned = 0;
  let found = 0;
  let last = -1;
  const advance = () => {
    while (found < count && scanned < drawn.length && results[scanned] !== undefined) {
      if (results[scanned]!.verdict === 'solved') {
        found++;
        if (found === count) last = scanned;
      }
      scanned++;
    }
    if (found === count) stop.abort();
  };
  const worker = async () => {
    while (!stop.signal.aborted && next < drawn.length) {
      const left = withinDeadline(limits, deadline);
      if (left === undefined) {
        timedOut = true;
        return;
      }
      const i = next++;
      const deal = resolveDeal({ game: preset.id, deal: drawn[i].toString(), numbering } as SolveRequest);
      deals[i] = deal;
      const outcome = await decider.decide(deal, left, stop.signal, { deadline });
      if (stop.signal.aborted && i > last && last >= 0) return;
      results[i] = outcome;
      advance();
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, decider.parallelism) }, worker));
  } catch (err) {
    stop.abort();
    throw err;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  // Cancelled (the client went away) before `count` were found: what was decided by then, the deals
  // whose search was stopped among `skipped` as unknown/cancelled; not a refusal, and not an exhausted draw.
  const cancelled = signal?.aborted === true && found < count;
  // past the deadline: the deals decided in draw order so far (a search the deadline cut is skipped, unknown/timeout)
  if (!cancelled && found < count && Date.now() >= deadline) timedOut = true;
  const end = last >= 0 ? last + 1 : scanned;
  const offered: DealsResponse['deals'] = [];
  const skipped: DealsResponse['skipped'] = [];
  for (let i = 0; i < end; i++) {
    const o = results[i]!;
    if (o.verdict === 'solved') {
      offered.push({
        deal: dealNumber(drawn[i]),
        moveCount: o.moves.length,
        decided: 'checked_solution',
        stats: o.stats,
        ...(withSolutions ? { moves: o.moves, notation: toStandardNotation(o.moves, deals[i].rules) } : {}),
      });
    } else {
      skipped.push({ deal: dealNumber(drawn[i]), verdict: o.verdict, ...(o.reason !== undefined ? { reason: o.reason } : {}) });
    }
  }
  return {
    game: preset.id,
    numbering,
    seed,
    winnable: true,
    range: { from: dealNumber(from), to: dealNumber(to) },
    deals: offered,
    skipped,
    tried: end,
    exhausted: !timedOut && !cancelled && offered.length < count,
    ...(timedOut && offered.length < count ? { timedOut: true } : {}),
    limits,
  };
}

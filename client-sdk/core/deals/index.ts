/**
 * Deal generators: game id + numbering + deal number → starting layout.
 *
 * Sources: `docs/rules.md` ("Deals", "Presets"); the generators are in
 * `ms.ts` (Microsoft / FreeCell Pro) and `pysolfc.ts` (PySolFC game numbers),
 * the per-game dealing in `games.ts` (PySolFC's `pysollib/games/*.py`).
 */
import { SolverError } from '../errors.js';
import type { Numbering } from '../rules.js';
import { GAME_DEALERS, type GameDealer, type GeneratedDeal } from './games.js';
import { MS_MAX, MS_MIN, msDealOrder } from './ms.js';
import { PYSOLFC_MAX, PYSOLFC_MIN, pysolfcDealOrder } from './pysolfc.js';

export type { GeneratedDeal } from './games.js';
export { MS_MAX, MS_MIN } from './ms.js';
export { PYSOLFC_MAX, PYSOLFC_MIN } from './pysolfc.js';

const RANGES: Readonly<Record<Numbering, { min: bigint; max: bigint }>> = {
  ms: { min: MS_MIN, max: MS_MAX },
  pysolfc: { min: PYSOLFC_MIN, max: PYSOLFC_MAX },
};

const ORDER: Readonly<Record<Numbering, (n: bigint) => number[]>> = {
  ms: msDealOrder,
  pysolfc: pysolfcDealOrder,
};

function dealerFor(game: string): GameDealer {
  const dealer = Object.hasOwn(GAME_DEALERS, game) ? GAME_DEALERS[game] : undefined;
  if (!dealer) throw new SolverError('unknown_game', `no deal generator for game "${game}"`, { path: 'game', token: game });
  return dealer;
}

function checkedDealer(game: string, numbering: Numbering): GameDealer {
  const dealer = dealerFor(game);
  if (!dealer.numberings.includes(numbering)) {
    throw new SolverError(
      'numbering_not_supported',
      `game "${game}" has no "${numbering}" deal numbers; supported: ${dealer.numberings.join(', ')}`,
      { path: 'numbering', token: String(numbering) },
    );
  }
  return dealer;
}

/**
 * Game ids that have a deal generator, e.g. `freecell`, `seahaven_towers`,
 * `penguin`, `sham_battle` (alias of `beleaguered_castle`).
 */
export function dealableGames(): string[] {
  return Object.keys(GAME_DEALERS);
}

/**
 * Which numberings a game's deals accept.
 *
 * @param game game id, e.g. `"freecell"`.
 * @returns `['ms', 'pysolfc']` for freecell, relaxed_freecell, bakers_game and
 *   kings_only_bakers_game; `['pysolfc']` for every other dealable game.
 * @throws SolverError `unknown_game` when the game has no deal generator.
 */
export function supportedNumberings(game: string): Numbering[] {
  return [...dealerFor(game).numberings];
}

/**
 * The accepted deal numbers of a game under a numbering, both ends included.
 *
 * @returns `{min: 1n, max: 2n**33n - 1n}` for `ms` (Microsoft 1..2^31-1 plus
 *   the FreeCell Pro extension, docs/rules.md "Deals"); `{min: 1n, max: 10n**20n - 1n}`
 *   for `pysolfc` (PySolFC's 20-digit game numbers, `pysolrandom.py` `MAX_SEED`).
 * @throws SolverError `unknown_game` (no generator) or `numbering_not_supported`.
 */
export function dealRange(game: string, numbering: Numbering): { min: bigint; max: bigint } {
  checkedDealer(game, numbering);
  return { ...RANGES[numbering] };
}

/**
 * Parses a deal number: a safe-integer `number`, a `bigint`, or a string of
 * decimal digits (surrounding spaces allowed). Numbers above 2^53 must be
 * given as strings or bigints.
 *
 * @throws SolverError `deal_out_of_range` when it is not an integer, below
 *   `range.min` or above `range.max`; the message states the range.
 */
function parseDealNumber(value: string | number | bigint, range: { min: bigint; max: bigint }, numbering: Numbering): bigint {
  const outOfRange = (why: string): SolverError =>
    new SolverError(
      'deal_out_of_range',
      `deal number ${why}: ${numbering} deals are integers from ${range.min} to ${range.max}`,
      { path: 'deal', token: String(value) },
    );
  let n: bigint;
  if (typeof value === 'bigint') n = value;
  else if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw outOfRange(`${value} is not an integer`);
    if (!Number.isSafeInteger(value)) throw outOfRange(`${value} is above 2^53 and must be passed as a string`);
    n = BigInt(value);
  } else if (typeof value === 'string') {
    const text = value.trim();
    if (!/^\d+$/.test(text)) throw outOfRange(`"${value}" is not an integer`);
    n = BigInt(text);
  } else {
    throw outOfRange(`${String(value)} is not an integer`);
  }
  if (n < range.min || n > range.max) throw outOfRange(`${n} is out of range`);
  return n;
}

/**
 * Generates the starting layout of deal `number` of `game`.
 *
 * Shapes: `layout.columns[i]` lists column i bottom (deepest) card first;
 * `layout.freeCells` has one entry per cell of the game (4 FreeCell family,
 * ForeCell and Seahaven; 3 seahaven_towers_3cells; 8 Eight Off; 7 Penguin;
 * 0 Castle family and Fortress), `null` when empty; `layout.foundations`
 * counts the cards on each suit's foundation (C, D, H, S). `foundationBase`
 * is set for Penguin only (the beak's rank; the other three cards of that
 * rank are on the foundations, counted as 1 each).
 *
 * Formulas: Microsoft numbers → docs/rules.md "Deals" (`ms.ts`); PySolFC numbers →
 * `pysolrandom.py` and `game/__init__.py` (`pysolfc.ts`); the game's own
 * dealing → its PySolFC class (`games.ts`).
 *
 * @param game game id, e.g. `"freecell"`, `"seahaven_towers"`, `"penguin"`.
 * @param numbering `ms` (FreeCell family only) or `pysolfc`.
 * @param number 1 .. 2^33-1 for `ms`, 1 .. 10^20-1 for `pysolfc`; a safe
 *   integer, a bigint, or a decimal string.
 * @throws SolverError `unknown_game`, `numbering_not_supported`, `deal_out_of_range`.
 */
export function generateDeal(game: string, numbering: Numbering, number: string | number | bigint): GeneratedDeal {
  const dealer = checkedDealer(game, numbering);
  const n = parseDealNumber(number, RANGES[numbering], numbering);
  return dealer.deal(ORDER[numbering](n));
}

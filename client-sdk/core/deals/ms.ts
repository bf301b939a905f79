/**
 * Microsoft FreeCell deal numbers, with the FreeCell Pro extension.
 *
 * Source: `docs/rules.md`, section "Deals" ("Microsoft FreeCell
 * numbers"); the same generator is PySolFC's `LCRandom31`
 * (`pysollib/pysolrandom.py`) and fc-solve's `gen_ms_boards__rand.h`.
 *
 * Generator: `seed = (seed * 214013 + 2531011) mod 2^32`, then
 * - deals 1 .. 2^31-1: `rand = (seed >> 16) & 0x7fff`;
 * - deals 2^31 .. 2^32-1: the same, OR-ed with `0x8000`;
 * - deals 2^32 .. 2^33-1: the seed starts at `n - 2^32` and
 *   `rand = ((seed >> 16) & 0xffff) + 1`.
 *
 * The state is kept in 0 .. 2^32-1 and stepped in 32-bit integer arithmetic
 * (`Math.imul`), which is exactly the generator's mod 2^32.
 */
import { fullDeck, type Card } from '../cards.js';

/** Smallest Microsoft / FreeCell Pro deal number. */
export const MS_MIN = 1n;
/** Largest Microsoft / FreeCell Pro deal number, 2^33 - 1. */
export const MS_MAX = (1n << 33n) - 1n;

const TWO_31 = 1n << 31n;
const TWO_32 = 1n << 32n;

/**
 * A "random integer in 0..k" source used by the Fisher-Yates shuffle
 * ({@link shuffleForDealing}). `below(k + 1)` must return an integer in 0..k.
 */
export interface IndexSource {
  below(bound: number): number;
}

/**
 * The Microsoft / FreeCell Pro linear congruential generator for deal `n`.
 *
 * @param n deal number, 1 .. 2^33-1 (PySolFC also uses it for its game
 *   numbers 1 .. 31999). Not range-checked here beyond 0 .. 2^33-1.
 * @returns an {@link IndexSource} whose `below(m)` is `rand() % m`
 *   (docs/rules.md "Deals": `j = rand() % left`).
 * @throws RangeError when `n` is negative or above 2^33-1 (callers validate first).
 */
export function msRandom(n: bigint): IndexSource {
  if (n < 0n || n > MS_MAX) throw new RangeError(`Microsoft deal number out of range: ${n}`);
  const extended = n >= TWO_32;
  const highBit = !extended && n >= TWO_31 ? 0x8000 : 0;
  let state = Number(extended ? n - TWO_32 : n);
  const next = (): number => {
    // mod 2^32 in 32-bit integers: Math.imul keeps the product's low 32 bits, `>>> 0` reads the sum unsigned
    state = (Math.imul(state, 214013) + 2531011) >>> 0;
    const high = state >>> 16;
    return extended ? (high & 0xffff) + 1 : (high & 0x7fff) | highBit;
  };
  return { below: (bound: number) => next() % bound };
}

/**
 * Shuffles `deck` the way both Microsoft FreeCell and PySolFC do and returns
 * the cards in dealing order (first element = first card dealt).
 *
 * Fisher-Yates from the end: for `i = len-1 .. 1`, `j = rnd.below(i + 1)`,
 * swap `deck[i]` and `deck[j]`; the shuffled list is a talon whose last card is
 * dealt first, so the result is the shuffled list reversed. This is exactly
 * docs/rules.md's "deal `deck[j]`, then `deck[j] = deck[--left]`" loop (the last
 * card needs no random number). Sources: PySolFC `MFXRandom.shuffle` /
 * pysol_cards `RandomBase.shuffle`, and `Game.shuffle` + the talon's
 * deal-from-the-top order in `pysollib/game/__init__.py`.
 *
 * @param deck cards in the generator's starting order; not modified.
 * @param rnd the random source (Microsoft LCG or Mersenne Twister).
 * @returns a new array of the same cards in the order they are dealt.
 */
export function shuffleForDealing(deck: readonly Card[], rnd: IndexSource): Card[] {
  const cards = deck.slice();
  for (let i = cards.length - 1; i > 0; i--) {
    const j = rnd.below(i + 1);
    const t = cards[i];
    cards[i] = cards[j];
    cards[j] = t;
  }
  return cards.reverse();
}

/** {@link fullDeck}, built once (the shuffle copies it). */
const DECK: readonly Card[] = fullDeck();

/**
 * The 52 cards of Microsoft deal `n` in dealing order: the starting deck is
 * deck index `i = 4 * (rank - 1) + suit` (ranks A..K, suits C, D, H, S), i.e.
 * {@link fullDeck}'s order (docs/rules.md, "Microsoft FreeCell numbers").
 *
 * @param n deal number, 0 .. 2^33-1 (0 is PySolFC's internal use only).
 * @returns 52 card codes, first dealt first.
 * @throws RangeError when `n` is outside 0 .. 2^33-1.
 */
export function msDealOrder(n: bigint): Card[] {
  return shuffleForDealing(DECK, msRandom(n));
}

/**
 * Microsoft FreeCell deal `n` as 8 columns, deepest card first: card k of the
 * dealing order goes to column `k % 8` (columns get 7,7,7,7,6,6,6,6 cards).
 * Deal 1's first column is `JD KD 2S 4C 3S 6D 6S` (docs/rules.md "Deals").
 *
 * @param n deal number, 1 .. 2^33-1 (not validated beyond {@link msRandom}).
 * @returns 8 arrays of card codes.
 */
export function msFreeCellColumns(n: bigint): Card[][] {
  const columns: Card[][] = Array.from({ length: 8 }, () => []);
  msDealOrder(n).forEach((card, k) => columns[k % 8].push(card));
  return columns;
}

/**
 * PySolFC game numbers: which random generator shuffles which starting deck.
 *
 * Sources: PySolFC `pysollib/pysolrandom.py` (`constructRandom`: small
 * numbers use the Microsoft generator `LCRandom31`, all others the Mersenne
 * Twister `MTRandom`; see {@link PYSOLFC_MS_LAST} for deal 32000), PySolFC
 * `pysollib/game/__init__.py` (`Game.shuffle`: the Microsoft generator
 * shuffles the deck rearranged into Microsoft's order)
 * and the pysol_cards package (`random.py`, `random_base.py`, `cards.py`).
 * Summary in `docs/rules.md`, section "Deals" ("PySolFC game numbers").
 *
 * The game's own dealing (columns, cells, foundations) is in `games.ts`.
 */
import { makeCard, type Card } from '../cards.js';
import { msDealOrder, shuffleForDealing, type IndexSource } from './ms.js';

/** Smallest PySolFC game number we accept. */
export const PYSOLFC_MIN = 1n;
/** Largest PySolFC game number, 10^20 - 1 (PySolFC's 20-digit seeds). */
export const PYSOLFC_MAX = 10n ** 20n - 1n;
/**
 * Last game number shuffled by the Microsoft generator; from 32001 on the
 * Mersenne Twister shuffles.
 *
 * Deal 32000 is the one number where the sources disagree: PySolFC's current
 * `constructRandom` (`pysollib/pysolrandom.py`) uses the Microsoft generator
 * for `0 <= n < 32000`, so the PySolFC application deals 32000 with the
 * Mersenne Twister; the pysol_cards package (`random.py` `shuffle`:
 * `game_num <= 32000`), which fc-solve's Python scripts use, and original
 * PySol ("only used for 0 <= seed <= 32000", also PySolFC's old saved-game
 * loader) use the Microsoft generator for 32000 too. The project's reference
 * vectors (`tests/fixtures/data/deals/pysolfc_mt_vectors.jsonl`, all seven games)
 * follow pysol_cards, so we do: `n <= 32000` is Microsoft-shuffled.
 */
export const PYSOLFC_MS_LAST = 32000n;

const N = 624;
const M = 397;
const UPPER_MASK = 0x80000000;
const LOWER_MASK = 0x7fffffff;
const MATRIX_A = 0x9908b0df;

/**
 * MT19937, the Mersenne Twister of Python's `random` module (Matsumoto and
 * Nishimura's reference algorithm), seeded the way CPython seeds
 * `random.Random(n)` from an integer: `init_by_array` over the 32-bit words of
 * `|n|`, least significant word first (`[0]` for n = 0).
 */
export class MersenneTwister implements IndexSource {
  private readonly mt = new Uint32Array(N);
  private index = N + 1;

  /** @param seed any integer; its absolute value is used, like CPython. */
  constructor(seed: bigint) {
    this.initByArray(MersenneTwister.seedWords(seed));
  }

  /** The 32-bit words of |seed|, least significant first; `[0]` for zero. */
  static seedWords(seed: bigint): number[] {
    let v = seed < 0n ? -seed : seed;
    const words: number[] = [];
    while (v > 0n) {
      words.push(Number(v & 0xffffffffn));
      v >>= 32n;
    }
    return words.length > 0 ? words : [0];
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.index = N;
  }

  private initByArray(key: readonly number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1664525)) + key[j] + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  private twist(): void {
    const mt = this.mt;
    for (let k = 0; k < N; k++) {
      const y = (mt[k] & UPPER_MASK) | (mt[(k + 1) % N] & LOWER_MASK);
      mt[k] = mt[(k + M) % N] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
    }
    this.index = 0;
  }

  /** Next 32-bit output, 0 .. 2^32-1 (`genrand_int32`). */
  nextUint32(): number {
    if (this.index >= N) this.twist();
    let y = this.mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** Python's `random()`: a 53-bit float in [0, 1) from two outputs (`(a>>5)*2^26 + (b>>6)) / 2^53`). */
  random(): number {
    const a = this.nextUint32() >>> 5;
    const b = this.nextUint32() >>> 6;
    return (a * 67108864 + b) * (1 / 9007199254740992);
  }

  /**
   * `randint(0, bound - 1)` as PySolFC computes it: `int(random() * bound)`
   * (pysol_cards `RandomBase.randint`; Python 2 `random.shuffle`), not
   * Python 3's rejection-sampling `randbelow`.
   */
  below(bound: number): number {
    return Math.floor(this.random() * bound);
  }
}

/**
 * PySolFC's unshuffled 52-card deck: suits in PySolFC's order Clubs, Spades,
 * Hearts, Diamonds, each Ace to King (pysol_cards `createCards`, suit letters
 * `'CSHD'`). The Microsoft generator instead starts from the Microsoft order
 * (`ms_rearrange`), which is `fullDeck()`.
 */
export function pysolfcDeck(): Card[] {
  const deck: Card[] = [];
  for (const suit of [0, 3, 2, 1]) for (let rank = 1; rank <= 13; rank++) deck.push(makeCard(rank, suit));
  return deck;
}

/**
 * The 52 cards of PySolFC game number `n` in dealing order (first element =
 * top of the talon = first card dealt), before any game-specific hook.
 *
 * - `n <= 32000`: Microsoft generator on the Microsoft-ordered deck, identical
 *   to Microsoft deal `n` ({@link msDealOrder}); 32000 follows pysol_cards and
 *   the reference vectors, not the current PySolFC application
 *   ({@link PYSOLFC_MS_LAST}).
 * - `n > 32000`: `random.Random(n)` Mersenne Twister, Fisher-Yates from the
 *   end with `j = int(random() * (i + 1))`, on {@link pysolfcDeck}.
 *
 * @param n game number; 0 .. 10^20-1 accepted here (validation of the public
 *   range 1 .. 10^20-1 is done by `generateDeal`).
 * @returns 52 card codes.
 * @throws RangeError when `n` is negative or above 10^20-1.
 */
export function pysolfcDealOrder(n: bigint): Card[] {
  if (n < 0n || n > PYSOLFC_MAX) throw new RangeError(`PySolFC game number out of range: ${n}`);
  if (n <= PYSOLFC_MS_LAST) return msDealOrder(n);
  return shuffleForDealing(pysolfcDeck(), new MersenneTwister(n));
}

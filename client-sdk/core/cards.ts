/**
 * Cards, ranks and suits: the one card encoding shared by the SDK, the
 * server and (as raw bytes) the Wasm engine.
 *
 * A card is a small integer `code = rank * 4 + suit`:
 * - rank 1..13 (Ace = 1, King = 13),
 * - suit 0..3 in Microsoft FreeCell's deck order: Clubs, Diamonds, Hearts, Spades
 *   (docs/rules.md, "Microsoft FreeCell numbers").
 * Codes therefore run from 4 (AC) to 55 (KS); 0 is never a card and means
 * "no card" wherever a byte slot may be empty.
 */

/** A card code, `rank * 4 + suit` (4..55). */
export type Card = number;

/** Suit index: 0 = Clubs, 1 = Diamonds, 2 = Hearts, 3 = Spades. */
export type Suit = 0 | 1 | 2 | 3;

/** Suit letters in suit-index order. */
export const SUIT_LETTERS = ['C', 'D', 'H', 'S'] as const;
/** A suit letter. */
export type SuitLetter = (typeof SUIT_LETTERS)[number];

/** Rank letters, index = rank (index 0 unused). */
export const RANK_LETTERS = ['', 'A', '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K'] as const;

/** Number of cards in the deck. */
export const DECK_SIZE = 52;

/** Builds a card code from rank (1..13) and suit (0..3). */
export function makeCard(rank: number, suit: number): Card {
  return rank * 4 + suit;
}

/** Rank 1..13 of a card code. */
export function rankOf(card: Card): number {
  return card >> 2;
}

/** Suit 0..3 of a card code. */
export function suitOf(card: Card): Suit {
  return (card & 3) as Suit;
}

/** True for Diamonds and Hearts. */
export function isRed(card: Card): boolean {
  const s = card & 3;
  return s === 1 || s === 2;
}

/** True when `card` is a valid card code (4..55). */
export function isCard(card: number): card is Card {
  return Number.isInteger(card) && card >= 4 && card <= 55;
}

/**
 * Text of a card in the fc-solve / standard form, e.g. `"TH"`, `"AS"`. The 52
 * codes 4..55 come from a table built once (the engine glue writes one per
 * solution move, and the checker looks each up again, so the same string
 * objects are cheaper than fresh ones); any other number is spelled out as
 * before.
 */
export function cardToString(card: Card): string {
  return CARD_TEXT[card] ?? RANK_LETTERS[rankOf(card)] + SUIT_LETTERS[suitOf(card)];
}

/** `cardToString` of codes 0..55, built once; undefined below 4 (no card). */
const CARD_TEXT: readonly (string | undefined)[] = Array.from({ length: 56 }, (_, code) =>
  code >= 4 ? RANK_LETTERS[code >> 2] + SUIT_LETTERS[code & 3] : undefined,
);

/**
 * Parses a card token: rank `A 2-9 T J Q K` (also `10`, `1`, lower case) followed
 * by a suit letter `C D H S`. Returns `null` when the token is not a card.
 */
export function parseCard(token: string): Card | null {
  // the 52 standard forms (as cardToString writes them) are read by their
  // two character codes: the engine's solutions carry them, and the checker
  // parses one per move
  if (token.length === 2) {
    const first = token.charCodeAt(0);
    const second = token.charCodeAt(1);
    if (first < 128 && second < 128 && STANDARD_RANKS[first] > 0 && STANDARD_SUITS[second] >= 0) return makeCard(STANDARD_RANKS[first], STANDARD_SUITS[second]);
  }
  const m = /^(10|[1-9]|[atjqk])([cdhs])$/i.exec(token.trim());
  if (!m) return null;
  const r = m[1].toUpperCase();
  const rank = r === '10' ? 10 : r === '1' ? 1 : RANK_LETTERS.indexOf(r as (typeof RANK_LETTERS)[number]);
  if (rank < 1) return null;
  const suit = SUIT_LETTERS.indexOf(m[2].toUpperCase() as SuitLetter);
  return makeCard(rank, suit);
}

/** Rank of each standard rank letter (`RANK_LETTERS`: A 2-9 T J Q K) by its character code below 128; 0 for any other. */
const STANDARD_RANKS = Int8Array.from({ length: 128 }, (_, code) => Math.max(0, RANK_LETTERS.indexOf(String.fromCharCode(code) as (typeof RANK_LETTERS)[number])));
/** Suit of each suit letter (`SUIT_LETTERS`: C D H S) by its character code below 128; -1 for any other. */
const STANDARD_SUITS = Int8Array.from({ length: 128 }, (_, code) => SUIT_LETTERS.indexOf(String.fromCharCode(code) as SuitLetter));

/** All 52 card codes in deck-index order (Ace of Clubs first, suit fastest). */
export function fullDeck(): Card[] {
  const deck: Card[] = [];
  for (let rank = 1; rank <= 13; rank++) for (let suit = 0; suit < 4; suit++) deck.push(makeCard(rank, suit));
  return deck;
}

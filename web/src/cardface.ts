/**
 * How a card looks: rank text and suit symbol. Colours live in styles.css
 * (`.suit-C` …): a four-colour deck (spades black, hearts vermilion, diamonds
 * blue, clubs bluish green, after the Okabe–Ito colour-blind-safe palette),
 * and every card also shows its rank and suit symbol, so colour is never the
 * only cue.
 */
import { type Card, rankOf, suitOf, SUIT_LETTERS } from '../../client-sdk/core/cards.js';

export const SUIT_SYMBOLS = ['♣', '♦', '♥', '♠'] as const;
export const SUIT_NAMES = ['clubs', 'diamonds', 'hearts', 'spades'] as const;
/** Rank as printed on a card face, index = rank. */
export const RANK_FACES = ['', 'A', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K'] as const;
const RANK_NAMES = ['', 'ace', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'jack', 'queen', 'king'] as const;

export interface Face {
  rank: string;
  symbol: string;
  suit: string;
  /** Spoken name, e.g. "queen of hearts". */
  name: string;
}

export function face(card: Card): Face {
  const r = rankOf(card);
  const s = suitOf(card);
  return { rank: RANK_FACES[r], symbol: SUIT_SYMBOLS[s], suit: SUIT_LETTERS[s], name: `${RANK_NAMES[r]} of ${SUIT_NAMES[s]}` };
}

/** A card text such as `TH` written for people: `10♥`. */
export function prettyCard(text: string): string {
  const m = /^([A2-9TJQK])([CDHS])$/.exec(text);
  if (!m) return text;
  return `${m[1] === 'T' ? '10' : m[1]}${SUIT_SYMBOLS[SUIT_LETTERS.indexOf(m[2] as (typeof SUIT_LETTERS)[number])]}`;
}

/**
 * The proof checker's own key encoder and decoder (docs/proofs.md, "Key
 * encoding"), written from the format, not from the engine: relative ranks
 * and key symbols, a position's canonical key, and a key back to a position.
 */
import { cardToString, makeCard, rankOf, suitOf, type Card } from '../cards.js';
import type { Layout, Rules } from '../rules.js';
import { Rejection } from './check-result.js';

// ---------------------------------------------------------------------------
// Relative ranks (docs/proofs.md, "Key encoding")
// ---------------------------------------------------------------------------

/** Relative rank 1..13 of a card: the foundation base is 1. */
export function relRank(card: Card, base: number): number {
  return ((rankOf(card) - base + 13) % 13) + 1;
}

/** Key symbol of a card: relRank * 4 + suit. */
function symbolOf(card: Card, base: number): number {
  return relRank(card, base) * 4 + suitOf(card);
}

/** The card a key symbol (4..55) stands for. */
function cardOfSymbol(symbol: number, base: number): Card {
  const rel = symbol >> 2;
  return makeCard(((rel - 1 + base - 1) % 13) + 1, symbol & 3);
}

// ---------------------------------------------------------------------------
// Keys
// ---------------------------------------------------------------------------

const ORDER = new Int32Array(32);
const SORT_KEY = new Int32Array(32);
const CELLS = new Int32Array(16);

/**
 * Writes the canonical key of `layout` into `out` (its whole length: the
 * certificate's key width, `keyBytesFor` in format.ts): columns
 * ascending by the symbol of their deepest card, empty columns last, each
 * deepest card first and ended by 0; then the cell cards in descending
 * symbol order, ended by 0; symbol k at bits 6k..6k+5, little-endian.
 */
export function encodeKey(layout: Layout, base: number, out: Uint8Array): void {
  out.fill(0);
  const columns = layout.columns;
  const m = columns.length;
  for (let i = 0; i < m; i++) {
    const key = columns[i].length === 0 ? 256 + i : symbolOf(columns[i][0], base);
    let j = i;
    while (j > 0 && SORT_KEY[j - 1] > key) {
      SORT_KEY[j] = SORT_KEY[j - 1];
      ORDER[j] = ORDER[j - 1];
      j--;
    }
    SORT_KEY[j] = key;
    ORDER[j] = i;
  }
  let bit = 0;
  for (let k = 0; k < m; k++) {
    const col = columns[ORDER[k]];
    for (let i = 0; i <= col.length; i++) {
      const symbol = i < col.length ? symbolOf(col[i], base) : 0;
      const byte = bit >> 3;
      const v = symbol << (bit & 7);
      out[byte] |= v & 0xff;
      if (v > 0xff) out[byte + 1] |= v >> 8;
      bit += 6;
    }
  }
  let cells = 0;
  for (const card of layout.freeCells) {
    if (card === null) continue;
    const sym = symbolOf(card, base);
    let j = cells++;
    while (j > 0 && CELLS[j - 1] < sym) {
      CELLS[j] = CELLS[j - 1];
      j--;
    }
    CELLS[j] = sym;
  }
  for (let i = 0; i <= cells; i++) {
    const symbol = i < cells ? CELLS[i] : 0;
    const byte = bit >> 3;
    const v = symbol << (bit & 7);
    out[byte] |= v & 0xff;
    if (v > 0xff) out[byte + 1] |= v >> 8;
    bit += 6;
  }
}

/** Symbol k of a key (0 .. its length · 8 / 6 − 1). */
function symbolAt(key: Uint8Array, k: number): number {
  const bit = 6 * k;
  const byte = bit >> 3;
  const shift = bit & 7;
  const lo = key[byte];
  const hi = byte + 1 < key.length ? key[byte + 1] : 0;
  return ((lo | (hi << 8)) >> shift) & 63;
}

/**
 * Decodes a key (of any width: `key.length` bytes) into a position: columns
 * in key order, the cells filled from cell 0 in key order, foundations from
 * the missing cards.
 * @throws Rejection `bad_position` when the key is not a valid position.
 */
export function decodeKey(key: Uint8Array, rules: Rules, index: number): Layout {
  const base = rules.foundationBase;
  const bad = (why: string) => new Rejection('bad_position', `position ${index} (key ${hex(key)}): ${why}`, { positionIndex: index });
  const seen = new Uint8Array(64);
  const SYMBOLS = Math.floor((key.length * 8) / 6);
  let k = 0;
  const next = (): number => {
    if (k >= SYMBOLS) throw bad('the key ends before its last terminator');
    return symbolAt(key, k++);
  };
  const take = (where: string): number | null => {
    const s = next();
    if (s === 0) return null;
    if (s < 4 || s > 55) throw bad(`symbol ${s} in ${where} is not a card (4..55)`);
    if (seen[s]) throw bad(`card ${cardToString(cardOfSymbol(s, base))} appears twice`);
    seen[s] = 1;
    return s;
  };
  const columns: Card[][] = [];
  for (let c = 0; c < rules.columns; c++) {
    const col: Card[] = [];
    for (let s = take(`column ${c}`); s !== null; s = take(`column ${c}`)) col.push(cardOfSymbol(s, base));
    columns.push(col);
  }
  const freeCells: (Card | null)[] = [];
  for (let s = take('the free cells'); s !== null; s = take('the free cells')) freeCells.push(cardOfSymbol(s, base));
  if (freeCells.length > rules.freeCells) throw bad(`${freeCells.length} cards in free cells, the rules have ${rules.freeCells}`);
  while (freeCells.length < rules.freeCells) freeCells.push(null);
  while (k < SYMBOLS) if (next() !== 0) throw bad('nonzero bits after the free cells');
  // Foundations: suit s holds relRanks 1..f, f = (lowest relRank in play) - 1; every card above must be in play.
  const foundations: [number, number, number, number] = [13, 13, 13, 13];
  for (let s = 0; s < 4; s++) {
    let r = 1;
    while (r <= 13 && !seen[r * 4 + s]) r++;
    foundations[s] = r - 1;
    for (; r <= 13; r++) {
      if (!seen[r * 4 + s]) {
        throw bad(`${cardToString(cardOfSymbol(r * 4 + s, base))} is missing but a lower card of its suit is in play (no foundation can hold it)`);
      }
    }
  }
  return { columns, freeCells, foundations };
}

/** The bytes as lower-case hex digits, two a byte. */
export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/**
 * The move type that every solution is made of, as it travels in JSON.
 *
 * Counting (documented in docs/api.md, "Solutions"): every entry of a solution is one move,
 * foundation moves included and auto-moves included; a sequence move
 * (supermove) of n cards is one move with `count = n`.
 */

import { cardToString, fullDeck } from './cards.js';

/**
 * Where a move starts. The order is part of the engine's output format (a
 * word's index is its code in a solution record, assembly/output.ts) and of
 * the batch store's move encoding.
 */
export const MOVE_SOURCES = ['column', 'cell'] as const;
/** One of {@link MOVE_SOURCES}. */
export type MoveSource = (typeof MOVE_SOURCES)[number];
/** Where a move ends; ordered as {@link MOVE_SOURCES}, `foundation` last. */
export const MOVE_TARGETS = ['column', 'cell', 'foundation'] as const;
/** One of {@link MOVE_TARGETS}. */
export type MoveTarget = (typeof MOVE_TARGETS)[number];

/**
 * One move, indices 0-based.
 * - `fromIndex`: the source column or free cell.
 * - `toIndex`: the target column or free cell; for `foundation` the suit index (0 C, 1 D, 2 H, 3 S).
 * - `count`: cards moved (1 unless a sequence move from column to column).
 * - `card`: the moved card, for a sequence move the deepest card of the moved run (e.g. `"9H"`).
 * - `auto`: true when the solver played it as a safe auto-move to the foundation.
 */
export interface Move {
  from: MoveSource;
  fromIndex: number;
  to: MoveTarget;
  toIndex: number;
  count: number;
  card: string;
  auto: boolean;
}

/** Bytes per move of {@link packMoves}. */
export const PACKED_MOVE_BYTES = 8;

/**
 * Packs moves into bytes, {@link PACKED_MOVE_BYTES} each: source kind (index
 * in {@link MOVE_SOURCES}), source index, target kind (index in
 * {@link MOVE_TARGETS}), target index, count, auto flag (0/1), and the card's
 * two ASCII characters (`"9H"`). Used where moves are stored or cross a
 * thread: the batch stores, and the pool's worker answers (a byte array is
 * cloned as one copy, where an array of move objects is cloned field by field).
 * Indices and counts must be 0..255 (they are: at most 10 columns, 8 cells, 52 cards).
 */
export function packMoves(moves: readonly Move[]): Uint8Array {
  const bytes = new Uint8Array(moves.length * PACKED_MOVE_BYTES);
  packMovesInto(moves, bytes, 0);
  return bytes;
}

/**
 * {@link packMoves} into `out` from byte `at` on (the pool's worker packs
 * every answer of a task into one buffer: server/pool/packing.ts).
 * @returns the byte after the last move written (`at` + 8 × moves).
 * @throws RangeError when `out` is too short (`moves.length` × 8 bytes from `at`).
 */
export function packMovesInto(moves: readonly Move[], out: Uint8Array, at: number): number {
  const end = at + moves.length * PACKED_MOVE_BYTES;
  if (end > out.length) throw new RangeError(`${moves.length} moves need ${end} bytes, the buffer has ${out.length}`);
  for (let i = 0, o = at; i < moves.length; i++, o += PACKED_MOVE_BYTES) {
    const m = moves[i];
    out[o] = m.from === 'column' ? 0 : MOVE_SOURCES.indexOf(m.from);
    out[o + 1] = m.fromIndex;
    out[o + 2] = m.to === 'foundation' ? 2 : MOVE_TARGETS.indexOf(m.to);
    out[o + 3] = m.toIndex;
    out[o + 4] = m.count;
    out[o + 5] = m.auto ? 1 : 0;
    out[o + 6] = m.card.charCodeAt(0);
    out[o + 7] = m.card.length > 1 ? m.card.charCodeAt(1) : 32;
  }
  return end;
}

/**
 * Move `i` of `bytes` (packed by {@link packMoves}) read into `into`, whose
 * fields are all overwritten; returns `into`. For a replay that looks at one
 * move at a time (the checker's `checkPackedSolution`): no object is made a
 * move. Bytes that name no source or target give `from` / `to` undefined,
 * which the checker rejects as a malformed move.
 * @throws RangeError when `bytes` holds no whole move `i`.
 */
export function readPackedMove(bytes: Uint8Array, i: number, into: Move): Move {
  const o = i * PACKED_MOVE_BYTES;
  if (!(i >= 0 && o + PACKED_MOVE_BYTES <= bytes.length)) throw new RangeError(`no packed move ${i} in ${bytes.length} bytes`);
  into.from = MOVE_SOURCES[bytes[o]];
  into.fromIndex = bytes[o + 1];
  into.to = MOVE_TARGETS[bytes[o + 2]];
  into.toIndex = bytes[o + 3];
  into.count = bytes[o + 4];
  into.card = cardText(bytes[o + 6], bytes[o + 7]);
  into.auto = bytes[o + 5] === 1;
  return into;
}

/**
 * Card texts by their two bytes when both are ASCII (`first << 7 | second`),
 * seeded with the standard forms as `cardToString` spells them, so that
 * unpacking a move allocates no string and looks up no map: the checker
 * replays every solution move by move (`checkPackedSolution`).
 */
const CARD_TEXTS: (string | undefined)[] = Array.from({ length: 128 * 128 }, () => undefined);
for (const card of fullDeck()) {
  const text = cardToString(card);
  CARD_TEXTS[(text.charCodeAt(0) << 7) | text.charCodeAt(1)] = text;
}

/** The card text of a packed move's two card bytes (`"9H"`): the standard forms from `CARD_TEXTS`, any other pair spelled out. */
function cardText(first: number, second: number): string {
  const text = first < 128 && second < 128 ? CARD_TEXTS[(first << 7) | second] : undefined;
  return text ?? String.fromCharCode(first, second);
}

/** The inverse of {@link packMoves}; trailing bytes short of a whole move are ignored. */
export function unpackMoves(bytes: Uint8Array): Move[] {
  const moves: Move[] = [];
  const count = Math.floor(bytes.length / PACKED_MOVE_BYTES);
  for (let i = 0; i < count; i++) moves.push(readPackedMove(bytes, i, { from: 'column', fromIndex: 0, to: 'column', toIndex: 0, count: 0, card: '', auto: false }));
  return moves;
}

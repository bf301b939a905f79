/**
 * The proof checker's pooled game (docs/proofs.md, "Pooled certificates"):
 * its own pooled key decoder and encoder, the pooled positions of steps 4
 * and 5, and step 6 under the pooled move rules. Written from docs/proofs.md,
 * sharing nothing with the engine (`assembly/`), its glue, or the pooling
 * code of the writing side (`client-sdk/core/pools.ts`).
 *
 * The pooled game of rules whose tableau never looks at suit (`rank` build,
 * no wrap): a card is known by its relative rank and its pool; a pool of k
 * suits has k interchangeable foundation piles, and a card of relRank r may
 * go on any pile of its pool holding r − 1. Everything else is the rules of
 * docs/rules.md: a card builds on any card one rank above, an empty column
 * takes what `emptyColumn` allows (`kings`: relRank 13), a free cell one
 * card, and a run of cards each one rank below the one under it moves as one
 * within the sequence-move capacity (verify.ts `sequenceCapacity`, which
 * reads only the empty cells and columns).
 */
import { RANK_LETTERS, SUIT_LETTERS, rankOf, suitOf } from '../cards.js';
import type { Move } from '../moves.js';
import type { Layout, Rules } from '../rules.js';
import { sequenceCapacity } from '../verify.js';
import { hex } from './check-keys.js';
import { Rejection, type MoveCounts, type ProofCheckOptions } from './check-result.js';
import { contains, WORDS } from './check-set.js';
import { KEY_BYTES } from './format.js';

/** A position of the pooled game: columns and cells of symbols (relRank * 4 + pool), foundations implied. */
export interface PooledPosition {
  /** Cards of each column, deepest first, as symbols. */
  columns: number[][];
  /** Cards in the free cells, as symbols (no empty entries). */
  cells: number[];
}

/**
 * The pools of a header as the pool of each suit (its lowest suit), and the
 * size of each pool (indexed by that lowest suit).
 * @throws Rejection `bad_header` unless every suit is in exactly one group,
 *   the letters of a group in the order C D H S, the groups ordered by their
 *   first letter, and some group of two suits or more.
 */
export function readPools(pools: readonly string[]): { poolOf: number[]; size: number[] } {
  const poolOf = [-1, -1, -1, -1];
  const size = [0, 0, 0, 0];
  let previous = -1;
  let merged = false;
  for (const group of pools) {
    const suits = [...group].map((letter) => SUIT_LETTERS.indexOf(letter as (typeof SUIT_LETTERS)[number]));
    const first = suits[0];
    if (first <= previous) throw new Rejection('bad_header', `header field pools: the groups must be ordered by their first suit (C D H S)`);
    previous = first;
    for (let i = 0; i < suits.length; i++) {
      const s = suits[i];
      if (s < 0 || (i > 0 && s <= suits[i - 1])) throw new Rejection('bad_header', `header field pools: ${JSON.stringify(group)} is not suit letters in the order C D H S`);
      if (poolOf[s] >= 0) throw new Rejection('bad_header', `header field pools: suit ${SUIT_LETTERS[s]} is in two groups`);
      poolOf[s] = first;
    }
    size[first] = suits.length;
    if (suits.length > 1) merged = true;
  }
  if (poolOf.some((p) => p < 0)) throw new Rejection('bad_header', 'header field pools: every suit must be in a group');
  if (!merged) throw new Rejection('bad_header', 'header field pools: no two suits are pooled (a real-game certificate has no pools)');
  return { poolOf, size };
}

/** Relative rank 1..13 of a real card (the foundation base is 1). */
function relRank(card: number, base: number): number {
  return ((rankOf(card) - base + 13) % 13) + 1;
}

/** Symbol k (0..63) of a key: bits 6k..6k+5 of the little-endian 384-bit integer. */
function symbolAt(key: Uint8Array, k: number): number {
  const bit = 6 * k;
  const byte = bit >> 3;
  const lo = key[byte];
  const hi = byte + 1 < KEY_BYTES ? key[byte + 1] : 0;
  return ((lo | (hi << 8)) >> (bit & 7)) & 63;
}

const SYMBOLS = (KEY_BYTES * 8) / 6;

/** -1, 0, 1 as column a sorts before, with or after column b: bytewise by symbols, a prefix first, empty columns last. */
function compareColumns(a: number[], b: number[]): number {
  if (a.length === 0 || b.length === 0) return a.length === b.length ? 0 : a.length === 0 ? 1 : -1;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length - b.length;
}

/**
 * Writes the pooled canonical key of `pos` into `out` (KEY_BYTES bytes):
 * the columns sorted by `compareColumns`, each deepest card first and ended
 * by 0; then the cell symbols descending, ended by 0; symbol k at bits
 * 6k..6k+5, little-endian; the rest zero.
 */
export function encodePooledKey(pos: PooledPosition, out: Uint8Array): void {
  out.fill(0);
  let bit = 0;
  const put = (symbol: number) => {
    const byte = bit >> 3;
    const v = symbol << (bit & 7);
    out[byte] |= v & 0xff;
    if (v > 0xff) out[byte + 1] |= v >> 8;
    bit += 6;
  };
  const columns = [...pos.columns].sort(compareColumns);
  for (const col of columns) {
    for (const s of col) put(s);
    put(0);
  }
  const cells = [...pos.cells].sort((a, b) => b - a);
  for (const s of cells) put(s);
  put(0);
}

/**
 * Decodes a pooled key: `rules.columns` columns in key order, then the cells.
 * Valid when every symbol is a card of a pool (relRank 1..13, its suit bits
 * the lowest suit of a pool), at most `rules.freeCells` cells, nothing after
 * the cells' terminator, and the foundations it implies exist: for each pool
 * of k suits, the number c_r of its cards of relRank r in play is at most k
 * and never falls as r grows (c_r = the piles holding less than r).
 * @throws Rejection `bad_position`
 */
export function decodePooledKey(key: Uint8Array, rules: Rules, poolOf: number[], size: number[], index: number): PooledPosition {
  const bad = (why: string) => new Rejection('bad_position', `position ${index} (pooled key ${hex(key)}): ${why}`, { positionIndex: index });
  const count = new Uint8Array(64);
  let k = 0;
  const next = (where: string): number => {
    if (k >= SYMBOLS) throw bad('the key ends before its last terminator');
    const s = symbolAt(key, k++);
    if (s === 0) return 0;
    if (s < 4 || s > 55 || poolOf[s & 3] !== (s & 3)) throw bad(`symbol ${s} in ${where} is not a card of a pool`);
    count[s]++;
    return s;
  };
  const columns: number[][] = [];
  for (let c = 0; c < rules.columns; c++) {
    const col: number[] = [];
    for (let s = next(`column ${c}`); s !== 0; s = next(`column ${c}`)) col.push(s);
    columns.push(col);
  }
  const cells: number[] = [];
  for (let s = next('the free cells'); s !== 0; s = next('the free cells')) cells.push(s);
  if (cells.length > rules.freeCells) throw bad(`${cells.length} cards in free cells, the rules have ${rules.freeCells}`);
  while (k < SYMBOLS) if (symbolAt(key, k++) !== 0) throw bad('nonzero bits after the free cells');
  for (let pool = 0; pool < 4; pool++) {
    if (size[pool] === 0) continue;
    let before = 0;
    for (let r = 1; r <= 13; r++) {
      const c = count[r * 4 + pool];
      if (c > size[pool]) throw bad(`${c} cards of rank ${RANK_LETTERS[r]} of pool ${poolName(pool, poolOf)} in play, the pool has ${size[pool]} suits`);
      if (c < before) throw bad(`fewer cards of rank ${RANK_LETTERS[r]} than of the rank below in pool ${poolName(pool, poolOf)}: no foundation can hold them`);
      before = c;
    }
  }
  return { columns, cells };
}

/** The pool's suit letters, e.g. "DH". */
function poolName(pool: number, poolOf: number[]): string {
  return SUIT_LETTERS.filter((_, s) => poolOf[s] === pool).join('');
}

/** A pooled card as text: relative rank letter and pool, e.g. "5[DH]". */
function symbolText(symbol: number, poolOf: number[]): string {
  return `${RANK_LETTERS[symbol >> 2]}[${poolName(symbol & 3, poolOf)}]`;
}

/** A pooled position as text, for counterexamples: one line per column, then the cells. */
export function pooledText(pos: PooledPosition, poolOf: number[]): string {
  const lines = pos.columns.map((col) => col.map((s) => symbolText(s, poolOf)).join(' '));
  lines.push(`cells: ${pos.cells.map((s) => symbolText(s, poolOf)).join(' ')}`);
  return lines.join('\n');
}

/**
 * The pooled position of a real one: each card's symbol is its relRank * 4 +
 * its suit's pool (the real foundations are implied by the cards in play).
 */
export function pooledFromLayout(layout: Layout, base: number, poolOf: number[]): PooledPosition {
  const symbol = (card: number) => relRank(card, base) * 4 + poolOf[suitOf(card)];
  return {
    columns: layout.columns.map((col) => col.map(symbol)),
    cells: layout.freeCells.filter((c): c is number => c !== null).map(symbol),
  };
}

/** True when the pooled position is won: no card in play. */
export function pooledIsWon(pos: PooledPosition): boolean {
  return pos.cells.length === 0 && pos.columns.every((col) => col.length === 0);
}

/**
 * True when a card of relRank r of `pool` may go to a foundation: some pile
 * of its pool holds r − 1. With c_j the pool's cards of relRank j in play
 * (c_0 = 0), the piles holding exactly r − 1 number c_r − c_(r−1).
 */
function fitsPooledFoundation(pos: PooledPosition, symbol: number): boolean {
  const r = symbol >> 2;
  let here = 0;
  let below = 0;
  const lower = symbol - 4;
  const tally = (s: number) => {
    if (s === symbol) here++;
    else if (s === lower) below++;
  };
  for (const col of pos.columns) for (const s of col) tally(s);
  for (const s of pos.cells) tally(s);
  return r === 1 ? here > 0 : here > below;
}

/**
 * The pooled auto-move closure (rule `rank_other_within_2_unpooled`,
 * docs/proofs.md "Pooled certificates"), on `pos` (mutated): repeatedly, an
 * exposed card (top of a column, or in a cell) of a suit pooled with no
 * other, of relRank r, goes home when it is next on its pile (the lowest card
 * of its suit in play) and every other pile holds at least r − 2 (no card of
 * another pool of relRank r − 2 or lower is in play). A card of a pool of two
 * suits or more never goes by itself. Order does not matter: piles only grow,
 * so such a card stays allowed and exposed until it goes.
 */
export function closePooled(pos: PooledPosition, size: number[]): void {
  const lowest = [14, 14, 14, 14];
  const scan = () => {
    lowest.fill(14);
    for (const col of pos.columns) for (const s of col) if (s >> 2 < lowest[s & 3]) lowest[s & 3] = s >> 2;
    for (const s of pos.cells) if (s >> 2 < lowest[s & 3]) lowest[s & 3] = s >> 2;
  };
  const goes = (s: number): boolean => {
    const pool = s & 3;
    const r = s >> 2;
    if (size[pool] !== 1 || lowest[pool] !== r) return false;
    for (let q = 0; q < 4; q++) if (q !== pool && size[q] > 0 && lowest[q] < r - 1) return false;
    return true;
  };
  let moved = true;
  while (moved) {
    moved = false;
    scan();
    for (let j = 0; j < pos.cells.length; j++) {
      if (goes(pos.cells[j])) {
        pos.cells.splice(j, 1);
        moved = true;
        break;
      }
    }
    if (moved) continue;
    for (const col of pos.columns) {
      if (col.length > 0 && goes(col[col.length - 1])) {
        col.pop();
        moved = true;
        break;
      }
    }
  }
}

/** A Layout of the pooled position's shape (the symbols as cards), for verify.ts `sequenceCapacity`, which reads only empty cells and columns. */
function shapeOf(pos: PooledPosition, rules: Rules): Layout {
  const freeCells: (number | null)[] = [...pos.cells];
  while (freeCells.length < rules.freeCells) freeCells.push(null);
  return { columns: pos.columns, freeCells, foundations: [0, 0, 0, 0] };
}

/**
 * Calls `visit` with every pooled move of `pos` and the position it leads
 * to after the pooled auto-move closure (`closePooled`; a new position,
 * `pos` is left as it is). The moves, with n cards in a column:
 * - a run of the top k cards (k = 1..n, each card one relRank below the one
 *   under it) onto another column whose top card is one relRank above the
 *   run's deepest card, or onto an empty column that accepts it
 *   (`emptyColumn`: `any`, `kings` relRank 13, `none` never), within the
 *   sequence-move capacity toward that column;
 * - the top card into an empty free cell, or to a foundation (see
 *   `fitsPooledFoundation`);
 * - a card of a free cell onto a column (as above) or to a foundation.
 * Every empty column and free cell is alike under the key, so one of each
 * is tried.
 */
export function forEachPooledMove(
  pos: PooledPosition,
  rules: Rules,
  poolOf: number[],
  size: number[],
  visit: (next: PooledPosition, move: Move) => void,
): void {
  const accepts = (symbol: number) => rules.emptyColumn === 'any' || (rules.emptyColumn === 'kings' && symbol >> 2 === 13);
  const buildsOn = (symbol: number, below: number) => (symbol >> 2) + 1 === below >> 2;
  const shape = shapeOf(pos, rules);
  const emptyColumn = pos.columns.findIndex((col) => col.length === 0);
  const look = (next: PooledPosition, move: Move) => {
    // the move's new arrays are its own; a column it did not touch is copied before the closure pops it
    const closed = { columns: next.columns.map((col) => col.slice()), cells: next.cells.slice() };
    closePooled(closed, size);
    visit(closed, move);
  };
  const moved = (cols: number[][], cells: number[]): PooledPosition => ({ columns: cols, cells });
  const move = (card: number, count: number, fromKind: 'column' | 'cell', fromIndex: number, toKind: 'column' | 'cell' | 'foundation', toIndex: number): Move => ({
    from: fromKind,
    fromIndex,
    to: toKind,
    toIndex,
    count,
    card: symbolText(card, poolOf),
    auto: false,
  });
  // from columns
  for (let c = 0; c < pos.columns.length; c++) {
    const col = pos.columns[c];
    const len = col.length;
    if (len === 0) continue;
    const top = col[len - 1];
    for (let k = 1; k <= len; k++) {
      if (k > 1 && !buildsOn(col[len - k + 1], col[len - k])) break; // not a sequence: no longer run is either
      const deepest = col[len - k];
      const run = col.slice(len - k);
      const rest = col.slice(0, len - k);
      for (let d = 0; d < pos.columns.length; d++) {
        if (d === c) continue;
        const dest = pos.columns[d];
        if (dest.length > 0 ? !buildsOn(deepest, dest[dest.length - 1]) : d !== emptyColumn || !accepts(deepest)) continue;
        if (k > sequenceCapacity(rules, shape, d)) continue;
        const cols = pos.columns.slice();
        cols[c] = rest;
        cols[d] = dest.concat(run);
        look(moved(cols, pos.cells), move(deepest, k, 'column', c, 'column', d));
      }
    }
    if (pos.cells.length < rules.freeCells) {
      const cols = pos.columns.slice();
      cols[c] = col.slice(0, len - 1);
      look(moved(cols, [...pos.cells, top]), move(top, 1, 'column', c, 'cell', pos.cells.length));
    }
    if (fitsPooledFoundation(pos, top)) {
      const cols = pos.columns.slice();
      cols[c] = col.slice(0, len - 1);
      look(moved(cols, pos.cells), move(top, 1, 'column', c, 'foundation', top & 3));
    }
  }
  // from cells
  for (let j = 0; j < pos.cells.length; j++) {
    const card = pos.cells[j];
    const cells = pos.cells.slice(0, j).concat(pos.cells.slice(j + 1));
    for (let d = 0; d < pos.columns.length; d++) {
      const dest = pos.columns[d];
      if (dest.length > 0 ? !buildsOn(card, dest[dest.length - 1]) : d !== emptyColumn || !accepts(card)) continue;
      const cols = pos.columns.slice();
      cols[d] = dest.concat([card]);
      look(moved(cols, cells), move(card, 1, 'cell', j, 'column', d));
    }
    if (fitsPooledFoundation(pos, card)) look(moved(pos.columns, cells), move(card, 1, 'cell', j, 'foundation', card & 3));
  }
}

/**
 * Step 6 of a pooled certificate for positions `from` .. `to - 1` of the
 * sorted set: from every position every pooled move (`forEachPooledMove`),
 * followed by the pooled auto-move closure, leads to a position in the set.
 * @throws Rejection `not_closed` at the first move whose result is missing.
 */
export function checkPooledMoves(
  rules: Rules,
  pools: readonly string[],
  body: Uint8Array,
  set: Uint32Array,
  from: number,
  to: number,
  options: ProofCheckOptions,
): MoveCounts {
  const { poolOf, size } = readPools(pools);
  const n = set.length / WORDS;
  const scratch = new Uint8Array(KEY_BYTES);
  const view = new DataView(scratch.buffer);
  const probe = new Uint32Array(WORDS);
  const every = options.progressEvery ?? 10_000;
  let movesChecked = 0;
  for (let i = from; i < to; i++) {
    const key = body.subarray(i * KEY_BYTES, (i + 1) * KEY_BYTES);
    const pos = decodePooledKey(key, rules, poolOf, size, i);
    forEachPooledMove(pos, rules, poolOf, size, (next, move) => {
      movesChecked++;
      encodePooledKey(next, scratch);
      for (let w = 0; w < WORDS; w++) probe[w] = view.getUint32(w * 4, false);
      if (!contains(set, n, probe)) {
        throw new Rejection('not_closed', `position ${i}: the pooled move ${move.card} ${move.from} ${move.fromIndex} to ${move.to} ${move.toIndex} (${move.count} cards) leads out of the set`, {
          positionIndex: i,
          position: pooledText(pos, poolOf),
          move,
          result: pooledText(next, poolOf),
          resultKey: hex(scratch),
        });
      }
    });
    if (options.onProgress && (i - from + 1) % every === 0) options.onProgress(i - from + 1, to - from);
  }
  return { movesTried: movesChecked, movesChecked };
}


/**
 * The layered complete pass of the no-cell Castle games (compact layout,
 * castle-key.ts): a measure of progress that no move lowers, the layer
 * stacks the pass expands in increasing measure, and the layer histogram.
 *
 * The measure (docs/engine.md, "The layered pass"; the idea is fc-solve's
 * fully-connected components, docs/search.md §3):
 *
 *   M(position) = cards on the foundations + incompatible dealt links broken
 *
 * A dealt link is a pair (card j, card j + 1) of start column d; it is
 * incompatible when card j + 1 may not be built on card j (rank build:
 * rank(j + 1) != rank(j) - 1, rules.ts `buildsOn`), and intact while the
 * column whose deepest card is start column d's deepest card still holds the
 * dealt cards 0..j + 1, i.e. while the compact key's prefix length p_d is at
 * least j + 2. Why no move lowers M:
 *   - the foundations only grow: no move of these games takes a card off a
 *     foundation (children.ts's moves leave from a column or a cell only);
 *   - a prefix length grows by one at a time (one card moves, auto-moves only
 *     go to the foundations), and p_d going from p to p + 1 means card p of
 *     start column d was put on card p - 1 (a legal build: that link is
 *     compatible) or, for p = 0, card 0 was put in an empty column (no link).
 *     So a broken incompatible link is never intact again.
 * Hence M(child) >= M(parent) for every move and auto-move, and M is a
 * function of the position (of its compact key: the foundations in bits
 * 0..15 and the prefix lengths after them). The pass checks the claim on
 * every child it makes (`layerViolations`, which ends the pass with an error
 * verdict rather than a wrong one); tests/unit/castle-layers.test.ts checks it
 * independently on random walks.
 *
 * So once no open position has M <= k, no later child has M <= k either, and
 * no later lookup can meet a stored position of layer k: layered-table.ts then drops
 * those keys (keeping each record's parent and move for the solution).
 */
import { rankOf } from './rules';
import { MAX_COLUMNS, columnLength, cardAt } from './position';
import { stackPush, stackPop } from './open-stack';

/** Values M may take: M < 52 + 52 (52 cards home, fewer than 52 links). */
export const MAX_MEASURE: i32 = 128;
/**
 * Groups a value of M is split into (a power of two): a layer is (M, group),
 * the group a hash of the position's *class*, the vector of its four
 * foundations and of each start column's broken incompatible links. Each of
 * those 12 numbers never falls along a move (the argument above holds for
 * each one), so a move either keeps the class or raises M; two classes of
 * the same M never reach each other, and the groups of one M can be expanded
 * and closed one after the other.
 */
export const GROUPS_SHIFT: i32 = 5;
export const GROUPS: i32 = 1 << GROUPS_SHIFT;
/** Layers a position may be in: M * GROUPS + group. */
export const MAX_LAYERS: i32 = MAX_MEASURE * GROUPS;
/** Most cards of a start column the tables cover (a compact prefix field is at most 6 bits). */
const MAX_PREFIX: i32 = 64;

/** Set by the host (`setLayeredSearch`): later solves of the compact layout run the layered pass. */
export let layeredRequested: bool = false;

/** Bit (from bit 16 of the key) and width of each start column's prefix length, as castle-key.ts `chooseLayout` lays them out. */
const SHIFT: usize = memory.data(MAX_COLUMNS);
const WIDTH: usize = memory.data(MAX_COLUMNS);
/** BROKEN[d * MAX_PREFIX + p]: incompatible links of start column d broken when its prefix length is p. */
const BROKEN: usize = memory.data(MAX_COLUMNS * MAX_PREFIX);
let columns: i32 = 0;

/** Stack heads (open-stack.ts) of the open positions of each layer. */
const HEADS: usize = memory.data(MAX_LAYERS * 4);
/** Positions stored in each layer (the histogram). */
const COUNTS: usize = memory.data(MAX_LAYERS * 4);

/** Host hook: run (true) or not (false, the default) the layered pass in later compact-layout solves. */
export function setLayeredSearch(on: bool): void {
  layeredRequested = on;
}

/**
 * Fills the measure's tables from the start position `start` (position.ts
 * layout, the same start columns castle-key.ts `chooseLayout` read) and
 * empties the layer stacks and the histogram. Call after `chooseLayout`
 * chose the compact layout and after `resetOpenStacks`.
 */
export function setupLayers(start: usize, numColumns: i32): void {
  columns = numColumns;
  let shift = 0;
  for (let d = 0; d < numColumns; d++) {
    const n = columnLength(start, d);
    const width = n == 0 ? 0 : 32 - <i32>clz(<u32>n);
    store<u8>(SHIFT + d, shift);
    store<u8>(WIDTH + d, width);
    shift += width;
    // BROKEN[p] = incompatible links j (0 <= j <= n - 2) with j + 2 > p
    for (let p = 0; p < MAX_PREFIX; p++) {
      let broken = 0;
      for (let j = 0; j + 1 < n; j++) {
        if (j + 2 <= p) continue;
        if (rankOf(cardAt(start, d, j + 1)) != rankOf(cardAt(start, d, j)) - 1) broken++;
      }
      store<u8>(BROKEN + d * MAX_PREFIX + p, broken);
    }
  }
  memory.fill(HEADS, 0, MAX_LAYERS * 4);
  memory.fill(COUNTS, 0, MAX_LAYERS * 4);
}

/**
 * The layer of the position whose compact key is at `key`: M * GROUPS + the
 * group of its class (0..MAX_LAYERS-1), where M is cards home plus
 * incompatible dealt links broken (`measureOfLayer` gives M back).
 */
export function layerOfKey(key: usize): i32 {
  const w = load<u64>(key);
  const f = <u32>w & 0xffff;
  let m = <i32>((f & 0xf) + ((f >> 4) & 0xf) + ((f >> 8) & 0xf) + ((f >> 12) & 0xf));
  const prefixes = w >> 16;
  // the class: the foundations and each column's broken count, hashed
  let h: u32 = f * 0x9e3779b1;
  for (let d = 0; d < columns; d++) {
    const width = <u64>load<u8>(WIDTH + d);
    const p = <i32>((prefixes >> <u64>load<u8>(SHIFT + d)) & ((<u64>1 << width) - 1));
    const b = <i32>load<u8>(BROKEN + d * MAX_PREFIX + p);
    m += b;
    h = (h ^ <u32>(b + 1 + (d << 6))) * 0x85ebca6b;
    h ^= h >> 15;
  }
  return (m << GROUPS_SHIFT) | <i32>(h >> (32 - GROUPS_SHIFT));
}

/** M of the positions of layer `layer`. */
export function measureOfLayer(layer: i32): i32 {
  return layer >> GROUPS_SHIFT;
}

/** Queues record `index` in layer `layer` (indices pushed on one layer increase: layered-table.ts gives each layer its own chunks). False when the memory ran out. */
export function pushLayer(index: u32, layer: i32): bool {
  return stackPush(HEADS + (<usize>layer << 2), index);
}

/** Takes an open record of layer `layer` (the last one queued); 0 when the layer has none. */
export function popLayer(layer: i32): u32 {
  return stackPop(HEADS + (<usize>layer << 2));
}

/** True when layer `layer` has an open record. */
export function layerHasOpen(layer: i32): bool {
  return load<u32>(HEADS + (<usize>layer << 2)) != 0;
}

/** Counts a stored record of layer `layer` in the histogram. */
// @ts-ignore: decorator
@inline export function countInLayer(layer: i32): void {
  const at = COUNTS + (<usize>layer << 2);
  store<u32>(at, load<u32>(at) + 1);
}

/** Positions the last layered solve stored in layer `layer` (0 outside 0..MAX_LAYERS-1). */
export function layerCount(layer: i32): u32 {
  if (layer < 0 || layer >= MAX_LAYERS) return 0;
  return load<u32>(COUNTS + (<usize>layer << 2));
}

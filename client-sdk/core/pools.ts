/**
 * Suit pools: the pooled game behind the pooled unsolvability proofs
 * (docs/proofs.md, "Pooled certificates"; docs/search.md §9).
 *
 * In a game whose tableau rules never look at suit (the Beleaguered Castle
 * family: `rank` build without wrap, any card or any top rank to an empty
 * column), merge suits into pools: a card is then known by rank and pool
 * only, and a pool's foundation piles are interchangeable (a card of rank r
 * goes on any pile of its pool that holds r − 1). Every move of the real game
 * is a move of the pooled game, so a pooled game with no solution proves the
 * real deal has none; a pooled solution proves nothing.
 *
 * A pooling is written as its groups of suit letters, every suit once, the
 * letters of a group in suit order (C D H S) and the groups ordered by their
 * first letter, singletons included: `["C", "DH", "S"]` pools ♦ with ♥;
 * `["CS", "DH"]` makes two pools of two. At least one group has two suits or
 * more (else it is the real game).
 */
import { NARROW_KEY_MAX_COLUMNS, type Rules } from './rules.js';
import { SUIT_LETTERS } from './cards.js';

/** A pooling: its groups of suit letters, canonical (see the module comment), e.g. `["C", "DH", "S"]`. */
export type SuitPools = readonly string[];

/**
 * The poolings a solve tries after an undecided full search, in this order:
 * the three pairings of two pools of two (docs/search.md §9: S&A 229 is
 * decided by ♣♠ + ♦♥), then the six single pools of two. Fewer pools first:
 * the pooled game is smaller, and it is still unsolvable whenever a finer
 * pooling of the same deal is (a coarser pooling's moves include the finer one's).
 */
export const POOLINGS_TO_TRY: readonly SuitPools[] = [
  ['CD', 'HS'],
  ['CH', 'DS'],
  ['CS', 'DH'],
  ['C', 'DH', 'S'],
  ['CS', 'D', 'H'],
  ['C', 'DS', 'H'],
  ['CH', 'D', 'S'],
  ['CD', 'H', 'S'],
  ['C', 'D', 'HS'],
];

/**
 * The pool of each suit (index 0..3 = C D H S) as the index of its pool's
 * lowest suit: `["C", "DH", "S"]` → `[0, 1, 1, 3]`.
 * @throws RangeError when `pools` is not a canonical pooling (module comment).
 */
export function poolRepresentatives(pools: SuitPools): [number, number, number, number] {
  const out: [number, number, number, number] = [-1, -1, -1, -1];
  let lastFirst = -1;
  let merged = false;
  for (const group of pools) {
    if (typeof group !== 'string' || group.length === 0) throw new RangeError(`a pool is a non-empty string of suit letters, got ${JSON.stringify(group)}`);
    const suits = [...group].map((letter) => SUIT_LETTERS.indexOf(letter as (typeof SUIT_LETTERS)[number]));
    if (suits.some((s) => s < 0)) throw new RangeError(`pool ${JSON.stringify(group)}: suit letters are C, D, H, S`);
    for (let i = 1; i < suits.length; i++) if (suits[i] <= suits[i - 1]) throw new RangeError(`pool ${JSON.stringify(group)}: its letters must be distinct and in the order C D H S`);
    if (suits[0] <= lastFirst) throw new RangeError(`pools ${JSON.stringify(pools)}: the pools must be ordered by their first suit`);
    lastFirst = suits[0];
    for (const s of suits) {
      if (out[s] >= 0) throw new RangeError(`pools ${JSON.stringify(pools)}: suit ${SUIT_LETTERS[s]} is in two pools`);
      out[s] = suits[0];
    }
    if (suits.length > 1) merged = true;
  }
  if (out.some((p) => p < 0)) throw new RangeError(`pools ${JSON.stringify(pools)}: every suit must be in a pool`);
  if (!merged) throw new RangeError(`pools ${JSON.stringify(pools)}: no two suits are pooled (that is the real game)`);
  return out;
}

/**
 * True when the pooled game is sound for `rules`: the tableau never looks at
 * suit (`rank` build, no wrap); cells (a reserve too), empty-column and
 * sequence-move rules do not look at suit under any setting. And its
 * certificate can be written: pooled keys are 48 bytes, so at most
 * NARROW_KEY_MAX_COLUMNS columns (Good Measure, Siegecraft and Stronghold,
 * not Baker's Dozen).
 */
export function poolingApplies(rules: Rules): boolean {
  return rules.build === 'rank' && !rules.wrap && rules.columns <= NARROW_KEY_MAX_COLUMNS;
}

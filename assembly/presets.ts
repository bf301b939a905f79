/**
 * The search's tuned settings, as data per game kind (after fc-solve's
 * presets): the weights of each scan's score (heuristic.ts), how many scans
 * take turns and how (open-lists.ts), and the lazy phase's quota and filter
 * (lazy.ts). `choosePreset` picks the settings for the rules in force at the
 * start of each solve. The values were tuned on positions expanded and
 * stored, by coordinate descent over deal ranges and checked on ranges the
 * tuning did not see, with the tools in tools/tuning/ (docs/engine.md,
 * "Tuned values"); the runs and their figures are in git history
 * (docs/engine.md "Search tuning" as kept at 1eca5a0).
 *
 * The tuning hooks (set*) fix a setting for every later solve, for those
 * tools; `resetHeuristicWeights` goes back to the presets.
 */
import { numCells, buildRule, emptyColumnRule, BUILD_ALTERNATE_COLOR, BUILD_RANK, BUILD_SUIT, EMPTY_ANY, EMPTY_KINGS } from './rules';

/** Most scans: open lists over the same positions, each ordered by its own score, taking turns (open-lists.ts). */
export const SCANS: i32 = 4;

// ---------------------------------------------------------------------------
// Game kinds

/** Alternate colours, Kings only into an empty column (Forecell). */
const KIND_FORECELL: i32 = 0;
/** Alternate colours otherwise (FreeCell, Relaxed FreeCell, King Albert). */
const KIND_FREECELL: i32 = 1;
/** Any-suit building (Beleaguered Castle, Streets and Alleys, Citadel, Siegecraft, Stronghold, Baker's Dozen, Good Measure; the pooled game). */
const KIND_RANK: i32 = 2;
/** Suit building, Kings only into an empty column, at most four cells (Seahaven Towers and its variants, King's-only Baker's Game, Fan). */
const KIND_SEAHAVEN: i32 = 3;
/** Suit building, any card into an empty column (Baker's Game, Relaxed Seahaven Towers). */
const KIND_BAKERS: i32 = 4;
/** Every other rule set (Eight Off and Penguin: suit building, Kings only, more cells; Fortress: suit up or down). */
const KIND_OTHER: i32 = 5;

/** The game kind of the rules in force. */
function gameKind(): i32 {
  if (buildRule == BUILD_ALTERNATE_COLOR) return emptyColumnRule == EMPTY_KINGS ? KIND_FORECELL : KIND_FREECELL;
  if (buildRule == BUILD_RANK) return KIND_RANK;
  if (buildRule == BUILD_SUIT && emptyColumnRule == EMPTY_KINGS && numCells <= 4) return KIND_SEAHAVEN;
  if (buildRule == BUILD_SUIT && emptyColumnRule == EMPTY_ANY) return KIND_BAKERS;
  return KIND_OTHER;
}

// ---------------------------------------------------------------------------
// Weights

/** Weights of one scan, in this order (WEIGHT_COUNT i32 each, the last unused). */
export const W_NOT_HOME: i32 = 0;
export const W_UNSORTED: i32 = 1;
export const W_CELL: i32 = 2;
export const W_EMPTY_COLUMN: i32 = 3;
export const W_NEXT_DEPTH: i32 = 4;
/**
 * Which cards the W_UNSORTED weight counts. 0: cards below the top movable
 * run; 1: cards above the natural sequence on the column's bottom; 2: cards
 * above a lower card of their own suit in their column (heuristic.ts
 * `blockedIn`); 3: the sum of 1 and 2.
 */
export const W_MODE: i32 = 5;
/** Sixteenths of a score point per move of depth: a little breadth against greedy plateaus. */
export const W_DEPTH: i32 = 6;
const WEIGHT_COUNT: i32 = 8;
const KIND_WEIGHT_BYTES: i32 = SCANS * WEIGHT_COUNT * 4;

/**
 * The tuned weights, per game kind (rows in KIND_* order), per scan: not
 * home, unsorted, cell, empty column, next depth, mode, depth, (unused).
 * A scan with W_NOT_HOME 0 (FreeCell's scan 2) ignores the cards not home.
 * Baker's Game runs two scans, so its scans 2 and 3 are never read.
 */
const TUNED_WEIGHTS: usize = memory.data<i32>([
  // KIND_FORECELL
  5, 3, 5, 6, 2, 0, 32, 0,
  3, 3, 4, 7, 3, 0, 64, 0,
  1, 3, 8, 7, 0, 0, 32, 0,
  3, 7, 6, 6, 1, 0, 48, 0,
  // KIND_FREECELL
  6, 3, 6, 6, 2, 0, 32, 0,
  5, 3, 6, 4, 4, 0, 48, 0,
  0, 3, 6, 5, 0, 0, 32, 0,
  2, 7, 6, 6, 1, 0, 48, 0,
  // KIND_RANK
  6, 3, 4, 6, 2, 1, 48, 0,
  6, 3, 4, 6, 2, 0, 24, 0,
  6, 3, 4, 6, 2, 1, 96, 0,
  6, 2, 6, 8, 1, 0, 32, 0,
  // KIND_SEAHAVEN: three scans count the cards above a lower card of their
  // suit (mode 2), which an empty column, open to Kings only, cannot take
  // away cheaply
  3, 7, 7, 5, 2, 2, 24, 0,
  4, 7, 4, 6, 4, 2, 32, 0,
  3, 4, 4, 2, 1, 2, 64, 0,
  4, 4, 8, 6, 0, 1, 32, 0,
  // KIND_BAKERS
  6, 2, 7, 6, 2, 1, 24, 0,
  2, 4, 5, 9, 1, 0, 32, 0,
  6, 3, 2, 6, 2, 0, 64, 0,
  6, 2, 6, 8, 1, 1, 32, 0,
  // KIND_OTHER
  6, 3, 4, 6, 2, 1, 24, 0,
  6, 3, 2, 6, 2, 0, 32, 0,
  6, 3, 2, 6, 2, 0, 64, 0,
  6, 2, 6, 8, 1, 1, 32, 0,
]);

/** The weights of this solve, per scan (WEIGHT_COUNT i32 each). */
const WEIGHTS: usize = memory.data(KIND_WEIGHT_BYTES);
let weightsOverridden: bool = false;

/** Weight `w` (W_*) of scan `scan` in this solve. */
// @ts-ignore: decorator
@inline export function weight(scan: i32, w: i32): i32 {
  return load<i32>(WEIGHTS + (<usize>(scan * WEIGHT_COUNT + w) << 2));
}

// ---------------------------------------------------------------------------
// Scans, prelude, lazy phase

/**
 * Per game kind (KIND_* order): the scans that take turns; the items of
 * scan 0's prelude (taken alone before the turns start: most deals are won
 * by one good dive, and strict turns from the start make every scan pay
 * for a dive of its own; after fc-solve's prelude of quotas,
 * docs/search.md §1); the positions the lazy phase may store before the
 * search goes on eagerly (lazy.ts `handOver`); and whether the lazy phase
 * filters its pending moves by hash (seen.ts). Alternate-colour building
 * (the FreeCell family: nearly every deal solvable, won in the lazy phase)
 * has the large quota and the filter; suit and any-suit building (many
 * unsolvable deals, whose time goes to the eager phase) the small quota and
 * no filter; Baker's Game expands as many positions with two scans as with
 * four, at half the scores a child.
 */
const KIND_SETTINGS: usize = memory.data<u32>([
  // scans, prelude items, lazy quota, lazy filter
  4, 150, 100000, 1, // KIND_FORECELL
  4, 0, 100000, 1, // KIND_FREECELL
  4, 0, 1000, 0, // KIND_RANK
  4, 0, 1000, 0, // KIND_SEAHAVEN
  2, 0, 1000, 0, // KIND_BAKERS
  4, 0, 1000, 0, // KIND_OTHER
]);
const SET_SCANS: i32 = 0;
const SET_PRELUDE: i32 = 1;
const SET_LAZY_QUOTA: i32 = 2;
const SET_LAZY_FILTER: i32 = 3;

// @ts-ignore: decorator
@inline function kindSetting(kind: i32, field: i32): u32 {
  return load<u32>(KIND_SETTINGS + (<usize>(kind * 4 + field) << 2));
}

/**
 * Items a scan may take in a row in the lazy phase while its best item is a
 * move of the position just expanded or held, so that a dive needs no
 * rebuild of its parent from its key (open-lists.ts `popNext`).
 */
const SCAN_STICK: u32 = 16;

/** Scans of this solve (the kind's, unless a tuning run fixed them). */
export let ruleScans: i32 = SCANS;
/** Scan count fixed by a tuning run (0: the kind's). */
let scanCountOverride: i32 = 0;
/** The scan that takes the first `preludeItems` items of a solve alone. */
export let preludeScan: i32 = 0;
export let preludeItems: u32 = 0;
let preludeOverridden: bool = false;
/** Items a scan takes in a row before the next scan's turn (fc-solve's soft-thread step; 1: strict turns). */
export let scanStep: u32 = 1;
/** See SCAN_STICK (0: strict turns). */
export let scanStick: u32 = SCAN_STICK;
/** Positions the lazy phase of this solve may store before the hand-over. */
export let lazyQuota: u32 = 0;
let lazyQuotaOverridden: bool = false;
/** Whether this solve's lazy phase filters its pending moves by hash (seen.ts). */
export let lazyFilter: bool = false;
/** `setLazyFilter`'s mode: 0 never, 1 the kind's setting, 2 every game. */
let lazyFilterMode: i32 = 1;

/** Sets this solve's weights, scans, prelude, lazy quota and filter from the rules in force and the tuning hooks. */
export function choosePreset(): void {
  const kind = gameKind();
  if (!preludeOverridden) {
    preludeScan = 0;
    preludeItems = kindSetting(kind, SET_PRELUDE);
  }
  if (!weightsOverridden) memory.copy(WEIGHTS, TUNED_WEIGHTS + <usize>(kind * KIND_WEIGHT_BYTES), <usize>KIND_WEIGHT_BYTES);
  ruleScans = scanCountOverride > 0 ? scanCountOverride : <i32>kindSetting(kind, SET_SCANS);
  if (!lazyQuotaOverridden) lazyQuota = kindSetting(kind, SET_LAZY_QUOTA);
  lazyFilter = lazyFilterMode == 2 || (lazyFilterMode == 1 && kindSetting(kind, SET_LAZY_FILTER) != 0);
}

// ---------------------------------------------------------------------------
// Tuning hooks (exported by the tuning build, tuning.ts: tools/tuning/ and tests only)

/** Tuning hook: fixes the weights of one scan for every later solve (the order of W_*). */
export function setHeuristicWeights(scan: i32, notHome: i32, unsorted: i32, cell: i32, emptyColumn: i32, nextDepth: i32, mode: i32, depth: i32): void {
  const at = WEIGHTS + (<usize>(scan * WEIGHT_COUNT) << 2);
  store<i32>(at, notHome, 0);
  store<i32>(at, unsorted, 4);
  store<i32>(at, cell, 8);
  store<i32>(at, emptyColumn, 12);
  store<i32>(at, nextDepth, 16);
  store<i32>(at, mode, 20);
  store<i32>(at, depth, 24);
  weightsOverridden = true;
}

/** Tuning hook: back to the presets' weights, scan count, prelude and scan stick. */
export function resetHeuristicWeights(): void {
  weightsOverridden = false;
  scanCountOverride = 0;
  preludeOverridden = false;
  scanStick = SCAN_STICK;
}

/** Tuning hook: scans of every later solve, 1..4 (0: the kind's). */
export function setScanCount(n: i32): void {
  scanCountOverride = n < 0 ? 0 : n > SCANS ? SCANS : n;
}

/** Tuning hook: the first `items` items of every later solve are taken by scan `scan` alone (0 items: no prelude). */
export function setScanPrelude(scan: i32, items: u32): void {
  preludeScan = scan < 0 ? 0 : scan >= SCANS ? SCANS - 1 : scan;
  preludeItems = items;
  preludeOverridden = true;
}

/** Tuning hook: items a scan takes in a row (1 = strict turns). */
export function setScanStep(step: u32): void {
  scanStep = step < 1 ? 1 : step;
}

/** Tuning hook: items a scan may take in a row while its best pending move is one of the held position's, for every later solve (0: strict turns; `resetHeuristicWeights` restores SCAN_STICK). */
export function setScanStick(items: u32): void {
  scanStick = items;
}

/** Tuning hook: positions the lazy phase may store before the hand-over, for every later solve (0: the kind's). */
export function setLazyQuota(quota: u32): void {
  lazyQuota = quota;
  lazyQuotaOverridden = quota != 0;
}

/** Test hook: when the lazy phase uses its filter, for every later solve (0 never, 1 the kind's setting: the default, 2 in every game). */
export function setLazyFilter(mode: i32): void {
  lazyFilterMode = mode;
}

/**
 * What the modules of one search share: its verdicts and stop reasons, the
 * positions it plays moves on, the host's stop polls, and the running state
 * of a solve (`Search`).
 *
 * search.ts drives a solve through its phases (lazy.ts, the eager and
 * layered loops) and shard-pass.ts a shard of the layered pass; they expand
 * positions through children.ts, which queues the children in the open
 * lists (open-lists.ts) scored by heuristic.ts. The state those modules
 * hand each other lives here, in `Search`'s static fields (Wasm globals, as
 * module variables are), each saying who sets it.
 */
import { pollStop } from './host';
import { POSITION_BYTES, OFF_CARDS, copyHeader } from './position';
import { MAX_KEY_BYTES } from './key';
import { SCANS } from './presets';

export const VERDICT_SOLVED: i32 = 0;
export const VERDICT_UNSOLVABLE: i32 = 1;
export const VERDICT_UNKNOWN: i32 = 2;
export const VERDICT_ERROR: i32 = 3;

export const REASON_NONE: i32 = 0;
export const REASON_MAX_STATES: i32 = 1;
export const REASON_TIMEOUT: i32 = 2;
export const REASON_MEMORY: i32 = 3;
export const REASON_CANCELLED: i32 = 4;

// ---------------------------------------------------------------------------
// Positions

/** The start position of the solve, as the input block gave it (input.ts). */
export const START: usize = memory.data(POSITION_BYTES);
/**
 * The position being expanded. Children are made in place: children.ts plays
 * a move on PARENT itself, handles the child, and puts PARENT back by
 * restoring its header from SAVED_HEADER (column lengths, free cells,
 * foundations: the first HEADER_BYTES bytes). That is enough because a move
 * and the auto-moves after it change card bytes only past the end of a
 * column (where the moved cards land), and bytes past a column's length are
 * not part of the position.
 */
export const PARENT: usize = memory.data(POSITION_BYTES);
/** A key being looked up (key.ts or castle-key.ts layout). */
export const KEY: usize = memory.data(MAX_KEY_BYTES);
export const HEADER_BYTES: i32 = OFF_CARDS;
/** The header of the position being expanded, saved before its children are made (see PARENT). */
export const SAVED_HEADER: usize = memory.data(HEADER_BYTES);

// @ts-ignore: decorator
@inline export function saveHeader(p: usize): void {
  copyHeader(SAVED_HEADER, p);
}

// @ts-ignore: decorator
@inline export function restoreHeader(p: usize): void {
  copyHeader(p, SAVED_HEADER);
}

// ---------------------------------------------------------------------------
// The running solve

/** The state one solve's modules hand each other (static fields only: never instantiated). */
export class Search {
  /** Why the search must stop (REASON_*; REASON_NONE while it may go on): set by whoever meets the cut. */
  static stopReason: i32 = REASON_NONE;
  /** The record of a won position once one is stored (0: none yet). */
  static goalIndex: u32 = 0;
  /** Items taken from the open lists this solve (both phases): paces the polls (`mustStop`) and the prelude (open-lists.ts). */
  static polls: u32 = 0;
  /**
   * True in the lazy phase (lazy.ts): the open lists hold pending moves
   * (pending.ts); else stored records. Set by search.ts, cleared by the
   * hand-over.
   */
  static lazyPhase: bool = false;
  /** Scans of the current phase (presets.ts `ruleScans`, or all SCANS after a solve). */
  static activeScans: i32 = SCANS;
  /** Moves from the start to the position being expanded (move.ts depth), set before each expansion. */
  static parentDepth: i32 = 0;
  /**
   * The card the move into PARENT moved, when its moves in PARENT can only
   * repeat positions already generated (0 otherwise; children.ts
   * `repeatCardOf`, set before each expansion). Let G be the position the
   * record was first reached from, and PARENT = G plus one single-card move
   * of card c (not to a foundation) with no auto-move after it. Then a card
   * other than c is exposed in PARENT but not in G only where c left (the
   * card c sat on, or an empty column or free cell), and foundations are as
   * in G. So a move of c in PARENT either puts c back (giving G) or takes it
   * where it could have gone from G, with the same result as that move from
   * G: a sibling, generated when G was expanded (a position is expanded only
   * after its parent). (When c left a reserve cell, no move puts it back,
   * and every other move of c could have been made from the cell in G.)
   * Skipping these moves changes no stored position, only
   * saves lookups; the set of positions explored, and so every verdict and
   * proof certificate, stays the same.
   */
  static repeatCard: i32 = 0;
  /**
   * The record whose position PARENT held, in the same column order, when it
   * was last measured by an expansion (so heuristic.ts's per-column terms,
   * the card places and SAVED_HEADER describe it); 0 after PARENT was rebuilt
   * from a key or the terms were overwritten. The lazy phase then measures a
   * new child of it from the parent's terms.
   */
  static measuredHeld: u32 = 0;
  /** The lazy phase could not get memory for a pending move: the solve falls back to the eager search. */
  static lazyOutOfMemory: bool = false;
  /** Hash (board.ts `positionHash`) of the position the lazy phase is expanding, when it filters (presets.ts `lazyFilter`). */
  static expandHash: u64 = 0;
  /** The eager and layered loops look up an expansion's children together (children.ts `lookupChildren`). */
  static batching: bool = false;
  /** The layer the layered pass expands: every open position is in it or above it. */
  static currentLayer: i32 = 0;
  /** Children the layered pass made below the layer it expanded (a broken measure: the pass then ends with VERDICT_ERROR). */
  static layerViolations: u32 = 0;
}

/** Positions expanded by the current or last solve (both phases). */
export let statesExpanded: u32 = 0;

// @ts-ignore: decorator
@inline export function countExpansion(): void {
  statesExpanded++;
}

export function resetExpansions(): void {
  statesExpanded = 0;
}

// ---------------------------------------------------------------------------
// Stop polls

/** Items taken between two polls of the host's stop flag and clock. */
export const POLL_INTERVAL: u32 = 512;

/** Counts an item taken and polls the host every POLL_INTERVAL items; true when the search must stop (`Search.stopReason` set). */
// @ts-ignore: decorator
@inline export function mustStop(): bool {
  Search.polls++;
  if (Search.polls % POLL_INTERVAL == 0) {
    const reason = pollStop();
    if (reason != 0) {
      Search.stopReason = reason;
      return true;
    }
  }
  return false;
}

/**
 * The host's stop check of the loops over every pending move (lazy.ts
 * `handOver`, `verifySkipped`): polls every POLL_INTERVAL * 16 entries
 * (`item` is the entry's number, 1-based) and records the host's reason in
 * `Search.stopReason`. True when the search must stop.
 */
// @ts-ignore: decorator
@inline export function mustStopAtEntry(item: u32): bool {
  if (item % (POLL_INTERVAL * 16) != 0) return false;
  const reason = pollStop();
  if (reason == 0) return false;
  Search.stopReason = reason;
  return true;
}

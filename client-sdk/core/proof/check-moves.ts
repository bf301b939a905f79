/**
 * Step 6 of the proof check (check.ts lists the steps): from every position
 * of the set, every legal move, followed by the auto-move closure, leads
 * into the set. Which moves are legal is decided by verify.ts, the rules
 * checker that replays every solution.
 */
import { formatBoard } from '../board.js';
import { cardToString, suitOf, type Card } from '../cards.js';
import type { Move } from '../moves.js';
import type { Layout } from '../rules.js';
import { applyMove, checkMove, moveFault } from '../verify.js';
import { closeUnderAutoMoves } from './check-auto-moves.js';
import { decodeKey } from './check-keys.js';
import type { Prepared } from './check-prepare.js';
import { Rejection, type MoveCounts, type ProofCheckOptions } from './check-result.js';
import { makeLookup } from './check-set.js';

const CARD_TEXT: string[] = Array.from({ length: 56 }, (_, c) => (c >= 4 ? cardToString(c) : ''));

/** A move in words, for counterexamples. */
export function describeMove(move: Move): string {
  const where = (kind: string, i: number) => (kind === 'foundation' ? `foundation ${'CDHS'[i]}` : `${kind === 'cell' ? 'free cell' : 'column'} ${i}`);
  const what = move.count > 1 ? `${move.count} cards from ${move.card}` : move.card;
  return `${what}: ${where(move.from, move.fromIndex)} to ${where(move.to, move.toIndex)}`;
}

/**
 * How step 6 looks a move's result up: `has(next, parent, parentIndex)` says whether the
 * position `next` (after the closure), reached from `parent` (position
 * `parentIndex` of the range checked), is accounted for (the v1 check: in the set, `makeLookup`; the layered check: in the
 * layer, or pending for a later one, check-layered.ts); it may throw a
 * `Rejection` of its own. `lastKeyHex` is the key of the last `next` asked about.
 */
export interface SetLookup {
  has(next: Layout, parent: Layout, parentIndex: number): boolean;
  lastKeyHex(): string;
}

/**
 * Step 6 for positions `from` .. `to - 1`. Every candidate move goes to
 * `checkMove`, except those its documented checks reject whatever the
 * skipped part is (`exhaustive` turns these skips off; tests hold both modes
 * to the same legal moves):
 * - a target equal to the source (its check 3);
 * - more than one card to a cell or a foundation (its check 4);
 * - a foundation other than the card's suit (its check 8: "the foundation of
 *   the card's suit");
 * - a free cell that holds a card (its check 8: "an empty cell");
 * - one card onto a non-empty column is asked once per (card, top card) pair
 *   and the verdict remembered: for such a candidate checks 0-7 pass (valid
 *   rules and shape, the card is where the move says, a single card is a
 *   sequence, capacity applies only to runs) and check 8 reads only the two
 *   cards. The legal ones are still played and looked up in every position;
 * - a count whose run is not a sequence (its check 6, which reads only the
 *   source), and every larger count from that column, whose run contains
 *   it; likewise a count over the sequence-move capacity toward a non-empty
 *   column (its check 7: the capacity is largest toward a non-empty column,
 *   where e counts every empty column, and does not depend on the count).
 *   One probe per count, toward another column (a non-empty one when there
 *   is one), decides.
 * `setLookup` replaces the lookup in `prepared.set` (the layered check's).
 * @throws Rejection `not_closed` at the first move whose result is missing.
 */
export function checkMoves(prepared: Prepared, from: number, to: number, options: ProofCheckOptions, setLookup?: SetLookup): MoveCounts {
  const { header, rule, body, set, keyBytes } = prepared;
  const rules = header.rules;
  const base = rules.foundationBase;
  const n = header.positions;
  const lookup: SetLookup = setLookup ?? makeLookup(set, n, base, keyBytes);
  const exhaustive = options.exhaustive === true;
  const progressEvery = options.progressEvery ?? 10_000;
  const move: Move = { from: 'column', fromIndex: 0, to: 'column', toIndex: 0, count: 1, card: '', auto: false };
  let movesTried = 0;
  let movesChecked = 0;
  // checkMove's verdict on one card onto a non-empty column, by (card, top card): -1 not asked yet, 0 illegal, 1 legal.
  const singleOnTop = new Int8Array(64 * 64).fill(-1);
  let layout: Layout;
  let index = 0;

  const tryMove = (): void => {
    movesTried++;
    if (checkMove(rules, layout, move) === null) follow();
  };
  /** Plays the legal `move` and looks its result up. */
  const follow = (): void => {
    movesChecked++;
    const next = applyMove(rules, layout, move);
    closeUnderAutoMoves(next, rule, base);
    if (!lookup.has(next, layout, index)) {
      const played = { ...move };
      throw new Rejection('not_closed', `position ${index}: the legal move ${describeMove(played)} leads (after auto-moves) to a position that is not in the set`, {
        header,
        positionIndex: index,
        position: formatBoard(layout, rules),
        move: played,
        result: formatBoard(next, rules),
        resultKey: lookup.lastKeyHex(),
      });
    }
  };
  const tryTargets = (card: Card): void => {
    const isColumn = move.from === 'column';
    for (let t = 0; t < rules.columns; t++) {
      if (!exhaustive && isColumn && t === move.fromIndex) continue;
      move.to = 'column';
      move.toIndex = t;
      const target = layout.columns[t];
      if (!exhaustive && move.count === 1 && target.length > 0) {
        const pair = card * 64 + target[target.length - 1];
        if (singleOnTop[pair] < 0) {
          movesTried++;
          singleOnTop[pair] = checkMove(rules, layout, move) === null ? 1 : 0;
        }
        if (singleOnTop[pair] === 1) follow();
        continue;
      }
      tryMove();
    }
    if (!exhaustive && move.count > 1) return;
    for (let t = 0; t < rules.freeCells; t++) {
      if (!exhaustive && layout.freeCells[t] !== null) continue;
      move.to = 'cell';
      move.toIndex = t;
      tryMove();
    }
    for (let t = 0; t < 4; t++) {
      if (!exhaustive && t !== suitOf(card)) continue;
      move.to = 'foundation';
      move.toIndex = t;
      tryMove();
    }
  };

  for (index = from; index < to; index++) {
    layout = decodeKey(body.subarray(index * keyBytes, (index + 1) * keyBytes), rules, index);
    for (let c = 0; c < layout.columns.length; c++) {
      const col = layout.columns[c];
      move.from = 'column';
      move.fromIndex = c;
      let probe = -1;
      for (let t = 0; t < rules.columns; t++) {
        if (t === c) continue;
        if (layout.columns[t].length > 0) {
          probe = t;
          break;
        }
        if (probe < 0) probe = t;
      }
      const probeNonEmpty = probe >= 0 && layout.columns[probe].length > 0;
      for (let count = 1; count <= col.length; count++) {
        const card = col[col.length - count];
        move.count = count;
        move.card = CARD_TEXT[card];
        if (!exhaustive && count > 1 && probe >= 0) {
          move.to = 'column';
          move.toIndex = probe;
          movesTried++;
          const why = moveFault(rules, layout, move)?.check;
          if (why === 'run_not_a_sequence' || (probeNonEmpty && why === 'over_capacity')) break;
        }
        tryTargets(card);
      }
    }
    for (let s = 0; s < layout.freeCells.length; s++) {
      const card = layout.freeCells[s];
      if (card === null) continue;
      move.from = 'cell';
      move.fromIndex = s;
      move.count = 1;
      move.card = CARD_TEXT[card];
      tryTargets(card);
    }
    if (options.onProgress && (index + 1 - from) % progressEvery === 0) options.onProgress(index + 1 - from, to - from);
  }
  return { movesTried, movesChecked };
}

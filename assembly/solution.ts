/**
 * The solution: the path of moves from the start to a won record, replayed
 * on the real start position (real column and cell numbers) into the output
 * buffer (output.ts), each move followed by the safe auto-moves it triggers.
 * The stored moves name cards, not columns (move.ts), so a path found on
 * canonical positions replays on the deal as dealt.
 */
import { recordAt, recordParent, recordMove } from './records';
import { MOVE_BITS, moveCard, moveCount } from './move';
import { resetOutput, writeMove, outputOverflow } from './output';
import { copyPosition, isWon, applyAutoMoves } from './position';
import { applyMove, playedSrcKind, playedSrcIndex, playedDstKind, playedDstIndex } from './board';
import { START, PARENT } from './search-state';

/** Most moves of a path. */
export const MAX_PATH: i32 = 8192;
/** A path of packed moves (u32), the last move first. */
export const PATH: usize = memory.data(MAX_PATH * 4);

/** Plays one packed move on the real position `p` (real column and cell numbers) and writes it out. */
function playMove(p: usize, move: u32): bool {
  if (!applyMove(p, move)) return false;
  writeMove(playedSrcKind, playedSrcIndex, playedDstKind, playedDstIndex, moveCount(move), moveCard(move), false);
  return true;
}

/**
 * Writes the solution from the real start position to the won position:
 * the path of packed moves from the start record to `goal`, each followed by
 * the auto-moves it triggers. Returns false on an internal inconsistency.
 */
export function reconstructSolution(goal: u32): bool {
  let length = 0;
  let index = goal;
  while (index != 1) {
    if (length >= MAX_PATH) return false;
    const rec = recordAt(index);
    store<u32>(PATH + (<usize>length << 2), recordMove(rec) & MOVE_BITS);
    length++;
    index = recordParent(rec);
  }
  return replayPath(length);
}

/**
 * Plays the `length` moves of PATH (the last move first, as
 * `reconstructSolution` leaves them) from START, writing each and its
 * auto-moves to the output buffer; true when they end won (and fit).
 */
export function replayPath(length: i32): bool {
  resetOutput();
  copyPosition(PARENT, START);
  applyAutoMoves(PARENT, true);
  for (let i = length - 1; i >= 0; i--) {
    if (!playMove(PARENT, load<u32>(PATH + (<usize>i << 2)))) return false;
    applyAutoMoves(PARENT, true);
  }
  return isWon(PARENT) && !outputOverflow;
}

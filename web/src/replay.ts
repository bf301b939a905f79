/**
 * A solve result made ready for playing back: the start position parsed from
 * the response's board text, and the position after every move, replayed with
 * the SDK's checker (`applyMove`), which also proves the page shows only legal
 * moves.
 */
import { parseBoard } from '../../client-sdk/core/board.js';
import type { Move } from '../../client-sdk/core/moves.js';
import { toStandardNotation } from '../../client-sdk/core/notation.js';
import type { Layout, Rules } from '../../client-sdk/core/rules.js';
import { applyMove } from '../../client-sdk/core/verify.js';
import type { SolveResponse } from './api.js';

export interface Replay {
  response: SolveResponse;
  /** `positions[k]`: the position after k moves (`positions[0]` the start). */
  positions: Layout[];
}

/** @throws SolverError when the board cannot be parsed or a move is illegal (a service bug). */
export function replay(response: SolveResponse): Replay {
  const start = parseBoard(response.board, response.rules);
  const positions: Layout[] = [start];
  for (const move of response.moves) positions.push(applyMove(response.rules, positions[positions.length - 1], move as Move));
  return { response, positions };
}

/** Symbol of column `i` in standard notation (`1`..`9`, `0` for the tenth), from the SDK's notation. */
export function columnSymbol(i: number, rules: Rules): string {
  return toStandardNotation([{ from: 'column', fromIndex: i, to: 'foundation', toIndex: 0, count: 1, card: 'AC', auto: false }], rules)[0][0];
}

/** Symbol of free cell `i` in standard notation (`a`..`g`, `i`; `h` is the foundations), from the SDK's notation. */
export function cellSymbol(i: number, rules: Rules): string {
  return toStandardNotation([{ from: 'cell', fromIndex: i, to: 'foundation', toIndex: 0, count: 1, card: 'AC', auto: false }], rules)[0][0];
}

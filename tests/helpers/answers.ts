/**
 * Checks on a solve answer that the API tests share: a `solved` answer's
 * moves replay from its own board text with the independent checker, and
 * its notation, fc-solve move lines and move count agree with them.
 */
import { expect } from 'vitest';
import type { SolveResponse } from '../../client-sdk/api/schemas.js';
import { parseBoard } from '../../client-sdk/core/board.js';
import { checkSolution } from '../../client-sdk/core/verify.js';

/** Replays `body` from its own board text with the independent checker (vitest `expect`; fails the test on any mismatch). */
export function expectCheckedAnswer(body: SolveResponse): void {
  const start = parseBoard(body.board, body.rules);
  const check = checkSolution(body.rules, start, body.moves);
  expect(check.ok, JSON.stringify(check)).toBe(true);
  expect(body.notation).toHaveLength(body.moves.length);
  expect(body.fcsMoves).toHaveLength(body.moves.length);
  expect(body.stats.moveCount).toBe(body.moves.length);
}

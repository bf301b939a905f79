/**
 * The gate every solution of the engine passes before it is handed out: a
 * replay by the independent checker (client-sdk/core/verify.ts, which shares
 * no code with the engine).
 */
import type { Deal } from '../rules.js';
import type { Move } from '../moves.js';
import { SolverError } from '../errors.js';
import { checkPackedSolution, checkSolution, type CheckResult } from '../verify.js';

/**
 * Replays a solution the engine found from `deal`'s start through the
 * independent checker (client-sdk/core/verify.ts `checkSolution`); every
 * solution the engine hands out passes through here first.
 * @param whose the solution's owner in the error text ("the solution", "the guided pass's solution").
 * @throws SolverError `solution_check_failed` naming the first move the checker rejected (1-based) and why.
 */
export function requireCheckedSolution(deal: Deal, moves: Move[], whose = 'the solution'): void {
  requirePassed(checkSolution(deal.rules, deal.layout, moves), whose);
}

/**
 * `requireCheckedSolution` of a solution packed by `packMoves`
 * (client-sdk/core/moves.ts), replayed by verify.ts `checkPackedSolution`.
 * @throws SolverError `solution_check_failed` as `requireCheckedSolution`.
 */
export function requireCheckedPackedSolution(deal: Deal, packed: Uint8Array, whose = 'the solution'): void {
  requirePassed(checkPackedSolution(deal.rules, deal.layout, packed), whose);
}

/** Throws SolverError `solution_check_failed` for a refused `check`, naming its first bad move (1-based) and why. */
function requirePassed(check: CheckResult, whose: string): void {
  if (!check.ok) throw new SolverError('solution_check_failed', `${whose} failed the independent check at move ${check.moveIndex + 1}: ${check.reason}`);
}

/**
 * Readers of Freecell Solver's (fc-solve's) text output, for the side-by-side
 * benchmark (bench/vs-fcsolve.ts). Written against the output of the Debian
 * package freecell-solver-bin 5.0.0 (`tests/fixtures/fcsolve/` holds captured
 * samples); every line not understood is an error, so a changed format is
 * noticed instead of miscounted.
 *
 * 1. `freecell-solver-range-parallel-solve START END 1 [fc-solve options]`
 *    prints, per deal N and after solving it:
 *      `Unsolved Board No. N at <time>`     (only when the search ended without a solution)
 *      `Intractable Board No. N at <time>`  (only when an iteration limit stopped it)
 *      `Reached Board No. N at <time> (total_num_iters=T)`
 *    where T is the running total of iterations (positions checked) over
 *    deals START..N, so deal N's own count is T minus the previous T. The
 *    first line is `Started at <time>`. With a print step other than 1 the
 *    `Reached` lines skip deals and per-deal counts cannot be had: refused.
 * 2. `fc-solve -m [-sel] ...` prints a solution as one line per move, each
 *    followed by a separator line (`====================`) and blank lines:
 *      `Move a card from stack 3 to freecell 0`
 *      `Move a card from stack 3 to the foundations`
 *      `Move a card from freecell 1 to stack 4`
 *      `Move a card from freecell 0 to the foundations`
 *      `Move 3 cards from stack 2 to stack 5`  (a sequence move: one line, one move)
 *    then `This game is solveable.`, `I could not solve this game.` or
 *    (with `-sel`) `Iterations count exceeded.`, and
 *    `Total number of states checked is N.` / `This scan generated N states.`
 *    Stacks and free cells are 0-based, in the board's own order (no `-c`).
 *    Every foundation move is a line of its own: fc-solve has no implicit
 *    auto-moves, so the number of move lines is its solution length with
 *    foundation moves counted and a sequence move counted as 1.
 */
import { SolverError } from '../client-sdk/core/errors.js';
import type { Move } from '../client-sdk/core/moves.js';
import type { Layout, Rules } from '../client-sdk/core/rules.js';
import { applyMove } from '../client-sdk/core/verify.js';
import { suitOf, cardToString, type Card } from '../client-sdk/core/cards.js';

// ---------------------------------------------------------------- range solver

/** How fc-solve's search of one deal ended, as the range solver reports it. */
export type FcsVerdict = 'solved' | 'unsolved' | 'intractable';

/**
 * One deal of a range run: its number, verdict, iterations (positions
 * checked) for this deal alone, and its wall time in ms from the solver's own
 * timestamps (from the previous `Reached` or the `Started` line to its
 * `Reached` line; microsecond stamps, so about 0.001 ms resolution).
 */
export interface FcsRangeDeal {
  deal: number;
  verdict: FcsVerdict;
  iterations: number;
  wallMs: number;
}

const STARTED = /^Started at (\d+(?:\.\d+)?)$/;
const REACHED = /^Reached Board No\. (\d+) at (\d+(?:\.\d+)?) \(total_num_iters=(\d+)\)$/;
const NOT_SOLVED = /^(Unsolved|Intractable) Board No\. (\d+) at \d+(?:\.\d+)?$/;

/**
 * Reads the range solver's standard output line by line (a streaming reader,
 * so that a progress bar can follow a long run). Feed every line to
 * {@link FcsRangeReader.line}; it returns the deal a `Reached` line completes.
 */
export class FcsRangeReader {
  #lastTotal = 0;
  #lastDeal: number | null = null;
  #pending: { deal: number; verdict: FcsVerdict } | null = null;
  #lastStamp: number | null = null;

  /**
   * @param from the first deal of the range (the first `Reached` line must name it).
   */
  constructor(readonly from: number) {}

  /**
   * Takes one line (without its newline; a trailing `\r` and blank lines are ignored).
   * @returns the deal this line completes, or null.
   * @throws Error for a line of no known form, a deal out of order (a print
   *   step other than 1), or a running total that goes down.
   */
  line(raw: string): FcsRangeDeal | null {
    const text = raw.trimEnd();
    if (text === '') return null;
    const startedAt = STARTED.exec(text);
    if (startedAt) {
      this.#lastStamp = Number(startedAt[1]);
      return null;
    }
    const expected = this.#lastDeal === null ? this.from : this.#lastDeal + 1;
    const notSolved = NOT_SOLVED.exec(text);
    if (notSolved) {
      const deal = Number(notSolved[2]);
      if (deal !== expected) throw new Error(`fc-solve range output: "${text}" where deal ${expected} was expected`);
      this.#pending = { deal, verdict: notSolved[1] === 'Unsolved' ? 'unsolved' : 'intractable' };
      return null;
    }
    const reached = REACHED.exec(text);
    if (!reached) throw new Error(`fc-solve range output: unexpected line "${text}"`);
    const deal = Number(reached[1]);
    const stamp = Number(reached[2]);
    const total = Number(reached[3]);
    if (deal !== expected) throw new Error(`fc-solve range output: board ${deal} reached where ${expected} was expected (the print step must be 1)`);
    if (total < this.#lastTotal) throw new Error(`fc-solve range output: total_num_iters went down from ${this.#lastTotal} to ${total} at board ${deal}`);
    const verdict = this.#pending?.deal === deal ? this.#pending.verdict : 'solved';
    const wallMs = this.#lastStamp === null ? 0 : Math.round((stamp - this.#lastStamp) * 1e6) / 1e3;
    const row: FcsRangeDeal = { deal, verdict, iterations: total - this.#lastTotal, wallMs };
    this.#lastTotal = total;
    this.#lastStamp = stamp;
    this.#lastDeal = deal;
    this.#pending = null;
    return row;
  }

  /** The last deal completed so far, or null. */
  get lastDeal(): number | null {
    return this.#lastDeal;
  }
}

/**
 * Reads a whole range-solver output: one row per deal, in order.
 * @throws Error as {@link FcsRangeReader.line}, or when the output does not
 *   reach `to` (the run was cut short).
 */
export function parseRangeOutput(text: string, from: number, to: number): FcsRangeDeal[] {
  const reader = new FcsRangeReader(from);
  const rows: FcsRangeDeal[] = [];
  for (const line of text.split('\n')) {
    const row = reader.line(line);
    if (row) rows.push(row);
  }
  if (reader.lastDeal !== to) throw new Error(`fc-solve range output ends at board ${reader.lastDeal ?? 'none'}, not ${to}`);
  return rows;
}

// ---------------------------------------------------------------- one solution

/** One move line of fc-solve's `-m` output; indices 0-based; `toIndex` is -1 for the foundations (fc-solve names no suit). */
export interface FcsMove {
  from: 'column' | 'cell';
  fromIndex: number;
  to: 'column' | 'cell' | 'foundation';
  toIndex: number;
  count: number;
}

/** A parsed `fc-solve -m` run: verdict, move lines, and the counts it prints at the end (null when absent). */
export interface FcsSolution {
  verdict: FcsVerdict;
  moves: FcsMove[];
  statesChecked: number | null;
  statesGenerated: number | null;
}

const PLACE = String.raw`(stack|freecell) (\d+)`;
const MOVE_ONE = new RegExp(String.raw`^Move a card from ${PLACE} to (?:the (foundations)|${PLACE})$`);
const MOVE_MANY = /^Move (\d+) cards from stack (\d+) to stack (\d+)$/;
const kind = (word: string) => (word === 'stack' ? 'column' : 'cell') as 'column' | 'cell';

/**
 * Reads the output of `fc-solve -m` (optionally `-sel`; not `-sam`, `-sn`,
 * `-c`): the move lines, the verdict and the state counts. Separator lines
 * (`-=-=…`, `====…`) and blank lines are skipped.
 * @throws Error for a line of no known form, or when no verdict line is found.
 */
export function parseFcsSolution(text: string): FcsSolution {
  const moves: FcsMove[] = [];
  let verdict: FcsVerdict | null = null;
  let statesChecked: number | null = null;
  let statesGenerated: number | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    if (line === '' || /^(-=)+-?$/.test(line) || /^=+$/.test(line)) continue;
    let m: RegExpExecArray | null;
    if ((m = MOVE_MANY.exec(line))) {
      moves.push({ from: 'column', fromIndex: Number(m[2]), to: 'column', toIndex: Number(m[3]), count: Number(m[1]) });
    } else if ((m = MOVE_ONE.exec(line))) {
      const to = m[3] !== undefined ? 'foundation' : kind(m[4]);
      moves.push({ from: kind(m[1]), fromIndex: Number(m[2]), to, toIndex: to === 'foundation' ? -1 : Number(m[5]), count: 1 });
    } else if (line === 'This game is solveable.') verdict = 'solved';
    else if (line === 'I could not solve this game.') verdict = 'unsolved';
    else if (line === 'Iterations count exceeded.') verdict = 'intractable';
    else if ((m = /^Total number of states checked is (\d+)\.$/.exec(line))) statesChecked = Number(m[1]);
    else if ((m = /^This scan generated (\d+) states\.$/.exec(line))) statesGenerated = Number(m[1]);
    else throw new Error(`fc-solve output: unexpected line "${line}"`);
  }
  if (verdict === null) throw new Error('fc-solve output: no verdict line (solveable / could not solve / exceeded)');
  return { verdict, moves, statesChecked, statesGenerated };
}

/**
 * Turns fc-solve's move lines into this project's {@link Move}s by playing
 * them from `start`: the card of each move is read off the position (for a
 * sequence move the deepest moved card), a foundation move goes to the
 * foundation of that card's suit, and `auto` is false (fc-solve marks none).
 * Every move is checked as it is played (client-sdk/core/verify.ts `applyMove`),
 * so the result is a legal move list under `rules` or an exception; whether
 * it wins is for `checkSolution` to say.
 * @throws SolverError `illegal_move` with the 0-based move index and the
 *   checker's reason, also when a move names an empty stack or free cell.
 */
export function fcsMovesToMoves(rules: Rules, start: Layout, fcsMoves: FcsMove[]): Move[] {
  const out: Move[] = [];
  let layout = start;
  fcsMoves.forEach((m, i) => {
    let card: Card | null | undefined;
    if (m.from === 'column') {
      const col = layout.columns[m.fromIndex];
      card = col === undefined || col.length < m.count ? undefined : col[col.length - m.count];
    } else {
      card = layout.freeCells[m.fromIndex];
    }
    if (card === undefined || card === null) {
      throw new SolverError('illegal_move', `fc-solve move ${i}: ${m.from === 'column' ? 'stack' : 'freecell'} ${m.fromIndex} has no card to move (${m.count})`);
    }
    const move: Move = {
      from: m.from,
      fromIndex: m.fromIndex,
      to: m.to,
      toIndex: m.to === 'foundation' ? suitOf(card) : m.toIndex,
      count: m.count,
      card: cardToString(card),
      auto: false,
    };
    try {
      layout = applyMove(rules, layout, move);
    } catch (err) {
      throw new SolverError('illegal_move', `fc-solve move ${i}: ${err instanceof Error ? err.message : String(err)}`);
    }
    out.push(move);
  });
  return out;
}

/**
 * The readers of fc-solve's output used by bench/vs-fcsolve.ts, on output
 * captured from freecell-solver-bin 5.0.0 (tests/fixtures/fcsolve/):
 *  - range-lg-11980-11984.txt: `freecell-solver-range-parallel-solve 11980 11984 1 -l lg`
 *  - range-lg-limit50-1-3.txt: the same over 1..3 with `--total-iterations-limit 50`
 *  - solution-m-lg-1.txt:      `make-microsoft-freecell-board -t 1 | fc-solve -m -l lg`
 *  - solution-m-lg-11982.txt:  the same for deal 11982 (no solution)
 * fc-solve itself is not needed to run these tests.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FcsRangeReader, fcsMovesToMoves, parseFcsSolution, parseRangeOutput } from '../../bench/fcsolve-output.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { checkSolution } from '../../client-sdk/core/verify.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/fcsolve/${name}`, import.meta.url), 'utf8');
const msDeal = (n: number) => resolveDeal({ game: 'freecell', numbering: 'ms', deal: n } as Parameters<typeof resolveDeal>[0]);

describe('range solver output', () => {
  it('gives each deal its own iterations (differences of the running total) and marks the unsolved deal', () => {
    const rows = parseRangeOutput(fixture('range-lg-11980-11984.txt'), 11980, 11984);
    // Running totals 112, 172, 204995, 205071, 205133; 204823 is what fc-solve alone prints for 11982.
    expect(rows.map(({ deal, verdict, iterations }) => ({ deal, verdict, iterations }))).toEqual([
      { deal: 11980, verdict: 'solved', iterations: 112 },
      { deal: 11981, verdict: 'solved', iterations: 60 },
      { deal: 11982, verdict: 'unsolved', iterations: 204823 },
      { deal: 11983, verdict: 'solved', iterations: 76 },
      { deal: 11984, verdict: 'solved', iterations: 62 },
    ]);
  });

  it("gives each deal's wall time from the solver's own timestamps", () => {
    const rows = parseRangeOutput(fixture('range-lg-11980-11984.txt'), 11980, 11984);
    // Started at …701.305452; Reached 11980 at …701.305993, 11981 at …701.306095, 11982 at …701.926500.
    expect(rows[0].wallMs).toBeCloseTo(0.541, 2);
    expect(rows[1].wallMs).toBeCloseTo(0.102, 2);
    expect(rows[2].wallMs).toBeCloseTo(620.405, 2);
  });

  it('marks deals stopped by the iteration limit as intractable', () => {
    const rows = parseRangeOutput(fixture('range-lg-limit50-1-3.txt'), 1, 3);
    expect(rows.map((r) => [r.deal, r.verdict, r.iterations])).toEqual([
      [1, 'intractable', 50],
      [2, 'intractable', 50],
      [3, 'intractable', 50],
    ]);
  });

  it('refuses output cut short, a print step other than 1, a falling total and unknown lines', () => {
    const text = fixture('range-lg-11980-11984.txt');
    expect(() => parseRangeOutput(text, 11980, 11985)).toThrow(/ends at board 11984, not 11985/);
    expect(() => parseRangeOutput(text, 11979, 11984)).toThrow(/11980 reached where 11979 was expected/);
    const step2 = 'Started at 1.5\nReached Board No. 2 at 1.6 (total_num_iters=10)\n';
    expect(() => parseRangeOutput(step2, 1, 2)).toThrow(/print step must be 1/);
    const reader = new FcsRangeReader(1);
    expect(reader.line('Reached Board No. 1 at 1.0 (total_num_iters=10)')).toMatchObject({ deal: 1, verdict: 'solved', iterations: 10 });
    expect(() => reader.line('Reached Board No. 2 at 1.1 (total_num_iters=9)')).toThrow(/went down/);
    expect(() => new FcsRangeReader(1).line('Solved Board No. 1')).toThrow(/unexpected line/);
  });

  it('reads CRLF lines and skips blank ones', () => {
    const rows = parseRangeOutput('Started at 1.0\r\n\r\nReached Board No. 7 at 1.1 (total_num_iters=33)\r\n', 7, 7);
    expect(rows).toEqual([{ deal: 7, verdict: 'solved', iterations: 33, wallMs: 100 }]);
  });
});

describe('fc-solve -m output', () => {
  it('reads every move line of deal 1, and the moves win the deal under our checker', () => {
    const solution = parseFcsSolution(fixture('solution-m-lg-1.txt'));
    expect(solution.verdict).toBe('solved');
    expect(solution.statesChecked).toBe(96);
    expect(solution.statesGenerated).toBe(161);
    // One FcsMove per "Move" line of the file, in order.
    const moveLines = fixture('solution-m-lg-1.txt').split('\n').filter((l) => l.startsWith('Move '));
    expect(solution.moves).toHaveLength(moveLines.length);
    expect(solution.moves[0]).toEqual({ from: 'column', fromIndex: 4, to: 'cell', toIndex: 0, count: 1 });
    expect(solution.moves[4]).toEqual({ from: 'column', fromIndex: 4, to: 'foundation', toIndex: -1, count: 1 });
    // 52 cards reach the foundations, each by a line of its own (fc-solve has no implicit auto-moves).
    expect(solution.moves.filter((m) => m.to === 'foundation')).toHaveLength(52);
    const sequenceMove = solution.moves.find((m) => m.count > 1);
    expect(sequenceMove?.from).toBe('column');

    const deal = msDeal(1);
    const moves = fcsMovesToMoves(deal.rules, deal.layout, solution.moves);
    expect(moves).toHaveLength(solution.moves.length);
    expect(moves[4]).toMatchObject({ to: 'foundation', card: 'AD', toIndex: 1, auto: false });
    expect(checkSolution(deal.rules, deal.layout, moves).ok).toBe(true);
  });

  it('reads the no-solution verdict and the -sel limit verdict', () => {
    const none = parseFcsSolution(fixture('solution-m-lg-11982.txt'));
    expect(none).toEqual({ verdict: 'unsolved', moves: [], statesChecked: 204823, statesGenerated: 24573 });
    const exceeded = parseFcsSolution('Iterations count exceeded.\nTotal number of states checked is 10.\nThis scan generated 20 states.\n');
    expect(exceeded.verdict).toBe('intractable');
  });

  it('refuses unknown lines and output without a verdict', () => {
    expect(() => parseFcsSolution('Move the sequence on top of Stack 1 to the foundations\nThis game is solveable.\n')).toThrow(/unexpected line/);
    expect(() => parseFcsSolution('Move a card from stack 1 to freecell 0\n')).toThrow(/no verdict/);
  });

  it('turns an illegal or impossible move line into illegal_move with its index', () => {
    const deal = msDeal(1);
    // Deal 1's stack 0 shows 6S: it cannot go to the foundations first.
    const bad = parseFcsSolution('Move a card from stack 0 to the foundations\nThis game is solveable.\n');
    expect(() => fcsMovesToMoves(deal.rules, deal.layout, bad.moves)).toThrow(/fc-solve move 0: .*foundation S takes AS next/);
    const empty = parseFcsSolution('Move a card from freecell 0 to stack 1\nThis game is solveable.\n');
    expect(() => fcsMovesToMoves(deal.rules, deal.layout, empty.moves)).toThrow(/fc-solve move 0: freecell 0 has no card/);
  });
});

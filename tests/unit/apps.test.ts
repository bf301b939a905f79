/**
 * The app analyses in-process (client-sdk/api/apps.ts through the SDK's
 * local solver): the boundary search against monotone sequences with gaps,
 * move lists in standard notation, the review of real games (a blunder
 * reported at exactly its move, with a winning alternative the checker
 * accepts; an illegal move refused at its index), difficulty with its
 * solution and its proof (the certificate through the independent proof
 * checker), and the seeded draw of winnable deals.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { drawDeals, findBoundary } from '../../client-sdk/api/apps.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import type { SolveRequest } from '../../client-sdk/api/schemas.js';
import { parseBoard } from '../../client-sdk/core/board.js';
import { layoutToJson } from '../../client-sdk/core/layout.js';
import { replayMoveList, splitMoveText } from '../../client-sdk/core/move-list.js';
import { checkCertificate } from '../../client-sdk/core/proof/check.js';
import type { Deal, Layout } from '../../client-sdk/core/rules.js';
import type { SolveOutcome } from '../../client-sdk/core/solve-types.js';
import { checkSolution } from '../../client-sdk/core/verify.js';
import { createLocalSolver, type LocalSolver } from '../../client-sdk/sdk/local.js';
import { SolverError } from '../../client-sdk/core/errors.js';
import { buildLosingGame } from '../helpers/games.js';

let solver: LocalSolver;
beforeAll(async () => {
  solver = await createLocalSolver();
});

const STATS = { statesExpanded: 1, statesStored: 1, elapsedMs: 0, memoryBytes: 0 };
const outcome = (verdict: SolveOutcome['verdict']): SolveOutcome => ({ verdict, moves: [], stats: STATS, ...(verdict === 'unknown' ? { reason: 'max_states' as const } : {}) });

describe('findBoundary', () => {
  it('finds the flip of every monotone sequence with unknown gaps, deciding each index at most once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 0, max: 60 }),
        fc.array(fc.integer({ min: 0, max: 59 }), { maxLength: 5 }),
        fc.integer({ min: 1, max: 4 }),
        async (size, flipAt, unknownAt, parallelism) => {
          const flip = Math.min(flipAt, size);
          const unknown = new Set(unknownAt.filter((i) => i < size));
          const seen: number[] = [];
          const { lo, hi, outcomes } = await findBoundary(
            size,
            async (i) => {
              seen.push(i);
              return outcome(unknown.has(i) ? 'unknown' : i < flip ? 'solved' : 'unsolvable');
            },
            parallelism,
            { first: [size - 1, 0] },
          );
          expect(new Set(seen).size).toBe(seen.length);
          for (let i = 0; i <= lo; i++) expect(i < flip).toBe(true);
          for (let i = hi; i < size; i++) expect(i >= flip).toBe(true);
          // between lo and hi only unknowns, each searched
          for (let i = lo + 1; i < hi; i++) expect(outcomes.get(i)?.verdict).toBe('unknown');
          if (unknown.size === 0) expect(hi).toBe(flip);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('needs about log2(size) searches on one thread and fewer rounds on more', async () => {
    let searches = 0;
    await findBoundary(1000, async (i) => (searches++, outcome(i < 617 ? 'solved' : 'unsolvable')), 1, { first: [999, 0] });
    expect(searches).toBeLessThanOrEqual(2 + 11);
  });

  it('stops at maxSearches with the rest open (a review whose searches keep running out of budget ends)', async () => {
    let searches = 0;
    const b = await findBoundary(500, async () => (searches++, outcome('unknown')), 2, { first: [499, 0], maxSearches: 7 });
    expect(searches).toBe(7);
    expect(b).toMatchObject({ lo: -1, hi: 500, capped: true });
    const done = await findBoundary(10, async (i) => outcome(i < 4 ? 'solved' : 'unsolvable'), 2, { maxSearches: 100 });
    expect(done.capped).toBe(false);
  });

  it('starts no round past its deadline, the rest open (an app request ends by its deadline)', async () => {
    let searches = 0;
    const deadline = Date.now() + 150;
    const slow = async () => {
      searches++;
      await new Promise((r) => setTimeout(r, 60));
      return outcome('unknown');
    };
    const b = await findBoundary(500, slow, 1, { first: [499, 0], deadline });
    expect(b).toMatchObject({ lo: -1, hi: 500, capped: false, timedOut: true });
    expect(searches).toBeGreaterThanOrEqual(2);
    expect(searches).toBeLessThanOrEqual(4);
  });

  it('refuses contradicting verdicts (a solved index after an unsolvable one)', async () => {
    await expect(findBoundary(3, async (i) => outcome(i === 2 ? 'solved' : 'unsolvable'), 3)).rejects.toMatchObject({ code: 'engine_error' });
  });
});

function deal(req: Record<string, unknown>): Deal {
  return resolveDeal(req as SolveRequest);
}

describe('move lists in standard notation', () => {
  it("a solver solution's notation replays to the same moves (Beleaguered Castle: single cards)", async () => {
    const answer = await solver.solve({ game: 'beleaguered_castle', deal: 2 });
    expect(answer.verdict).toBe('solved');
    const d = deal({ game: 'beleaguered_castle', deal: 2 });
    const replayed = replayMoveList(d.rules, d.layout, splitMoveText(answer.notation.join(' ')));
    expect(replayed.moves.map(({ auto: _a, ...m }) => m)).toEqual(answer.moves.map(({ auto: _a, ...m }) => m));
    expect(replayed.positions).toHaveLength(answer.moves.length + 1);
    expect(checkSolution(d.rules, d.layout, replayed.moves).ok).toBe(true);
  });

  it("FreeCell solutions' notation replays to the same moves, a part of a run moved to an empty column included", async () => {
    // MS 6, 10, 27 and 54 move part of a run to an empty column ("12" for 8 of
    // 10 movable cards): the longest reading makes the list illegal later on.
    let partialRuns = 0;
    for (const n of [6, 10, 27, 54, 1, 2, 3]) {
      const answer = await solver.solve({ game: 'freecell', deal: n, numbering: 'ms', optimize: 'none' } as SolveRequest);
      expect(answer.verdict).toBe('solved');
      const d = deal({ game: 'freecell', deal: n, numbering: 'ms' } as SolveRequest);
      const replayed = replayMoveList(d.rules, d.layout, splitMoveText(answer.notation.join(' ')));
      expect(replayed.moves.map(({ auto: _a, ...m }) => m)).toEqual(answer.moves.map(({ auto: _a, ...m }) => m));
      expect(checkSolution(d.rules, d.layout, replayed.moves).ok).toBe(true);
      replayed.moves.forEach((m, i) => {
        if (m.to === 'column' && m.count > 1 && replayed.positions[i].columns[m.toIndex].length === 0) {
          const source = replayed.positions[i].columns[m.fromIndex];
          if (m.count < source.length) partialRuns++;
        }
      });
    }
    expect(partialRuns).toBeGreaterThan(0);
  });

  it('reads move numbers and commas away, and a column-to-column token moves the longest legal run', () => {
    expect(splitMoveText('1. 3a, 32\n2) a3  1h')).toEqual(['3a', '32', 'a3', '1h']);
    const rules = deal({ game: 'freecell', deal: 1 }).rules;
    const layout: Layout = parseBoard('Foundations: H-0 C-K D-K S-K\n KH QH JH TH\n\n9H 8H 7H 6H 5H 4H 3H 2H AH\n', rules);
    // a legal FreeCell position is not needed for the parser; the run is not alternating, so one card moves
    const r = replayMoveList(rules, layout, ['32']);
    expect(r.moves[0]).toMatchObject({ from: 'column', fromIndex: 2, to: 'column', toIndex: 1, count: 1, card: 'AH' });
  });

  it('refuses an illegal move at its index, saying why', () => {
    const d = deal({ game: 'freecell', deal: 1 });
    const fail = (entries: (string | object)[]) => {
      try {
        replayMoveList(d.rules, d.layout, entries as string[]);
      } catch (err) {
        return err as SolverError;
      }
      throw new Error('accepted');
    };
    // MS #1 column 1 is JD KD 2S 4C 3S 6D 6S: after 1a its top card 6D cannot go home
    let err = fail(['1a', '2b', '1h']);
    expect(err).toMatchObject({ code: 'illegal_move', location: { path: 'moves.2', token: '1h' } });
    expect(err.message).toMatch(/move 2 "1h" is illegal: foundation D takes AD next, not 6D/);
    err = fail(['1a', 'zz']);
    expect(err).toMatchObject({ code: 'illegal_move', location: { path: 'moves.1' } });
    err = fail(['1a', '9a']);
    expect(err.message).toMatch(/"9" is no column or free cell/);
    err = fail([{ from: 'cell', fromIndex: 0, to: 'column', toIndex: 0, count: 1, card: 'KD', auto: false }]);
    expect(err).toMatchObject({ code: 'illegal_move', location: { path: 'moves.0' } });
    expect(err.message).toMatch(/free cell 0 is empty/);
    // a notation token's fault names places as the notation does: columns from 1, cells by letter
    expect(fail(['66']).message).toBe('move 0 "66" is illegal: source and destination are the same column 6');
    expect(fail(['1a', '2a']).message).toBe('move 1 "2a" is illegal: free cell a is occupied by 6S');
    expect(fail(['1a', 'a5']).message).toBe('move 1 "a5" is illegal: 6S cannot go on 6C in column 5 (build alternate_color)');
    // a JSON move's fault keeps its 0-based indices
    err = fail([{ from: 'column', fromIndex: 5, to: 'column', toIndex: 5, count: 1, card: '6H', auto: false }]);
    expect(err.message).toBe('move 0 is illegal: source and destination are the same column 5');
  });
});

describe('review of a played game (local solver)', () => {
  const limits = { maxStates: 300_000, timeoutMs: 30_000 };

  async function losingGame(game: string, dealNumber: number, from: number) {
    const d = deal({ game, deal: dealNumber });
    const answer = await solver.solve({ game, deal: dealNumber, limits });
    expect(answer.verdict).toBe('solved');
    const built = await buildLosingGame(
      d.rules,
      d.layout,
      answer.moves,
      async (layout, l) => {
        const r = await solver.solve({ game, layout: layoutToJson(layout), limits: l });
        return { verdict: r.verdict, moves: [], stats: r.stats };
      },
      { from, step: 1, after: 4, limits },
    );
    expect(built).not.toBeNull();
    return { d, built: built! };
  }

  it('Beleaguered Castle #2: a blunder after a solution prefix is reported at exactly that move, with a checked winning alternative', async () => {
    const { d, built } = await losingGame('beleaguered_castle', 2, 2);
    const review = await solver.review({ game: 'beleaguered_castle', deal: 2, moves: built.entries as never, limits });
    expect(review.result).toBe('lost');
    expect(review.lost!.moveIndex).toBe(built.blunder);
    expect(review.lost!.notation).toBe(built.entries[built.blunder]);
    expect(review.lost!.proof.positions).toBeGreaterThan(0);
    const alt = review.alternative!;
    expect(alt.moveIndex).toBe(built.blunder);
    expect(alt.notation).not.toBe(built.entries[built.blunder]);
    // the alternative line replays from the position before the blunder
    const before = replayMoveList(d.rules, d.layout, built.entries.slice(0, built.blunder) as never).positions[built.blunder];
    expect(checkSolution(d.rules, before, alt.line.moves).ok).toBe(true);
    expect(alt.line.moves[0]).toEqual(alt.move);
    // every position: winnable up to the blunder, lost after it
    expect(review.positions.map((p) => p.verdict)).toEqual(built.entries.map((_, i) => (i <= built.blunder ? 'solved' : 'unsolvable')).concat(['unsolvable']));
    // the shortcuts: far fewer searches than positions
    expect(review.stats.searches).toBeLessThan(review.positions.length);
    expect(review.positions.some((p) => p.basis === 'on_solution')).toBe(true);
    expect(review.positions.some((p) => p.basis === 'after_lost')).toBe(true);
    expect(built.entries.length).toBe(built.blunder + 1 + 4);
  });

  it('FreeCell with 2 free cells, MS #3: the same, with JSON moves before the blunder', async () => {
    const game = 'freecell';
    const d = resolveDeal({ game, deal: 3, rules: { freeCells: 2 } } as SolveRequest);
    const answer = await solver.solve({ game, deal: 3, rules: { freeCells: 2 }, limits });
    expect(answer.verdict).toBe('solved');
    const built = await buildLosingGame(
      d.rules,
      d.layout,
      answer.moves,
      async (layout, l) => {
        const r = await solver.solve({ game, rules: { freeCells: 2 }, layout: layoutToJson(layout), limits: l });
        return { verdict: r.verdict, moves: [], stats: r.stats };
      },
      { from: 2, step: 2, after: 2, limits },
    );
    expect(built).not.toBeNull();
    const review = await solver.review({ game, deal: 3, rules: { freeCells: 2 }, moves: built!.entries as never, limits, proof: true });
    expect(review.result).toBe('lost');
    expect(review.lost!.moveIndex).toBe(built!.blunder);
    const before = replayMoveList(d.rules, d.layout, built!.entries.slice(0, built!.blunder) as never).positions[built!.blunder];
    expect(checkSolution(d.rules, before, review.alternative!.line.moves).ok).toBe(true);
    // the lost position's certificate passes the independent checker
    const cert = review.lost!.proof.certificate!;
    expect(cert.included).toBe(true);
    const checked = checkCertificate(Buffer.from(cert.data!, 'base64'));
    expect(checked.ok).toBe(true);
  });

  it('a winnable game gets a checked continuation; a won game is won; a lost start is lost_at_start', async () => {
    const answer = await solver.solve({ game: 'freecell', deal: 1 });
    const d = deal({ game: 'freecell', deal: 1 });
    const partial = await solver.review({ game: 'freecell', deal: 1, moves: answer.moves.slice(0, 10) });
    expect(partial.result).toBe('winnable');
    const at10 = replayMoveList(d.rules, d.layout, answer.moves.slice(0, 10)).positions[10];
    expect(checkSolution(d.rules, at10, partial.continuation!.moves).ok).toBe(true);
    expect(partial.stats.searches).toBe(1);
    const won = await solver.review({ game: 'freecell', deal: 1, moves: answer.moves });
    expect(won.result).toBe('won');
    const lost = await solver.review({ game: 'freecell', deal: 11982, moves: '' });
    expect(lost).toMatchObject({ result: 'lost_at_start', lost: { moveIndex: null, proof: { positions: 61_643 } } });
  });

  it('an illegal move is a 400 illegal_move at its index', async () => {
    await expect(solver.review({ game: 'freecell', deal: 1, moves: '1a 2b 1h' })).rejects.toMatchObject({ code: 'illegal_move', status: 400, location: { path: 'moves.2' } });
  });

  it('moves missing or of the wrong type: a 400 at moves (or the entry) that says what moves are', async () => {
    const fault = (moves: unknown) => solver.review({ game: 'freecell', deal: 1, moves } as Parameters<typeof solver.review>[0]).then(() => null, (err: unknown) => err as SolverError);
    const missing = await fault(undefined);
    expect(missing).toMatchObject({ code: 'invalid_request', status: 400, location: { path: 'moves' } });
    expect(missing?.message).toMatch(/^moves: required: the moves the player made, as standard notation/);
    for (const moves of [5, null, {}]) expect((await fault(moves))?.message, JSON.stringify(moves)).toMatch(/^moves: must be standard notation as one string/);
    const entry = await fault(['1a', 7]);
    expect(entry).toMatchObject({ code: 'invalid_request', location: { path: 'moves.1' } });
    expect(entry?.message).toMatch(/^moves\.1: a move is a notation token .* or a JSON move \{from, fromIndex, to, toIndex, count, card, auto\}$/);
    // the faults inside a JSON move still name their key
    expect(await fault([{ from: 'column', fromIndex: 0, to: 'cell', toIndex: 0, count: 1, card: '6S', auto: false, colour: 'red' }])).toMatchObject({ location: { path: 'moves.0.colour' } });
  });

  it('fuzz: any move text is a review or a 4xx with the move at fault, never another error', async () => {
    const symbol = fc.constantFrom(...'1234567890abcdefghiz'.split(''));
    const token = fc.oneof(fc.tuple(symbol, symbol).map(([a, b]) => a + b), fc.string({ maxLength: 4 }));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('freecell', 'seahaven_towers', 'beleaguered_castle', 'penguin'), fc.array(token, { maxLength: 12 }), async (game, tokens) => {
        try {
          const r = await solver.review({ game, deal: 5, moves: tokens.join(' '), limits: { maxStates: 2000 } });
          expect(r.positions.length).toBeGreaterThanOrEqual(1);
        } catch (err) {
          expect(err).toBeInstanceOf(SolverError);
          expect((err as SolverError).status).toBe(400);
          expect((err as SolverError).location?.path).toMatch(/^moves\.\d+$/);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('a review ends by its deadline, its time budget from its arrival: the searches share it, and the positions left open say timeout', async () => {
    // Streets and Alleys 77: no search of its positions ends within the budget
    const t0 = Date.now();
    const review = await solver.review({ game: 'streets_and_alleys', deal: 77, moves: ['34', '47', '74', '47', '74', '47'], limits: { maxStates: 50_000_000, timeoutMs: 800 } });
    expect(Date.now() - t0).toBeLessThan(800 + 1500);
    expect(review).toMatchObject({ result: 'unknown' });
    if (review.result !== 'unknown') throw new Error('expected unknown');
    expect(review.unknown?.reasons).toContain('timeout');
  });

  it('a budget too small leaves the verdicts unknown, saying which budget', async () => {
    const r = await solver.review({ game: 'freecell', deal: 11982, moves: '1a', limits: { maxStates: 100 } });
    expect(r.result).toBe('unknown');
    expect(r.unknown).toEqual({ from: 0, to: 1, reasons: ['max_states'] });
  });
});

describe('difficulty (local solver)', () => {
  it('min_cells of MS #1..#3: a checked solution at k cells, a certificate the proof checker passes at k-1', async () => {
    const expected: Record<number, number> = {};
    for (const n of [1, 2, 3]) {
      const r = await solver.difficulty({ game: 'freecell', deal: n, proof: true });
      expect(r.verdict).toBe('decided');
      expected[n] = r.value!;
      const k = r.value!;
      const d = resolveDeal({ game: 'freecell', deal: n, rules: { freeCells: k } } as SolveRequest);
      expect(r.solution!.rules.freeCells).toBe(k);
      expect(checkSolution(d.rules, d.layout, r.solution!.moves).ok).toBe(true);
      if (k > 0) {
        expect(r.proof!.rules.freeCells).toBe(k - 1);
        const checked = checkCertificate(Buffer.from(r.proof!.proof.certificate!.data!, 'base64'));
        expect(checked.ok).toBe(true);
        if (checked.ok) expect(checked.header.rules.freeCells).toBe(k - 1);
      }
      expect(r.rungs.map((x) => x.label)).toEqual(['0_cells', '1_cells', '2_cells', '3_cells', '4_cells']);
    }
    // MS #2 is won with one cell, #1 needs three, #3 two (each proven above)
    expect(expected).toEqual({ 1: 3, 2: 1, 3: 2 });
  });

  it('MS #11982 is unsolvable with all four cells: no value, the proof at 4 cells', async () => {
    const r = await solver.difficulty({ game: 'freecell', deal: 11982 });
    expect(r).toMatchObject({ verdict: 'unsolvable', value: null, proof: { label: '4_cells', proof: { positions: 61_643 } } });
  });

  it('castle_ladder of Beleaguered Castle #15 (kings_to_empty), #6 (as_dealt) and #1 (lost as dealt, won with one free cell)', async () => {
    const fifteen = await solver.difficulty({ game: 'beleaguered_castle', deal: 15 });
    expect(fifteen).toMatchObject({ measure: 'castle_ladder', verdict: 'decided', value: 1, label: 'kings_to_empty', proof: { label: 'no_empty_column' } });
    const d = resolveDeal({ game: 'beleaguered_castle', deal: 15, rules: { emptyColumn: 'kings' } } as SolveRequest);
    expect(fifteen.solution!.rules.emptyColumn).toBe('kings');
    expect(checkSolution(d.rules, d.layout, fifteen.solution!.moves).ok).toBe(true);
    const six = await solver.difficulty({ game: 'beleaguered_castle', deal: 6, proof: true });
    expect(six).toMatchObject({ verdict: 'decided', value: 2, label: 'as_dealt', proof: { label: 'kings_to_empty' } });
    const checked = checkCertificate(Buffer.from(six.proof!.proof.certificate!.data!, 'base64'));
    expect(checked.ok).toBe(true);
    if (checked.ok) expect(checked.header.rules.emptyColumn).toBe('kings');
    const one = await solver.difficulty({ game: 'beleaguered_castle', deal: 1 });
    expect(one).toMatchObject({ verdict: 'decided', value: 3, label: 'one_free_cell', proof: { label: 'as_dealt' } });
  });

  it('refuses a measure the game does not fit', async () => {
    await expect(solver.difficulty({ game: 'beleaguered_castle', deal: 2, measure: 'min_cells' })).rejects.toMatchObject({ code: 'invalid_request', location: { path: 'measure' } });
    await expect(solver.difficulty({ game: 'seahaven_towers', deal: 2, measure: 'castle_ladder' })).rejects.toMatchObject({ code: 'invalid_request', location: { path: 'measure' } });
  });
});

describe('winnable deals', () => {
  it('drawDeals: the same seed gives the same distinct numbers in range; another seed others', () => {
    const a = drawDeals(42, 1n, 1_000_000n, 500);
    expect(drawDeals(42, 1n, 1_000_000n, 500)).toEqual(a);
    expect(new Set(a).size).toBe(500);
    expect(a.every((n) => n >= 1n && n <= 1_000_000n)).toBe(true);
    expect(drawDeals(43, 1n, 1_000_000n, 500)).not.toEqual(a);
    const small = drawDeals(1, 10n, 19n, 100);
    expect([...small].sort((x, y) => Number(x - y))).toEqual(Array.from({ length: 10 }, (_, i) => BigInt(10 + i)));
  });

  it('offers only solved deals, each with a solution the checker accepts; the same seed the same deals', async () => {
    const q = { game: 'beleaguered_castle', count: 30, seed: 5, maxStates: 50_000, solutions: true };
    const a = await solver.winnableDeals(q);
    expect(a.deals).toHaveLength(30);
    for (const w of a.deals) {
      const d = resolveDeal({ game: 'beleaguered_castle', deal: w.deal } as SolveRequest);
      expect(checkSolution(d.rules, d.layout, w.moves!).ok).toBe(true);
      expect(w.moveCount).toBe(w.moves!.length);
    }
    expect(a.tried).toBe(a.deals.length + a.skipped.length);
    expect(a.skipped.some((s) => s.verdict === 'unsolvable')).toBe(true);
    const b = await solver.winnableDeals({ ...q, solutions: false });
    expect(b.deals.map((w) => w.deal)).toEqual(a.deals.map((w) => w.deal));
  });

  it('without `to`, draws from the 1,000,000 numbers from `from` on (within the numbering)', async () => {
    const high = await solver.winnableDeals({ game: 'freecell', numbering: 'ms', from: '8589934000', count: 3, seed: 1 });
    expect(high.range).toEqual({ from: 8589934000, to: 8589934591 });
    expect(high.deals.every((w) => Number(w.deal) >= 8589934000)).toBe(true);
    const mid = await solver.winnableDeals({ game: 'freecell', numbering: 'ms', from: '2000001', count: 1 });
    expect(mid.range).toEqual({ from: 2000001, to: 3000000 });
  });

  it('refuses bad queries with the place of the fault', async () => {
    await expect(solver.winnableDeals({ game: 'freecell', count: 0 })).rejects.toMatchObject({ code: 'invalid_request', location: { path: 'count' } });
    await expect(solver.winnableDeals({ game: 'freecell', count: 5000 })).rejects.toMatchObject({ code: 'invalid_request', location: { path: 'count' } });
    await expect(solver.winnableDeals({ game: 'freecell', to: '99999999999' })).rejects.toMatchObject({ code: 'deal_out_of_range', location: { path: 'to' } });
    await expect(solver.winnableDeals({ game: 'selective_castle' })).rejects.toMatchObject({ code: 'layout_required' });
    await expect(solver.winnableDeals({ game: 'freecell', seed: -1 })).rejects.toMatchObject({ code: 'invalid_request', location: { path: 'seed' } });
  });
});

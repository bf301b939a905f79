/**
 * A game in play (client-sdk/core/play.ts), the checker's legal-move lister
 * (verify.ts `legalMoves`) and the live verdict (client-sdk/sdk/analysis.ts)
 * with the in-process solver:
 * - `legalMoves` lists exactly the moves the checker accepts, compared with
 *   every move of a wider candidate space, on positions of random games of
 *   every preset, and holds every move of the engine's solutions;
 * - `safeAutoMove` played to the end gives the proof checker's closure
 *   under safe auto-moves (check-auto-moves.ts);
 * - `Game`: turns with their auto-moves, undo, redo, goTo, replay of a link;
 * - `analysePosition` / `findLosingMove`: MS 617 winnable with a checked
 *   solution, MS 11982 lost with its proof's size, a game played into a lost
 *   position named at its losing move as `POST /v1/review` names it, the
 *   local solver's memo sparing the review its searches.
 */
import { describe, expect, it, vi } from 'vitest';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { cardToString } from '../../client-sdk/core/cards.js';
import { Engine } from '../../client-sdk/core/engine/index.js';
import type { Move } from '../../client-sdk/core/moves.js';
import { Game, Position } from '../../client-sdk/core/play.js';
import { closeUnderAutoMoves } from '../../client-sdk/core/proof/check-auto-moves.js';
import { autoMoveRuleFor } from '../../client-sdk/core/proof/format.js';
import { PRESETS, type Deal, type Layout } from '../../client-sdk/core/rules.js';
import { checkMove, checkSolution, cloneLayout, legalMoves } from '../../client-sdk/core/verify.js';
import { analysePosition, findLosingMove, PLAY_LIMITS } from '../../client-sdk/sdk/analysis.js';
import { createLocalSolver } from '../../client-sdk/sdk/local.js';
import type { SolveRequest } from '../../client-sdk/api/schemas.js';

/** A seeded generator of integers 0..n-1 (a linear congruential one: the walks only need to be reproducible). */
function randomInts(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % n;
  };
}

function dealOf(game: string, deal: number): Deal {
  const preset = PRESETS.find((p) => p.id === game)!;
  return resolveDeal({ game, deal, numbering: preset.numberings[0] } as SolveRequest);
}

/** Every move of a space wider than the lister's: every source, count 1..13, every destination index, both `auto` values left out (auto: false). */
function everyCandidate(layout: Layout, columns: number, cells: number): Move[] {
  const out: Move[] = [];
  const sources: { from: Move['from']; index: number; cards: number[] }[] = [
    ...layout.columns.map((col, i) => ({ from: 'column' as const, index: i, cards: col })),
    ...layout.freeCells.map((c, i) => ({ from: 'cell' as const, index: i, cards: c === null ? [] : [c] })),
  ];
  for (const s of sources) {
    for (let count = 1; count <= Math.min(13, s.cards.length); count++) {
      const card = cardToString(s.cards[s.cards.length - count]);
      for (let to = 0; to < columns; to++) out.push({ from: s.from, fromIndex: s.index, to: 'column', toIndex: to, count, card, auto: false });
      for (let to = 0; to < cells; to++) out.push({ from: s.from, fromIndex: s.index, to: 'cell', toIndex: to, count, card, auto: false });
      for (let to = 0; to < 4; to++) out.push({ from: s.from, fromIndex: s.index, to: 'foundation', toIndex: to, count, card, auto: false });
    }
  }
  return out;
}

const text = (m: Move) => `${m.from}${m.fromIndex}>${m.to}${m.toIndex}x${m.count}:${m.card}`;

describe('legalMoves (verify.ts)', () => {
  it('lists exactly the moves the checker accepts, along random games of every preset', () => {
    const next = randomInts(20260101);
    let positions = 0;
    for (const preset of PRESETS.filter((p) => p.numberings.length > 0)) {
      for (const number of [1, 2]) {
        const deal = dealOf(preset.id, number);
        let layout = deal.layout;
        for (let step = 0; step < 30; step++) {
          const listed = legalMoves(deal.rules, layout);
          const accepted = everyCandidate(layout, deal.rules.columns, deal.rules.freeCells).filter((m) => checkMove(deal.rules, layout, m) === null);
          expect(listed.map(text).sort(), `${preset.id} ${number} step ${step}`).toEqual(accepted.map(text).sort());
          positions++;
          if (listed.length === 0) break;
          layout = Position.of({ rules: deal.rules, layout }).play(listed[next(listed.length)]).layout;
        }
      }
    }
    expect(positions).toBeGreaterThan(500);
  });

  it("holds every move of the engine's solutions (the auto flag aside)", async () => {
    const solver = await createLocalSolver();
    for (const [game, deal] of [['freecell', 617], ['seahaven_towers', 1], ['beleaguered_castle', 2], ['penguin', 1]] as const) {
      const answer = await solver.solve({ game, deal, limits: { maxStates: 2_000_000 } });
      expect(answer.verdict).toBe('solved');
      const start = dealOf(game, deal);
      let layout = start.layout;
      for (const move of answer.moves as Move[]) {
        expect(legalMoves(start.rules, layout).map(text)).toContain(text(move));
        layout = Position.of({ rules: start.rules, layout }).play(move).layout;
      }
    }
  });

  it('gives nothing under invalid rules', () => {
    const deal = dealOf('freecell', 1);
    expect(legalMoves({ ...deal.rules, columns: 0 }, deal.layout)).toEqual([]);
  });
});

describe('Position', () => {
  it('reads notation, builds moves from places, and names places as notation does in its refusals', () => {
    const start = Position.of(dealOf('freecell', 1));
    const toCell = start.read('1a');
    expect(toCell).toMatchObject({ from: 'column', fromIndex: 0, to: 'cell', toIndex: 0, count: 1, auto: false });
    expect(start.move({ kind: 'column', index: 0 }, { kind: 'cell', index: 0 })).toEqual(toCell);
    expect(start.notation(toCell)).toBe('1a');
    expect(start.move({ kind: 'cell', index: 0 }, { kind: 'column', index: 1 })).toBeNull();
    const bad = start.read('56');
    expect(start.whyIllegal(bad)).toMatch(/in column 6 \(build alternate_color\)$/);
    expect(() => start.play(bad)).toThrow(/in column 6/);
    // a foundation target is the foundation of the card's suit
    const home = start.move({ kind: 'column', index: 2 }, { kind: 'foundation', index: 0 })!;
    expect(home.toIndex).toBe(start.layout.columns[2].at(-1)! & 3);
  });

  it('refuses a layout the checker refuses', () => {
    const deal = dealOf('freecell', 1);
    const broken = cloneLayout(deal.layout);
    broken.columns[0].pop();
    expect(() => Position.of({ rules: deal.rules, layout: broken })).toThrow(/missing card/);
  });

  it("plays safe auto-moves to the proof checker's closure", () => {
    const next = randomInts(7);
    let compared = 0;
    for (const preset of PRESETS.filter((p) => p.numberings.length > 0)) {
      const deal = dealOf(preset.id, 4);
      let position = Position.of(deal);
      for (let step = 0; step < 60; step++) {
        const closed = cloneLayout(position.layout);
        closeUnderAutoMoves(closed, autoMoveRuleFor(deal.rules), deal.rules.foundationBase);
        let auto = position;
        for (let m = auto.safeAutoMove(); m !== null; m = auto.safeAutoMove()) {
          expect(m.auto).toBe(true);
          expect(m.to).toBe('foundation');
          auto = auto.play(m);
        }
        expect(auto.layout, `${preset.id} step ${step}`).toEqual(closed);
        compared++;
        const moves = position.legalMoves();
        if (moves.length === 0) break;
        position = position.play(moves[next(moves.length)]);
      }
    }
    expect(compared).toBeGreaterThan(200);
  });
});

describe('Game', () => {
  it('plays turns with their auto-moves, undoes and redoes them, and drops the undone ones on a new move', () => {
    let game = Game.start(Position.of(dealOf('freecell', 1)));
    for (const token of ['1a', '2b', '3c']) game = game.play(game.position.read(token), { autoMoves: true });
    expect(game.notation).toEqual(['1a', '2b', '3c']);
    expect(game.turnsPlayed).toBe(3);
    // a first move that uncovers an ace (in the first MS deals that have one): its auto-move belongs to the turn
    let found: Game | null = null;
    for (let deal = 1; deal <= 50 && found === null; deal++) {
      const fresh = Game.start(Position.of(dealOf('freecell', deal)));
      for (const move of fresh.position.legalMoves()) {
        const after = fresh.play(move, { autoMoves: true });
        if (after.moveCount > 1) {
          found = after;
          break;
        }
      }
    }
    expect(found, 'a first move of one of MS 1-50 uncovers a card that goes home').not.toBeNull();
    expect(found!.turnLengths[0]).toBeGreaterThan(1);
    expect(found!.moves.slice(1).every((m) => m.auto && m.to === 'foundation')).toBe(true);
    expect(found!.undo().moveCount).toBe(0);

    const back = game.undo().undo();
    expect(back.notation).toEqual(['1a']);
    expect(back.canRedo).toBe(true);
    expect(back.redo().notation).toEqual(['1a', '2b']);
    expect(back.goTo(3).notation).toEqual(['1a', '2b', '3c']);
    expect(back.restart().moveCount).toBe(0);
    expect(back.restart().redo().notation).toEqual(['1a']);
    const branched = back.play(back.position.read('4b'));
    expect(branched.notation).toEqual(['1a', '4b']);
    expect(branched.canRedo).toBe(false);
    expect(branched.positionAfter(1).key()).toBe(game.positionAfter(1).key());
    const check = checkSolution(branched.start.rules, branched.start.layout, branched.moves);
    expect(check.ok ? 'won' : check.moveIndex).toBe(2); // legal, not won
  });

  it('replays a link the way a review reads it, and refuses an illegal move with its index', () => {
    const start = Position.of(dealOf('freecell', 1));
    const game = Game.replay(start, '1a 2b 3c');
    expect(game.notation).toEqual(['1a', '2b', '3c']);
    expect(game.turnsPlayed).toBe(3);
    expect(() => Game.replay(start, '1a 56')).toThrow(expect.objectContaining({ code: 'illegal_move', location: expect.objectContaining({ path: 'moves.1' }) }));
  });
});

describe('the live verdict (analysis.ts) with the local solver', () => {
  it('MS 617 is winnable with a checked solution; MS 11982 lost with its proof; a tiny budget is unknown', async () => {
    const solver = await createLocalSolver();
    const start617 = Position.of(dealOf('freecell', 617));
    const early: string[] = [];
    const solves = vi.spyOn(Engine.prototype, 'solve');
    const a = await analysePosition(solver, 'freecell', start617, { limits: PLAY_LIMITS, onDecided: (d) => early.push(d.verdict) });
    expect(solves).toHaveBeenCalledTimes(1); // the shortening started from the verdict's search
    solves.mockRestore();
    expect(early).toEqual(['winnable']);
    expect(a.verdict).toBe('winnable');
    if (a.verdict !== 'winnable') return;
    expect(a.movesLeft).toBe(a.moves.length);
    expect(checkSolution(start617.rules, start617.layout, a.moves).ok).toBe(true);
    expect(a.notation[0]).toBe(start617.notation(a.moves[0]));

    const lost = await analysePosition(solver, 'freecell', Position.of(dealOf('freecell', 11982)), { limits: PLAY_LIMITS });
    expect(lost).toMatchObject({ verdict: 'lost', proofPositions: 61643 });

    const unknown = await analysePosition(solver, 'freecell', start617, { limits: { maxStates: 50 } });
    expect(unknown).toMatchObject({ verdict: 'unknown', reason: 'max_states' });

    // a won position needs no search
    let won = Game.start(start617);
    for (const m of a.moves) won = won.play(m);
    expect(won.position.isWon()).toBe(true);
    expect(await analysePosition(solver, 'freecell', won.position)).toMatchObject({ verdict: 'winnable', movesLeft: 0 });
  });

  it('names the move that lost a game as POST /v1/review does, and the memo spares the review its searches', async () => {
    const solver = await createLocalSolver({ memo: 64 });
    let game = Game.start(Position.of(dealOf('freecell', 1)));
    const verdicts: string[] = [];
    for (const token of ['1a', '2b', '3c', '4d']) {
      game = game.play(game.position.read(token), { autoMoves: true });
      verdicts.push((await analysePosition(solver, 'freecell', game.position, { limits: PLAY_LIMITS })).verdict);
    }
    expect(verdicts).toEqual(['winnable', 'winnable', 'winnable', 'lost']);
    const review = await solver.review({ game: 'freecell', deal: 1, moves: game.notation.join(' ') });
    expect(review.result).toBe('lost');

    const solves = vi.spyOn(Engine.prototype, 'solve');
    try {
      const loss = await findLosingMove(solver, 'freecell', game, { from: 2, limits: PLAY_LIMITS });
      expect(solves).not.toHaveBeenCalled(); // positions 2 and 4 were decided by the analyses above
      expect(loss).toMatchObject({ result: 'lost', moveIndex: review.lost!.moveIndex, notation: review.lost!.notation, proofPositions: review.lost!.proof.positions });
      if (loss.result !== 'lost') return;
      expect(loss.moveIndex).toBe(3);
      // the alternative: a legal move at the position before the losing one, leading a checked winning line
      const before = game.positionAfter(loss.alternative.moveIndex);
      const line = Game.replay(before, loss.alternative.line);
      expect(line.position.isWon()).toBe(true);
      expect(loss.alternative.line[0]).toBe(loss.alternative.notation);
      // from the start: the same move (the review's search over the whole game)
      expect(await findLosingMove(solver, 'freecell', game)).toMatchObject({ result: 'lost', moveIndex: 3, notation: '4d' });
    } finally {
      solves.mockRestore();
    }
    // a deal lost from the start
    const hopeless = Game.start(Position.of(dealOf('freecell', 11982)));
    const one = hopeless.play(hopeless.position.legalMoves()[0]);
    expect(await findLosingMove(solver, 'freecell', one, { from: 1 })).toMatchObject({ result: 'lost_at_start', proofPositions: 61643 });
  });
});

/**
 * Small builders for hand-made positions and moves in the checker and
 * notation tests.
 */
import { cardToString, parseCard, type Card } from '../../client-sdk/core/cards.js';
import type { Move } from '../../client-sdk/core/moves.js';
import { applyMove, checkMove } from '../../client-sdk/core/verify.js';
import type { Engine } from '../../client-sdk/core/engine/index.js';
import { findPreset, type Deal, type Layout, type Rules } from '../../client-sdk/core/rules.js';

/** Cards from text, e.g. `"KH QS 10D"`. */
export function cards(text: string): Card[] {
  return text
    .split(/\s+/)
    .filter(Boolean)
    .map((t) => {
      const c = parseCard(t);
      if (c === null) throw new Error(`bad card ${t}`);
      return c;
    });
}

/** A layout from column texts, cell texts (null = empty) and foundation counts (C, D, H, S). */
export function layout(columns: string[], cells: (string | null)[], foundations: [number, number, number, number]): Layout {
  return {
    columns: columns.map(cards),
    freeCells: cells.map((c) => (c === null ? null : cards(c)[0])),
    foundations: [...foundations] as [number, number, number, number],
  };
}

/** Place names: `c3` column 3, `f1` free cell 1, `h2` foundation of suit 2. */
export function mv(from: string, to: string, card: string, count = 1, auto = false): Move {
  const place = (p: string) => ({ kind: p[0], index: Number(p.slice(1)) });
  const f = place(from);
  const t = place(to);
  return {
    from: f.kind === 'c' ? 'column' : 'cell',
    fromIndex: f.index,
    to: t.kind === 'c' ? 'column' : t.kind === 'f' ? 'cell' : 'foundation',
    toIndex: t.index,
    count,
    card,
    auto,
  };
}

/** A preset's rules (served or not: `findPreset`). */
export function rulesOf(id: string): Rules {
  const preset = findPreset(id);
  if (!preset) throw new Error(`no preset ${id}`);
  return preset.rules;
}

/**
 * Rules for format tests: only the column and cell counts, the foundation
 * base and whether the cells are a reserve (`emptyCell`, which names the
 * `Reserve:` line) matter there.
 */
export function rulesWith(columns: number, freeCells: number, foundationBase = 1, emptyCell: 'any' | 'none' = 'any'): Rules {
  const rules: Rules = { columns, freeCells, build: 'suit', emptyColumn: 'any', sequenceMove: 'none', foundationBase, wrap: foundationBase !== 1 };
  return emptyCell === 'none' ? { ...rules, emptyCell } : rules;
}

/** Columns, cells and whether the cells are a reserve (King Albert) of each game in the shared deal vectors. */
export const GAME_SHAPE: Record<string, [number, number, 'any' | 'none']> = {
  freecell: [8, 4, 'any'],
  bakers_game: [8, 4, 'any'],
  streets_and_alleys: [8, 0, 'any'],
  beleaguered_castle: [8, 0, 'any'],
  citadel: [8, 0, 'any'],
  eight_off: [8, 8, 'any'],
  seahaven_towers: [10, 4, 'any'],
  bakers_dozen: [13, 0, 'any'],
  good_measure: [10, 0, 'any'],
  fan: [18, 0, 'any'],
  king_albert: [9, 7, 'none'],
  siegecraft: [8, 1, 'any'],
  stronghold: [8, 1, 'any'],
};

/**
 * Every legal single-card move of `layout` under `deal.rules`, by the
 * checker (`checkMove`): column to column and column to foundation, the
 * only moves of the no-cell Castle games. Used by their random walks.
 */
export function legalSingleCardMoves(deal: Deal, layout: Layout): Move[] {
  const legal: Move[] = [];
  layout.columns.forEach((column, from) => {
    if (column.length === 0) return;
    const card = cardToString(column[column.length - 1]);
    const tries: Move[] = [{ from: 'column', fromIndex: from, to: 'foundation', toIndex: 0, count: 1, card, auto: false }];
    for (let to = 0; to < layout.columns.length; to++) {
      if (to !== from) tries.push({ from: 'column', fromIndex: from, to: 'column', toIndex: to, count: 1, card, auto: false });
    }
    for (const m of tries) if (checkMove(deal.rules, layout, m) === null) legal.push(m);
  });
  return legal;
}

/**
 * A position late in a won game of `deal`, whose reachable set is small: the
 * engine solves `deal` (2,000,000 positions, 60 s; it must be solved), and
 * the solution's moves are played by the checker's `applyMove` until 40
 * cards are home or up to the last tableau move. Returns the deal with that
 * layout (same rules). Throws when `deal` is not solved within the budget.
 */
export function latePosition(engine: Engine, deal: Deal): Deal {
  const won = engine.solve(deal, { limits: { maxStates: 2_000_000, timeoutMs: 60_000 } });
  if (won.verdict !== 'solved') throw new Error(`latePosition: the deal is not solved (${won.verdict})`);
  const lastTableau = won.moves.reduce((at, m, i) => (!m.auto && m.to !== 'foundation' ? i : at), 0);
  let layout = deal.layout;
  for (const m of won.moves.slice(0, lastTableau)) {
    if (layout.foundations.reduce((a, b) => a + b, 0) >= 40) break;
    layout = applyMove(deal.rules, layout, m);
  }
  return { rules: deal.rules, layout };
}

/**
 * Small unsolvable PySolFC deals of the no-cell Castle games the layered
 * pass runs in (reference verdicts), each a complete search of at most a
 * few hundred thousand positions: the deals the layered pass, the sharded
 * pass and the layered certificate are compared with the full search on.
 * Good Measure's emptied columns are never filled (docs/proofs.md "The
 * layer order").
 */
export const SMALL_UNSOLVABLE_CASTLE_DEALS = [
  ['beleaguered_castle', [1, 3, 21, 26]],
  ['streets_and_alleys', [1, 2, 5, 6]],
  ['citadel', [21, 26, 46]],
  ['good_measure', [1, 15, 40, 55]],
] as const;

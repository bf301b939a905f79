/**
 * A second, deliberately simple exhaustive solver: the test oracle the
 * engine's verdicts on the games of Baker's Dozen, Fan, King Albert and the
 * one-cell Castle games are compared with (docs/rules.md "Solvability
 * reference figures"). It shares no code with the engine (`assembly/`) and
 * none with the checker (`client-sdk/core/verify.ts`): its move rules are
 * written again from docs/rules.md ("Rule parameters", "tableau build"), and
 * `tests/unit/oracle.test.ts` holds them to the checker's, move for move, on
 * random walks of every game; every solution it finds is replayed by the
 * checker there.
 *
 * What it searches: single-card moves only (column or cell to a column, a
 * cell or the foundation), depth first, every position stored under a key
 * that sorts the columns and the cells. Both orders are sound for every
 * game it takes (columns are alike, cells are alike), and a sequence move
 * under `none`, `supermove` or `cells_plus_one` is a shortcut of single-card
 * moves (docs/rules.md "Sequence-move capacity"), so the verdict is the
 * game's. No auto-moves, no pruning: `unsolvable` means every position
 * reachable from the start was seen. Not supported (it throws): `unlimited`
 * sequence moves and wrapping ranks.
 */
import { cardToString, rankOf, suitOf, type Card } from '../../client-sdk/core/cards.js';
import type { Move } from '../../client-sdk/core/moves.js';
import type { Layout, Rules } from '../../client-sdk/core/rules.js';

/** The oracle's answer; `moves` (single-card moves, none `auto`) when solved. */
export interface OracleResult {
  verdict: 'solved' | 'unsolvable' | 'unknown';
  /** Distinct positions stored (the start included). */
  positions: number;
  moves?: Move[];
}

/** A position as the oracle keeps it: plain arrays, never shared between positions. */
interface Pos {
  columns: Card[][];
  cells: (Card | null)[];
  foundations: number[];
}

const isRed = (card: Card): boolean => suitOf(card) === 1 || suitOf(card) === 2;

/** True when `card` may lie on `base` in a column (docs/rules.md "tableau build"; no wrapping). */
function buildsOn(rules: Rules, base: Card, card: Card): boolean {
  const diff = rankOf(base) - rankOf(card);
  const sameSuit = suitOf(base) === suitOf(card);
  if (rules.build === 'alternate_color') return diff === 1 && isRed(base) !== isRed(card);
  if (rules.build === 'suit') return diff === 1 && sameSuit;
  if (rules.build === 'rank') return diff === 1;
  return sameSuit && (diff === 1 || diff === -1); // suit_up_or_down
}

/** True when an empty column takes `card` (`any`; `kings`: a King; `none`: nothing). */
function emptyTakes(rules: Rules, card: Card): boolean {
  return rules.emptyColumn === 'any' || (rules.emptyColumn === 'kings' && rankOf(card) === 13);
}

/** The key of a position: foundations, then the cells and the columns each sorted. */
function keyOf(p: Pos): string {
  const cols = p.columns.map((c) => String.fromCharCode(...c.map((x) => x + 40))).sort();
  const cells = p.cells.filter((c): c is Card => c !== null).sort((a, b) => a - b);
  return `${p.foundations.join(',')}|${String.fromCharCode(...cells.map((x) => x + 40))}|${cols.join('/')}`;
}

/**
 * Every legal single-card move of `p`: from each column top and each filled
 * cell, to the card's foundation, to every column that takes it, and to
 * every empty cell (none when the cells are a reserve). With `all: false`,
 * of several empty columns or empty cells only the first is a target (the
 * others give the same key).
 */
function movesOf(rules: Rules, p: Pos, all: boolean): Move[] {
  const out: Move[] = [];
  const sources: { from: 'column' | 'cell'; index: number; card: Card }[] = [];
  p.columns.forEach((col, i) => {
    if (col.length > 0) sources.push({ from: 'column', index: i, card: col[col.length - 1] });
  });
  p.cells.forEach((card, i) => {
    if (card !== null) sources.push({ from: 'cell', index: i, card });
  });
  for (const { from, index, card } of sources) {
    const text = cardToString(card);
    const move = (to: Move['to'], toIndex: number): Move => ({ from, fromIndex: index, to, toIndex, count: 1, card: text, auto: false });
    if (p.foundations[suitOf(card)] + 1 === rankOf(card)) out.push(move('foundation', suitOf(card)));
    let emptySeen = false;
    p.columns.forEach((col, t) => {
      if (from === 'column' && t === index) return;
      if (col.length > 0) {
        if (buildsOn(rules, col[col.length - 1], card)) out.push(move('column', t));
      } else if (emptyTakes(rules, card) && (all || !emptySeen)) {
        emptySeen = true;
        // a lone card to an empty column changes nothing
        if (all || !(from === 'column' && p.columns[index].length === 1)) out.push(move('column', t));
      }
    });
    if (rules.emptyCell === 'none' || from === 'cell') continue; // a cell-to-cell move changes nothing either
    for (let t = 0; t < p.cells.length; t++) {
      if (p.cells[t] !== null) continue;
      out.push(move('cell', t));
      if (!all) break;
    }
  }
  if (all && rules.emptyCell !== 'none') {
    // cell to cell, legal though pointless: listed so that the comparison with the checker is complete
    p.cells.forEach((card, i) => {
      if (card === null) return;
      p.cells.forEach((other, t) => {
        if (t !== i && other === null) out.push({ from: 'cell', fromIndex: i, to: 'cell', toIndex: t, count: 1, card: cardToString(card), auto: false });
      });
    });
  }
  return out;
}

/** `p` after `m` (a new position). */
function play(p: Pos, m: Move): Pos {
  const next: Pos = { columns: p.columns.map((c) => c.slice()), cells: p.cells.slice(), foundations: p.foundations.slice() };
  let card: Card;
  if (m.from === 'column') card = next.columns[m.fromIndex].pop()!;
  else {
    card = next.cells[m.fromIndex]!;
    next.cells[m.fromIndex] = null;
  }
  if (m.to === 'column') next.columns[m.toIndex].push(card);
  else if (m.to === 'cell') next.cells[m.toIndex] = card;
  else next.foundations[m.toIndex]++;
  return next;
}

function toPos(layout: Layout): Pos {
  return { columns: layout.columns.map((c) => c.slice()), cells: layout.freeCells.slice(), foundations: layout.foundations.slice() };
}

function checkSupported(rules: Rules): void {
  if (rules.wrap || rules.foundationBase !== 1) throw new Error('oracle: wrapping ranks are not supported');
  if (rules.sequenceMove === 'unlimited') throw new Error('oracle: unlimited sequence moves are not supported');
}

/**
 * Every legal single-card move of `layout` as the oracle sees them (all
 * targets, pointless ones included), for the comparison with the checker.
 */
export function oracleMoves(rules: Rules, layout: Layout): Move[] {
  checkSupported(rules);
  return movesOf(rules, toPos(layout), true);
}

/**
 * Decides `layout` under `rules` by exhaustive depth-first search of
 * single-card moves (see the file comment).
 * @param maxPositions most positions stored; past it the answer is `unknown`.
 * @throws Error for rules the oracle does not support.
 */
export function oracleSolve(rules: Rules, layout: Layout, maxPositions: number): OracleResult {
  checkSupported(rules);
  const start = toPos(layout);
  const seen = new Set<string>([keyOf(start)]);
  const won = (p: Pos) => p.foundations.every((n) => n === 13);
  if (won(start)) return { verdict: 'solved', positions: 1, moves: [] };
  // the path: the positions from the start and, for each, the moves not yet tried
  const path: { pos: Pos; moves: Move[]; next: number }[] = [{ pos: start, moves: movesOf(rules, start, false), next: 0 }];
  while (path.length > 0) {
    const top = path[path.length - 1];
    if (top.next >= top.moves.length) {
      path.pop();
      continue;
    }
    const move = top.moves[top.next++];
    const next = play(top.pos, move);
    const key = keyOf(next);
    if (seen.has(key)) continue;
    if (seen.size >= maxPositions) return { verdict: 'unknown', positions: seen.size };
    seen.add(key);
    if (won(next)) {
      const moves = path.map((f) => f.moves[f.next - 1]);
      return { verdict: 'solved', positions: seen.size, moves };
    }
    path.push({ pos: next, moves: movesOf(rules, next, false), next: 0 });
  }
  return { verdict: 'unsolvable', positions: seen.size };
}

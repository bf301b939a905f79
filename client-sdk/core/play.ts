/**
 * A game in play: the position a player moves in and the game's history
 * with undo and redo. What a solitaire app needs between the deal and the
 * solver (the play page, web/src/play/, is built on it; docs/sdk.md "Play").
 *
 * Every rule question goes to the independent checker (`verify.ts`): which
 * moves are legal (`legalMoves`), why one is not (`moveFault`, places named
 * as standard notation names them: `column 3`, `free cell a`), and what a
 * move does (`applyMove`). Safe auto-moves to the foundations follow the
 * rule the proof checker vouches for in these rules (`autoMoveRuleFor`,
 * docs/proofs.md "Why each reduction is sound": a card that may go home
 * keeps a winnable position winnable).
 *
 * Both classes are immutable: a move, an undo or a redo returns a new
 * object (cheap to keep in an app's state).
 */
import { cardToString, suitOf } from './cards.js';
import { SolverError } from './errors.js';
import type { Move, MoveSource, MoveTarget } from './moves.js';
import { layoutKey, moveFromNotation, NOTATION_PLACE_NAMES, replayMoveList, splitMoveText, type MoveListEntry } from './move-list.js';
import { toStandardNotation } from './notation.js';
import { isSafe } from './proof/check-auto-moves.js';
import { relRank } from './proof/check-keys.js';
import { autoMoveRuleFor } from './proof/format.js';
import type { Deal, Layout, Rules } from './rules.js';
import { applyMove, checkMove, checkSolution, isWon, legalMoves } from './verify.js';

/** A place of the board a move starts from or ends on (indices 0-based; a foundation by suit, 0..3 = C, D, H, S). */
export interface Place<K extends MoveTarget = MoveTarget> {
  kind: K;
  index: number;
}

/** One position of a game: rules and layout, with the moves the rules allow from it. */
export class Position {
  private legal: Move[] | undefined;

  private constructor(
    /** The game's rules. */
    readonly rules: Rules,
    /** The cards where they lie (never changed: moves make new positions). */
    readonly layout: Layout,
  ) {}

  /**
   * The position of a deal (rules and layout, e.g. from `resolveDeal`).
   * @throws SolverError `invalid_layout` with the checker's reason when the
   *   rules are invalid or the layout does not hold every card once in the
   *   places the rules give (verify.ts `checkSolution`).
   */
  static of(deal: Deal): Position {
    const check = checkSolution(deal.rules, deal.layout, []);
    if (!check.ok && check.moveIndex === -1) throw new SolverError('invalid_layout', check.reason);
    return new Position(deal.rules, deal.layout);
  }

  /** Every legal move here, in verify.ts `legalMoves` order (computed once). */
  legalMoves(): Move[] {
    this.legal ??= legalMoves(this.rules, this.layout);
    return this.legal;
  }

  /**
   * The move that takes `count` cards (default 1) from `from` to `to`: the
   * card read off the position, a foundation target turned into the
   * foundation of the card's suit. Whether it is legal is not checked (see
   * {@link whyIllegal}). Null when the source holds fewer than `count`
   * cards (an empty column or free cell).
   */
  move(from: Place<MoveSource>, to: Place, count = 1): Move | null {
    let card: number | null | undefined;
    if (from.kind === 'column') {
      const column = this.layout.columns[from.index];
      card = column !== undefined && count >= 1 && count <= column.length ? column[column.length - count] : null;
    } else {
      card = count === 1 ? this.layout.freeCells[from.index] : null;
    }
    if (card === null || card === undefined) return null;
    return {
      from: from.kind,
      fromIndex: from.index,
      to: to.kind,
      toIndex: to.kind === 'foundation' ? suitOf(card) : to.index,
      count,
      card: cardToString(card),
      auto: false,
    };
  }

  /** Why `move` is illegal here, in words (places named as in standard notation: `column 3`, `free cell a`), or null when it is legal. */
  whyIllegal(move: Move): string | null {
    return checkMove(this.rules, this.layout, move, NOTATION_PLACE_NAMES);
  }

  /**
   * The position after `move`.
   * @throws SolverError `illegal_move` with {@link whyIllegal}'s reason when it is illegal.
   */
  play(move: Move): Position {
    const reason = this.whyIllegal(move);
    if (reason !== null) throw new SolverError('illegal_move', reason);
    return new Position(this.rules, applyMove(this.rules, this.layout, move));
  }

  /**
   * A standard-notation token (`3a`, `a4`, `38`, `3h`) as a move here: from
   * a column to a column the longest run that may go there (move-list.ts).
   * @throws SolverError `illegal_move` when the token names no place of the
   *   game or an empty source (its legality is {@link whyIllegal}'s business).
   */
  read(token: string): Move {
    return moveFromNotation(token, this.rules, this.layout, 0);
  }

  /** `move` in standard notation (`3a`). @throws SolverError `illegal_move` for a place the rules lack. */
  notation(move: Move): string {
    return toStandardNotation([move], this.rules)[0];
  }

  /**
   * The next safe auto-move, or null: a legal move to a foundation (free
   * cells first, then columns left to right) of a card that the rule
   * `autoMoveRuleFor(rules)` lets go home (FreeCell: rank 2 or less, or both
   * foundations of the other colour at rank − 1 or more). `auto: true`.
   */
  safeAutoMove(): Move | null {
    const rule = autoMoveRuleFor(this.rules);
    if (rule === 'none') return null;
    const home = this.legalMoves().filter((m) => m.to === 'foundation');
    const ordered = [...home.filter((m) => m.from === 'cell'), ...home.filter((m) => m.from === 'column')];
    for (const move of ordered) {
      const card = move.from === 'cell' ? this.layout.freeCells[move.fromIndex]! : this.layout.columns[move.fromIndex].at(-1)!;
      if (isSafe(rule, relRank(card, this.rules.foundationBase), suitOf(card), this.layout.foundations)) return { ...move, auto: true };
    }
    return null;
  }

  /** True when every card is on the foundations. */
  isWon(): boolean {
    return isWon(this.layout);
  }

  /** A string equal for two positions exactly when their cards lie the same (move-list.ts `layoutKey`; the rules are not part of it). */
  key(): string {
    return layoutKey(this.layout);
  }
}

/** Options of {@link Game.play}. */
export interface PlayOptions {
  /** After the move, play every safe auto-move ({@link Position.safeAutoMove}) as part of the same turn. Default false. */
  autoMoves?: boolean;
}

/**
 * A game in progress: the start, the turns played and the turns undone (for
 * redo). A turn is the player's move and the safe auto-moves that followed
 * it; undo and redo go a turn at a time. Moves are counted across turns
 * (move k is the k-th entry of {@link moves}, 0-based), as `POST
 * /v1/review` counts them.
 */
export class Game {
  private constructor(
    /** The position the game started from. */
    readonly start: Position,
    /** Every turn, the undone ones too (after `turnsPlayed`). */
    private readonly turns: readonly (readonly Move[])[],
    /** Turns played (the rest are undone, ready for redo). */
    readonly turnsPlayed: number,
    /** `positions[k]`: the position after k moves of all `turns`. */
    private readonly positions: readonly Position[],
  ) {}

  /** A game at its start. */
  static start(start: Position): Game {
    return new Game(start, [], 0, [start]);
  }

  /**
   * A game replayed from a move list: standard notation (one string, `"3a
   * 32 a3"`, or a list of tokens) or JSON moves; each entry becomes one
   * turn. Read as `POST /v1/review` reads a list (move-list.ts
   * `replayMoveList`).
   * @throws SolverError `illegal_move` (path `moves.<i>`) for the first
   *   unreadable or illegal entry, with the checker's reason.
   */
  static replay(start: Position, entries: string | readonly MoveListEntry[]): Game {
    const list = typeof entries === 'string' ? splitMoveText(entries) : entries;
    const { moves, positions } = replayMoveList(start.rules, start.layout, list);
    const all = [start, ...positions.slice(1).map((layout) => Position.of({ rules: start.rules, layout }))];
    return new Game(start, moves.map((m) => [m]), moves.length, all);
  }

  /** The position after the turns played. */
  get position(): Position {
    return this.positions[this.moveCount];
  }

  /** Moves played (auto-moves included), from the start. */
  get moves(): Move[] {
    return this.turns.slice(0, this.turnsPlayed).flat();
  }

  /** Number of moves played. */
  get moveCount(): number {
    let n = 0;
    for (let t = 0; t < this.turnsPlayed; t++) n += this.turns[t].length;
    return n;
  }

  /** The moves played in standard notation. */
  get notation(): string[] {
    return toStandardNotation(this.moves, this.start.rules);
  }

  /** The position after `k` moves played (0: the start), 0 ≤ k ≤ {@link moveCount}. @throws RangeError otherwise. */
  positionAfter(k: number): Position {
    if (!Number.isInteger(k) || k < 0 || k > this.moveCount) throw new RangeError(`no position after ${k} moves (0..${this.moveCount})`);
    return this.positions[k];
  }

  /** Turns that can be undone / redone. */
  get canUndo(): boolean {
    return this.turnsPlayed > 0;
  }
  get canRedo(): boolean {
    return this.turnsPlayed < this.turns.length;
  }

  /** Number of moves in each played turn (the player's move, then its auto-moves). */
  get turnLengths(): number[] {
    return this.turns.slice(0, this.turnsPlayed).map((t) => t.length);
  }

  /**
   * Plays `move` as a new turn (with the safe auto-moves after it when
   * `options.autoMoves`); the undone turns are dropped.
   * @throws SolverError `illegal_move` with the checker's reason (places as
   *   standard notation names them) when the move is illegal.
   */
  play(move: Move, options: PlayOptions = {}): Game {
    const played = this.positions.slice(0, this.moveCount + 1);
    let position = this.position.play({ ...move, auto: false });
    const turn: Move[] = [{ ...move, auto: false }];
    played.push(position);
    for (let auto = options.autoMoves ? position.safeAutoMove() : null; auto !== null; auto = position.safeAutoMove()) {
      position = position.play(auto);
      turn.push(auto);
      played.push(position);
    }
    return new Game(this.start, [...this.turns.slice(0, this.turnsPlayed), turn], this.turnsPlayed + 1, played);
  }

  /** The game one turn back (itself at the start). */
  undo(): Game {
    return this.goTo(this.turnsPlayed - 1);
  }

  /** The game one undone turn forward (itself when none is undone). */
  redo(): Game {
    return this.goTo(this.turnsPlayed + 1);
  }

  /** Back at the start, every turn kept for redo. */
  restart(): Game {
    return this.goTo(0);
  }

  /** The game after `turns` turns (clamped to 0..all turns, the undone ones included). */
  goTo(turns: number): Game {
    const t = Math.max(0, Math.min(this.turns.length, Math.trunc(turns)));
    return t === this.turnsPlayed ? this : new Game(this.start, this.turns, t, this.positions);
  }

  /** Total turns, the undone ones included. */
  get turnCount(): number {
    return this.turns.length;
  }

  /** Every turn's moves, the undone ones too (those after {@link turnsPlayed}). */
  get allTurns(): readonly (readonly Move[])[] {
    return this.turns;
  }
}

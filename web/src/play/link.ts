/**
 * The play page's link: `/play#game=freecell&deal=617&numbering=ms&moves=3a+32+a3`
 * reopens the deal after those moves (standard notation, every move, the
 * auto-moves too); `board=<fc-solve text>` instead of `deal` starts from a
 * pasted position (the solver page's "Play from here" link sends one);
 * `maxStates=<n>` sets the browser's state budget for each analysis. The start
 * position is made by the SDK's own `resolveDeal`, the moves replayed by the
 * SDK's `Game.replay` (the checker's rules), as `POST /v1/review` reads them.
 */
import { resolveDeal } from '../../../client-sdk/api/request.js';
import { SolverError } from '../../../client-sdk/core/errors.js';
import { splitMoveText } from '../../../client-sdk/core/move-list.js';
import { Game, Position } from '../../../client-sdk/core/play.js';
import type { Numbering } from '../../../client-sdk/core/rules.js';
import type { SolveRequest } from '../api.js';

/** What a link names: the game, the start (a deal number or a board) and the moves played. */
export interface PlayLink {
  game: string;
  deal?: string;
  numbering?: Numbering;
  board?: string;
  /** Standard-notation tokens, in order. */
  moves: string[];
  /** The browser's state budget for each analysis (`maxStates=`), when not PLAY_LIMITS' (a smaller one hands more positions to the service). */
  maxStates?: number;
}

/** The default game: MS FreeCell 617. */
export const DEFAULT_LINK: Readonly<PlayLink> = Object.freeze({ game: 'freecell', deal: '617', numbering: 'ms', moves: [] });

/** Reads a hash written by {@link playHash}; null when it names no game. */
export function parsePlayHash(hash: string): PlayLink | null {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const game = p.get('game');
  if (!game) return null;
  const numbering = p.get('numbering');
  const board = p.get('board');
  const budget = Number(p.get('maxStates') ?? NaN);
  const maxStates = Number.isSafeInteger(budget) && budget > 0 ? budget : undefined;
  return {
    game,
    ...(board !== null ? { board } : { deal: p.get('deal') ?? '1' }),
    ...(numbering === 'ms' || numbering === 'pysolfc' ? { numbering } : {}),
    moves: splitMoveText(p.get('moves') ?? ''),
    ...(maxStates !== undefined ? { maxStates } : {}),
  };
}

/** The hash (without `#`) of a link; the moves joined by `+` (URLSearchParams' space). */
export function playHash(link: PlayLink): string {
  const p = new URLSearchParams();
  p.set('game', link.game);
  if (link.board !== undefined) p.set('board', link.board);
  else {
    p.set('deal', link.deal ?? '1');
    if (link.numbering) p.set('numbering', link.numbering);
  }
  if (link.maxStates !== undefined) p.set('maxStates', String(link.maxStates));
  if (link.moves.length > 0) p.set('moves', link.moves.join(' '));
  return p.toString();
}

/** A link opened: the game at its moves, or why it could not be (and the game up to the last legal move, when the start was fine). */
export type Opened = { game: Game; error?: string } | { game: null; error: string };

/**
 * The game a link names. An unreadable or illegal move stops the replay
 * there: the game is returned up to the move before it, with the checker's
 * reason.
 */
export function openLink(link: PlayLink): Opened {
  let start: Position;
  try {
    const request: SolveRequest = { game: link.game, ...(link.board !== undefined ? { board: link.board } : { deal: dealNumber(link.deal ?? '1'), numbering: link.numbering }) };
    start = Position.of(resolveDeal(request));
  } catch (err) {
    return { game: null, error: err instanceof Error ? err.message : String(err) };
  }
  try {
    return { game: Game.replay(start, link.moves) };
  } catch (err) {
    if (!(err instanceof SolverError)) throw err;
    const at = Number(/^moves\.(\d+)$/.exec(err.location?.path ?? '')?.[1] ?? 0);
    return { game: Game.replay(start, link.moves.slice(0, at)), error: `The link's move ${at + 1} could not be played: ${err.message}` };
  }
}

/** A deal number as the request takes it (digits as a number when safe; anything else as text, for the SDK to refuse in its words). */
function dealNumber(text: string): number | string {
  const t = text.trim();
  return /^\d+$/.test(t) && Number.isSafeInteger(Number(t)) ? Number(t) : t;
}

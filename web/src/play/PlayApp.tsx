/**
 * The play page (`/play`): play a deal yourself, with the solver beside
 * you. After every move the position is analysed (verdicts.ts): still
 * winnable, lost (and by which move), or unknown; Hint shows the next move
 * of a short solution; Undo, Redo, Restart and the move list go to any
 * point of the game. The rules are the SDK's `Position` and `Game`, which
 * ask the independent checker (client-sdk/core/verify.ts) about every move.
 *
 * State: the link (game, start and moves, mirrored in the URL hash), the
 * game, the cards picked up, a pending notation key, the hint shown and
 * the last refusal.
 */
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'preact/hooks';
import type { Move } from '../../../client-sdk/core/moves.js';
import type { Game, Place } from '../../../client-sdk/core/play.js';
import { findPreset, PRESETS, type Numbering } from '../../../client-sdk/core/rules.js';
import { SolverError } from '../../../client-sdk/core/errors.js';
import { toStandardNotation } from '../../../client-sdk/core/notation.js';
import { PLAY_LIMITS } from '../../../client-sdk/sdk/analysis.js';
import { SERVICE_ROOT } from '../api.js';
import { CopyButton } from '../components/CopyButton.js';
import { PageTitle } from '../components/PageTitle.js';
import { prettyCard, SUIT_NAMES } from '../cardface.js';
import { cellSymbol, columnSymbol } from '../replay.js';
import type { Rules } from '../../../client-sdk/core/rules.js';
import { DEFAULT_LINK, openLink, parsePlayHash, playHash, type Opened, type PlayLink } from './link.js';
import { PlayBoard, parsePlace, type Picked } from './PlayBoard.js';
import { PlayStatus } from './PlayStatus.js';
import { useLiveVerdict } from './verdicts.js';

/** Picked cards, and whether their count was chosen (a card clicked) or left to the target (a place activated, a notation key). */
interface Pick extends Picked {
  chosen: boolean;
}

/** The page's game state. */
interface Now {
  game: Game | null;
  pick: Pick | null;
  /** A notation key typed, waiting for the target's. */
  pendingKey: string | null;
  /** Why the last move was refused. */
  refusal: string | null;
  /** Why the link could not be opened (in full). */
  linkError: string | null;
  /** The link opening this state came from. */
  openedFrom: Opened;
}

const AUTO_MOVES_KEY = 'solitaire-solver.autoMoves';

function initialLink(): PlayLink {
  return parsePlayHash(location.hash) ?? { ...DEFAULT_LINK };
}

function storedAutoMoves(): boolean {
  try {
    return localStorage.getItem(AUTO_MOVES_KEY) !== 'off';
  } catch {
    return true;
  }
}

/** True when keys typed go to a text field (a deal number, a board), not to the game; a checkbox or a button leaves them to the game. */
function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target instanceof HTMLInputElement) return !['checkbox', 'radio', 'button', 'submit', 'reset'].includes(target.type);
  return target.isContentEditable || /^(TEXTAREA|SELECT)$/.test(target.tagName);
}

/** The standard-notation symbols a key may be: columns `1`-`9`, `0`; cells `a`-`g`, `i`; `h` the foundations. */
const SYMBOL = /^[0-9a-i]$/;

export function PlayApp() {
  const [link, setLink] = useState<PlayLink>(initialLink);
  const opened = useMemo(() => openLink(link), [link]);
  // What the handlers read and write: kept in a ref, so that events quicker than a render (keys typed fast) see each other.
  const now = useRef<Now>({ game: opened.game, pick: null, pendingKey: null, refusal: null, linkError: opened.error ?? null, openedFrom: opened });
  const [, render] = useReducer((n: number) => n + 1, 0);
  const set = useCallback((patch: Partial<Now>) => {
    Object.assign(now.current, patch);
    render(0);
  }, []);
  // A new link (a deal chosen in the form, a link pasted into the address bar): a new game.
  if (now.current.openedFrom !== opened) Object.assign(now.current, { game: opened.game, pick: null, pendingKey: null, refusal: null, linkError: opened.error ?? null, openedFrom: opened });
  const { game, pick, pendingKey, refusal, linkError } = now.current;

  const [hintShown, setHintShown] = useState<string | null>(null);
  const [autoMoves, setAutoMoves] = useState(storedAutoMoves);
  const startKey = `${link.game}|${link.board ?? `${link.deal}|${link.numbering}`}|${link.maxStates ?? ''}`;
  const budget = useMemo(() => (link.maxStates !== undefined ? { ...PLAY_LIMITS, maxStates: link.maxStates } : undefined), [link.maxStates]);
  const live = useLiveVerdict(link.game, startKey, game, budget);

  useEffect(() => {
    const onHash = () => {
      const next = parsePlayHash(location.hash);
      if (next && location.hash.slice(1) !== playHash({ ...link, moves: now.current.game?.notation ?? [] })) setLink(next);
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, [link]);

  // The address bar follows the game.
  useEffect(() => {
    if (game) history.replaceState(null, '', `#${playHash({ ...link, moves: game.notation })}`);
  }, [game, link]);

  const position = game?.position ?? null;
  const won = position?.isWon() ?? false;
  const analysis = live.verdict?.analysis ?? null;
  const final = live.verdict !== null && !live.verdict.shortening;
  const hintWanted = hintShown !== null && position !== null && hintShown === position.key();
  const hintMove: Move | null = hintWanted && final && analysis?.verdict === 'winnable' && analysis.moves.length > 0 ? analysis.moves[0] : null;

  /** The game after a move, an undo, a redo: the picked cards go back. */
  const update = (next: Game) => set({ game: next, pick: null, pendingKey: null, refusal: null });
  const refuse = (text: string) => set({ refusal: text, pick: null, pendingKey: null });

  /** Moves picked cards to `to`, or says why not (the checker's reason). */
  const tryMove = (p: Pick, to: Place) => {
    const g = now.current.game;
    if (!g) return;
    const here = g.position;
    let move = here.move(p.from, to, p.count);
    if (move === null) return;
    let reason = here.whyIllegal(move);
    if (p.from.kind === 'column' && to.kind === 'column' && (reason !== null || !p.chosen)) {
      // a column picked as a whole, or a run that does not fit as picked onto a card: the longest run that may go there (as notation reads `38`)
      if (!p.chosen || here.layout.columns[to.index]?.length !== 0) {
        const runs = here.legalMoves().filter((m) => m.from === 'column' && m.fromIndex === p.from.index && m.to === 'column' && m.toIndex === to.index);
        const longest = runs.reduce<Move | null>((best, m) => (best === null || m.count > best.count ? m : best), null);
        if (longest) {
          move = longest;
          reason = null;
        }
      }
    }
    if (reason !== null) return refuse(`${here.notation(move)} is not allowed: ${reason}.`);
    update(g.play(move, { autoMoves }));
  };

  /** A click, tap, Enter or Space on a place (`count` cards when a card of a column was clicked). */
  const activate = (place: Place, count?: number) => {
    const { game: g, pick: p } = now.current;
    if (!g) return;
    if (p === null) {
      if (place.kind === 'foundation') return;
      const size = place.kind === 'column' ? g.position.layout.columns[place.index].length : g.position.layout.freeCells[place.index] === null ? 0 : 1;
      if (size === 0) return;
      set({ pick: { from: place as Place<'column' | 'cell'>, count: count ?? 1, chosen: count !== undefined }, pendingKey: null, refusal: null });
      return;
    }
    if (place.kind === p.from.kind && place.index === p.from.index) {
      set({ pick: count !== undefined && count !== p.count ? { ...p, count, chosen: true } : null, pendingKey: null });
      return;
    }
    tryMove(p, place);
  };

  const sendHome = (from: Place<'column' | 'cell'>) => tryMove({ from, count: 1, chosen: true }, { kind: 'foundation', index: 0 });
  const undo = () => now.current.game?.canUndo && update(now.current.game.undo());
  const redo = () => now.current.game?.canRedo && update(now.current.game.redo());
  const restart = () => now.current.game && update(now.current.game.restart());
  const showHint = () => now.current.game && setHintShown(now.current.game.position.key());
  /** Back to the position before move `index` (0-based, counted over every move of the game). */
  const backTo = (index: number) => {
    const g = now.current.game;
    if (!g) return;
    let moves = 0;
    let turn = 0;
    while (turn < g.allTurns.length && moves + g.allTurns[turn].length <= index) moves += g.allTurns[turn++].length;
    update(g.goTo(turn));
  };

  /** A notation key: the first names the source (its top card is picked up), the second the target. */
  const notationKey = (key: string) => {
    const { game: g, pick: p, pendingKey: source } = now.current;
    if (!g) return;
    const here = g.position;
    if (source !== null) {
      try {
        const move = here.read(`${source}${key}`);
        const reason = here.whyIllegal(move);
        if (reason !== null) refuse(`${source}${key} is not allowed: ${reason}.`);
        else update(g.play(move, { autoMoves }));
      } catch (err) {
        refuse(err instanceof SolverError ? `${err.message.replace(/^move 0 /, '')}.` : String(err));
      }
      return;
    }
    const place = symbolPlace(key, here.rules.columns, here.rules.freeCells);
    if (p !== null) {
      if (place) tryMove(p, place);
      else refuse(`"${key}" is no place of this game.`);
      return;
    }
    if (!place || place.kind === 'foundation') return refuse(`"${key}" is no column or free cell of this game to move from.`);
    const size = place.kind === 'column' ? here.layout.columns[place.index].length : here.layout.freeCells[place.index] === null ? 0 : 1;
    if (size === 0) return refuse(`${place.kind === 'column' ? 'Column' : 'Free cell'} ${key} is empty.`);
    set({ pendingKey: key, pick: { from: place as Place<'column' | 'cell'>, count: 1, chosen: false }, refusal: null });
  };

  // The keyboard: notation keys (`3` then `a` plays 3a), Enter/Space on a place, ↑ ↓ ← →, U/R, Escape.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!now.current.game || isTyping(e.target)) return;
      const key = e.key.toLowerCase();
      const focused = document.activeElement instanceof HTMLElement ? parsePlace(document.activeElement.dataset.place) : null;
      if ((e.ctrlKey || e.metaKey) && !e.altKey) {
        if (key === 'z' && !e.shiftKey) undo();
        else if (key === 'y' || (key === 'z' && e.shiftKey)) redo();
        else return;
        e.preventDefault();
        return;
      }
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      const p = now.current.pick;
      if (e.key === 'Escape') return set({ pick: null, pendingKey: null });
      if ((e.key === 'Enter' || e.key === ' ') && focused) {
        e.preventDefault();
        return activate(focused);
      }
      if ((e.key === 'ArrowUp' || e.key === 'ArrowDown') && p?.from.kind === 'column') {
        const size = now.current.game.position.layout.columns[p.from.index].length;
        e.preventDefault();
        return set({ pick: { ...p, count: Math.max(1, Math.min(size, p.count + (e.key === 'ArrowUp' ? 1 : -1))), chosen: true }, pendingKey: null });
      }
      if ((e.key === 'ArrowLeft' || e.key === 'ArrowRight') && focused) {
        const all = [...document.querySelectorAll<HTMLElement>('.play-board [data-place]')];
        const at = all.indexOf(document.activeElement as HTMLElement);
        all[(at + (e.key === 'ArrowRight' ? 1 : all.length - 1)) % all.length]?.focus();
        e.preventDefault();
        return;
      }
      if (key === 'u') return undo();
      if (key === 'r') return redo();
      if (key === '?') return showHint();
      if (!SYMBOL.test(key)) return;
      e.preventDefault();
      notationKey(key);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  const preset = findPreset(link.game);
  const last = game && game.moveCount > 0 ? game.moves[game.moveCount - 1] : null;
  const losing = live.loss?.state === 'done' && live.loss.report.result === 'lost' ? live.loss.report.moveIndex : null;
  const title = `${preset?.name ?? link.game}${link.board === undefined ? ` · deal ${link.deal} (${link.numbering === 'pysolfc' ? 'PySolFC' : 'MS'})` : ' · a pasted board'}`;

  return (
    <div class="page play-page">
      <header class="page-header">
        <PageTitle>Play</PageTitle>
        <p class="tagline">
          <span class="wide-only">Play it yourself: after every move the solver says whether the game can still be won, and proves it when it cannot. </span>
          <a href={SERVICE_ROOT.href}>Solver page</a>
        </p>
      </header>

      <NewGame link={link} title={title} onOpen={(l) => setLink({ ...l, moves: [], ...(link.maxStates !== undefined ? { maxStates: link.maxStates } : {}) })} />
      {linkError && (
        <p class="error-line" role="alert" data-testid="link-error">
          {linkError}
        </p>
      )}

      {game && position && (
        <main class="workspace play-workspace">
          <div class="table-area">
            <div class="play-toolbar" role="toolbar" aria-label="Game">
              <button type="button" onClick={undo} disabled={!game.canUndo} aria-keyshortcuts="Control+Z U" title="Undo (U, Ctrl+Z)">
                Undo
              </button>
              <button type="button" onClick={redo} disabled={!game.canRedo} aria-keyshortcuts="Control+Y R" title="Redo (R, Ctrl+Y)">
                Redo
              </button>
              <button type="button" onClick={restart} disabled={!game.canUndo} title="Back to the start (the moves stay for Redo)">
                Restart
              </button>
              <button type="button" class="primary" onClick={showHint} disabled={won} aria-keyshortcuts="?" title="Hint (?)">
                Hint
              </button>
              <label class="auto-toggle">
                <input
                  type="checkbox"
                  checked={autoMoves}
                  onChange={(e) => {
                    const on = (e.target as HTMLInputElement).checked;
                    setAutoMoves(on);
                    try {
                      localStorage.setItem(AUTO_MOVES_KEY, on ? 'on' : 'off');
                    } catch {
                      // the setting then lasts until the page reloads
                    }
                  }}
                />{' '}
                Auto-move safe cards home
              </label>
              <span class="muted small move-count">{game.moveCount === 0 ? 'start' : `${game.moveCount} move${game.moveCount === 1 ? '' : 's'}`}</span>
            </div>
            <PlayBoard
              rules={position.rules}
              layout={position.layout}
              picked={pick}
              hint={hintMove}
              last={last}
              won={won ? game.moveCount : null}
              onActivate={activate}
              onSendHome={sendHome}
              onDrop={(p, to) => tryMove({ ...p, chosen: true }, to)}
            />
            <p class="refusal" data-testid="refusal" aria-live="assertive">
              {refusal ?? (pick ? `Picked up ${pick.count > 1 ? `${pick.count} cards from ` : ''}${cardName(position.layout, pick)}: now choose where ${pick.count > 1 ? 'they go' : 'it goes'}${pendingKey ? ' (or type its symbol)' : ''}.` : '')}
            </p>
          </div>

          <aside class="side">
            <PlayStatus live={live} moveCount={game.moveCount} won={won} onBackTo={backTo} />
            {hintWanted && (
              <HintBox
                move={hintMove}
                notation={hintMove && analysis?.verdict === 'winnable' ? analysis.notation[0] : null}
                waiting={!final}
                verdict={analysis?.verdict ?? null}
                describe={(m) => moveInWords(m, position.rules)}
                onPlay={() => hintMove && update(game.play(hintMove, { autoMoves }))}
              />
            )}
            <PlayedMoves game={game} losing={losing} onGoTo={(turn) => update(game.goTo(turn))} />
            <div class="copy-row" role="group" aria-label="Copy to the clipboard">
              <span class="copy-title">Copy</span>
              <CopyButton label="Link" testId="copy-link" text={() => location.href} />
              <CopyButton label="Moves" testId="copy-moves" disabled={game.moveCount === 0} text={() => game.notation.join(' ')} />
            </div>
            <p class="small muted keys-help">
              Keys: type a move in standard notation (<kbd>3</kbd> <kbd>a</kbd> moves column 3's top card to free cell a; <kbd>h</kbd> is the foundations), or Tab to a place and
              press Enter to pick up and to put down (<kbd>↑</kbd> <kbd>↓</kbd> more or fewer cards, <kbd>←</kbd> <kbd>→</kbd> between places); <kbd>U</kbd> undo, <kbd>R</kbd> redo,{' '}
              <kbd>?</kbd> hint, <kbd>Esc</kbd> puts the cards back.
            </p>
          </aside>
        </main>
      )}
    </div>
  );
}

/** A move in words: `K♠ from column 2 to free cell a`, `3 cards from 9♥ on, from column 2 to column 5`, `A♦ from column 4 home`. */
function moveInWords(move: Move, rules: Rules): string {
  const what = move.count > 1 ? `${move.count} cards from ${prettyCard(move.card)} on,` : prettyCard(move.card);
  const from = move.from === 'column' ? `column ${columnSymbol(move.fromIndex, rules)}` : `free cell ${cellSymbol(move.fromIndex, rules)}`;
  if (move.to === 'foundation') return `${what} from ${from} to the ${SUIT_NAMES[move.toIndex]} foundation`;
  const to = move.to === 'column' ? `column ${columnSymbol(move.toIndex, rules)}` : `free cell ${cellSymbol(move.toIndex, rules)}`;
  return `${what} from ${from} to ${to}`;
}

/** The place a notation symbol names in a game of `columns` columns and `cells` free cells, or null. */
function symbolPlace(symbol: string, columns: number, cells: number): Place | null {
  if (symbol === 'h') return { kind: 'foundation', index: 0 };
  if (/^[0-9]$/.test(symbol)) {
    const index = symbol === '0' ? 9 : Number(symbol) - 1;
    return index < columns ? { kind: 'column', index } : null;
  }
  const cell = 'abcdefgi'.indexOf(symbol);
  return cell >= 0 && cell < cells ? { kind: 'cell', index: cell } : null;
}

function cardName(layout: { columns: number[][]; freeCells: (number | null)[] }, pick: Picked): string {
  const card = pick.from.kind === 'column' ? layout.columns[pick.from.index].at(-pick.count) : layout.freeCells[pick.from.index];
  if (card === undefined || card === null) return '';
  const ranks = ['', 'A', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K'];
  return `${ranks[card >> 2]}${'♣♦♥♠'[card & 3]}`;
}

function HintBox(props: {
  move: Move | null;
  notation: string | null;
  waiting: boolean;
  verdict: string | null;
  describe: (m: Move) => string;
  onPlay: () => void;
}) {
  const { move, notation } = props;
  return (
    <section class="hint-box" data-testid="hint" data-hint={notation ?? undefined} aria-live="polite">
      {move && notation ? (
        <>
          <p>
            Hint: <strong><code>{notation}</code></strong>: {props.describe(move)}.
          </p>
          <button type="button" class="small-button" onClick={props.onPlay}>
            Play it
          </button>
        </>
      ) : (
        <p>
          {props.waiting
            ? 'Hint: waiting for the analysis of this position…'
            : props.verdict === 'lost'
              ? 'No hint: no move wins from here. Undo, or go back before the move that lost the game.'
              : 'No hint: this position was not decided.'}
        </p>
      )}
    </section>
  );
}

/** The moves of the game in standard notation, the undone ones greyed; a click goes to the position after that move's turn. */
function PlayedMoves({ game, losing, onGoTo }: { game: Game; losing: number | null; onGoTo: (turn: number) => void }) {
  const rows: { move: Move; turn: number }[] = [];
  game.allTurns.forEach((turn, t) => turn.forEach((move) => rows.push({ move, turn: t })));
  const notation = toStandardNotation(
    rows.map((r) => r.move),
    game.start.rules,
  );
  const current = game.moveCount - 1;
  return (
    <section class="played-moves">
      <div class="played-title">
        Moves <span class="muted small">{game.moveCount === 0 ? '(none yet)' : `(${game.moveCount}${rows.length > game.moveCount ? `, ${rows.length - game.moveCount} undone` : ''})`}</span>
      </div>
      <ol class="move-chips" data-testid="moves" aria-label="Moves of the game">
        <li class={game.moveCount === 0 ? 'current' : 'done'}>
          <button type="button" onClick={() => onGoTo(0)} title="The start" aria-current={game.moveCount === 0 ? 'step' : undefined}>
            start
          </button>
        </li>
        {rows.map((r, i) => (
          <li key={i} class={`${r.turn < game.turnsPlayed ? 'done' : 'undone'}${i === current ? ' current' : ''}${losing === i ? ' losing' : ''}`}>
            <button
              type="button"
              onClick={() => onGoTo(r.turn + 1)}
              aria-current={i === current ? 'step' : undefined}
              title={`Move ${i + 1}: ${notation[i]}${r.move.auto ? ' (auto-move)' : ''}${r.turn < game.turnsPlayed ? '' : ' (undone: Redo plays it again)'}${losing === i ? ' (the move that lost the game)' : ''}`}
            >
              <span class="move-no">{i + 1}</span>
              <span class="move-sn">{notation[i]}</span>
              {r.move.auto && <span class="auto-mark" aria-label="auto-move">a</span>}
            </button>
          </li>
        ))}
      </ol>
    </section>
  );
}

/** The form that opens another deal (or a board), folded under the game's name. */
function NewGame({ link, title, onOpen }: { link: PlayLink; title: string; onOpen: (link: PlayLink) => void }) {
  const [game, setGame] = useState(link.game);
  const [deal, setDeal] = useState(link.deal ?? '1');
  const [numbering, setNumbering] = useState<Numbering>(link.numbering ?? 'ms');
  const [board, setBoard] = useState(link.board ?? '');
  const [open, setOpen] = useState(false);
  const preset = findPreset(game);
  const numberings = preset?.numberings ?? [];
  const usesBoard = numberings.length === 0;
  useEffect(() => {
    setGame(link.game);
    if (link.deal !== undefined) setDeal(link.deal);
    if (link.numbering !== undefined) setNumbering(link.numbering);
    if (link.board !== undefined) setBoard(link.board);
  }, [link]);
  const shownNumbering = numberings.includes(numbering) ? numbering : (numberings[0] ?? 'ms');
  const start = (dealText = deal) => {
    onOpen(usesBoard ? { game, board, moves: [] } : { game, deal: dealText.trim(), numbering: shownNumbering, moves: [] });
    setOpen(false);
  };
  return (
    <details class="new-game" open={open} onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary>
        <span class="game-title" data-testid="game-title">
          {title}
        </span>{' '}
        <span class="new-game-label">New game…</span>
      </summary>
      <form
        class="deal-form play-form"
        onSubmit={(e) => {
          e.preventDefault();
          start();
        }}
      >
        <div class="form-row">
          <label class="field">
            <span>Game</span>
            <select name="game" value={game} onChange={(e) => setGame((e.target as HTMLSelectElement).value)}>
              {PRESETS.map((p) => (
                <option value={p.id} key={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </label>
          {usesBoard ? (
            <label class="field board-field">
              <span>Board (fc-solve text; this game has no deal numbers)</span>
              <textarea name="board" rows={4} value={board} onInput={(e) => setBoard((e.target as HTMLTextAreaElement).value)} />
            </label>
          ) : (
            <>
              <label class="field">
                <span>Deal</span>
                <input name="deal" inputMode="numeric" size={8} value={deal} onInput={(e) => setDeal((e.target as HTMLInputElement).value)} />
              </label>
              <label class="field">
                <span>Numbers</span>
                <select name="numbering" value={shownNumbering} onChange={(e) => setNumbering((e.target as HTMLSelectElement).value as Numbering)}>
                  {numberings.map((n) => (
                    <option value={n} key={n}>
                      {n === 'ms' ? 'Microsoft' : 'PySolFC'}
                    </option>
                  ))}
                </select>
              </label>
            </>
          )}
          <button type="submit" class="primary" data-testid="deal">
            Deal
          </button>
          {!usesBoard && (
            <button
              type="button"
              class="secondary"
              onClick={() => {
                const n = String(1 + Math.floor(Math.random() * (shownNumbering === 'ms' ? 32000 : 100000)));
                setDeal(n);
                start(n);
              }}
            >
              Random deal
            </button>
          )}
        </div>
      </form>
    </details>
  );
}

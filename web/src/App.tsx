/**
 * The page: pick a position, solve it through the API, and play the solution
 * back on the board.
 *
 * State: the form (what to solve), the local preview of its position, the
 * replayed result of the last solve (kept only while the form still names the
 * same position), the step shown (moves played), and playback. The URL hash
 * mirrors the form and the step, so a link reopens the same deal.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { formatBoard } from '../../client-sdk/core/board.js';
import type { Move } from '../../client-sdk/core/moves.js';
import { ApiError, type ApiErrorBody, apiKey, fetchGames, type GameInfo, setApiKey, solve } from './api.js';
import { ApiKeyForm } from './components/ApiKeyForm.js';
import { Board } from './components/Board.js';
import { PageTitle } from './components/PageTitle.js';
import { CopyButton } from './components/CopyButton.js';
import { DealForm } from './components/DealForm.js';
import { ErrorBox } from './components/ErrorBox.js';
import { MoveList } from './components/MoveList.js';
import { Player } from './components/Player.js';
import { Verdict, type Retry } from './components/Verdict.js';
import { ReviewPanel } from './components/ReviewPanel.js';
import { dealFault, DEFAULT_FORM, type Form, fromHash, positionKey, preview, toHash, toRequest } from './form.js';
import { type Replay, replay } from './replay.js';
import { playHash } from './play/link.js';

interface Result extends Replay {
  /** `positionKey` of the form that was solved. */
  key: string;
}

interface ShownError {
  error: ApiErrorBody | { code: string; message: string };
  boardText: string | null;
  /** The HTTP status (401 = the service needs an API key); absent for faults of the page. */
  status?: number;
}

const initial = fromHash(location.hash);

/** The play page's link (`play#...`, play/link.ts) for the form's position after `moves` (standard notation). */
function playLink(form: Form, moves: string[]): string {
  const start = form.source === 'deal' ? { deal: form.deal.trim(), numbering: form.numbering } : { board: form.board };
  return `play#${playHash({ game: form.game, ...start, moves })}`;
}

function isTyping(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
}

export function App() {
  const [games, setGames] = useState<GameInfo[] | null>(null);
  const [gamesError, setGamesError] = useState<ShownError | null>(null);
  const [form, setForm] = useState<Form>(initial?.form ?? { ...DEFAULT_FORM });
  const [result, setResult] = useState<Result | null>(null);
  const [apiError, setApiError] = useState<ShownError | null>(null);
  const [solving, setSolving] = useState(false);
  const [solveStarted, setSolveStarted] = useState(0);
  const [now, setNow] = useState(0);
  const [step, setStep] = useState(0);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState(4);
  const pending = useRef<AbortController | null>(null);
  const boardRef = useRef<HTMLTextAreaElement>(null);

  const key = positionKey(form);
  const current = result && result.key === key ? result : null;
  const shownPreview = useMemo(() => (current ? null : preview(form)), [current, key]);
  const total = current ? current.response.moves.length : 0;

  // --- solving ------------------------------------------------------------

  const runSolve = useCallback(async (f: Form, startAt = 0) => {
    // A deal number the SDK refuses (e.g. "abc" from a link) is shown at the field, never sent.
    if (dealFault(f) !== null) return;
    pending.current?.abort();
    const ctrl = new AbortController();
    pending.current = ctrl;
    setSolving(true);
    setSolveStarted(performance.now());
    setApiError(null);
    setPlaying(false);
    history.replaceState(null, '', `#${toHash(f, startAt)}`);
    try {
      const response = await solve(toRequest(f), ctrl.signal);
      const r = replay(response);
      setResult({ ...r, key: positionKey(f) });
      setStep(Math.min(startAt, response.moves.length));
    } catch (err) {
      if (ctrl.signal.aborted) return;
      setResult(null);
      if (err instanceof ApiError) setApiError({ error: err.body, boardText: f.source === 'board' ? f.board : null, status: err.status });
      else {
        const e = err as { code?: string; message?: string };
        setApiError({ error: { code: e.code ?? 'page_error', message: `The answer could not be shown: ${e.message ?? String(err)}` }, boardText: null });
      }
    } finally {
      if (pending.current === ctrl) {
        pending.current = null;
        setSolving(false);
      }
    }
  }, []);

  const cancel = useCallback(() => {
    pending.current?.abort();
    pending.current = null;
    setSolving(false);
  }, []);

  // The games, then the deal of the link (if any) is solved at once. Run
  // again (`gamesTry`) after an API key is entered.
  const [gamesTry, setGamesTry] = useState(0);
  const [keyKept, setKeyKept] = useState(() => apiKey() !== null);
  useEffect(() => {
    const ctrl = new AbortController();
    fetchGames(ctrl.signal).then(
      (list) => {
        setGamesError(null);
        setGames(list);
        if (initial) void runSolve(initial.form, initial.move);
      },
      (err) => {
        if (ctrl.signal.aborted) return;
        setGamesError(
          err instanceof ApiError
            ? { error: err.body, boardText: null, status: err.status }
            : { error: { code: 'page_error', message: String(err) }, boardText: null },
        );
      },
    );
    return () => ctrl.abort();
  }, [runSolve, gamesTry]);

  /** The 401 that asks for a key: listing the games, or a solve (the key was withdrawn meanwhile). */
  const keyNeeded = gamesError?.status === 401 ? gamesError : apiError?.status === 401 ? apiError : null;
  const submitKey = (k: string) => {
    setApiKey(k);
    setKeyKept(true);
    if (gamesError?.status === 401 || !games) setGamesTry((n) => n + 1);
    else void runSolve(form);
  };
  const forgetKey = () => {
    setApiKey(null);
    setKeyKept(false);
  };

  // A link pasted into this tab's address bar.
  useEffect(() => {
    const onHash = () => {
      const link = fromHash(location.hash);
      if (!link || location.hash.slice(1) === toHash(form, step)) return;
      setForm(link.form);
      void runSolve(link.form, link.move);
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, [form, step, runSolve]);

  // The solving clock.
  useEffect(() => {
    if (!solving) return;
    const t = setInterval(() => setNow(performance.now()), 100);
    return () => clearInterval(t);
  }, [solving]);

  // --- playback -------------------------------------------------------------

  const goTo = useCallback(
    (s: number) => {
      setStep(Math.max(0, Math.min(total, s)));
    },
    [total],
  );
  /** Steps by `delta` from the step as it is now (not as last rendered), so quick key presses all count. */
  const stepBy = useCallback(
    (delta: number) => {
      setStep((s) => Math.max(0, Math.min(total, s + delta)));
    },
    [total],
  );

  const play = useCallback(
    (on: boolean) => {
      if (on && step >= total) setStep(0);
      setPlaying(on);
    },
    [step, total],
  );

  useEffect(() => {
    if (!playing) return;
    if (step >= total) {
      setPlaying(false);
      return;
    }
    const t = setTimeout(() => setStep((s) => Math.min(total, s + 1)), 1000 / speed);
    return () => clearTimeout(t);
  }, [playing, step, total, speed]);

  // The link follows the step shown (not while playing).
  useEffect(() => {
    if (current && !playing) history.replaceState(null, '', `#${toHash(form, step)}`);
  }, [current, playing, step]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!current || isTyping(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      const keys: Record<string, () => void> = {
        ArrowLeft: () => stepBy(-1),
        ArrowRight: () => stepBy(1),
        Home: () => goTo(0),
        End: () => goTo(total),
        ' ': () => play(!playing),
      };
      const act = keys[e.key];
      if (!act) return;
      if (e.key === ' ' && e.target instanceof HTMLButtonElement) return; // the button's own click
      e.preventDefault();
      setPlaying(e.key === ' ' ? playing : false);
      act();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [current, total, playing, goTo, stepBy, play]);

  // --- form -----------------------------------------------------------------

  const shownDeal = current
    ? { rules: current.response.rules, layout: current.positions[step] }
    : shownPreview && 'deal' in shownPreview
      ? shownPreview.deal
      : null;

  const change = (patch: Partial<Form>) => {
    const next = { ...form, ...patch };
    // Switching to board text starts from the position shown, to edit it.
    if (patch.source === 'board' && !form.board.trim() && shownDeal) next.board = formatBoard(shownDeal.layout, shownDeal.rules);
    if (positionKey(next) !== key) {
      setApiError(null);
      setPlaying(false);
      setStep(0);
    }
    setForm(next);
  };

  const retry = (limits: Retry['limits']) => {
    const next = { ...form, maxStates: limits.maxStates ? String(limits.maxStates) : form.maxStates, timeoutMs: limits.timeoutMs ? String(limits.timeoutMs) : form.timeoutMs };
    setForm(next);
    void runSolve(next);
  };

  const goToBoardLine = (line: number, column?: number, token?: string) => {
    const area = boardRef.current;
    if (!area) return;
    const lines = area.value.split('\n');
    let start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
    let end = start + (lines[line - 1]?.length ?? 0);
    if (column !== undefined) {
      start += column - 1;
      end = start + (token?.length ?? 0);
    }
    area.focus();
    area.setSelectionRange(start, end);
  };

  const move: Move | null = current && step > 0 ? (current.response.moves[step - 1] as Move) : null;
  const previewError = !current && shownPreview && 'error' in shownPreview ? shownPreview.error : null;
  const link = () => `${location.origin}${location.pathname}#${toHash(form, current ? step : 0)}`;
  const gameName = games?.find((g) => g.id === form.game)?.name ?? form.game;

  return (
    <div class="page">
      <header class="page-header">
        <PageTitle>Solitaire solver</PageTitle>
        <p class="tagline">FreeCell, Seahaven Towers and their kin: a solution checked move by move, a proof that there is none, or an honest “unknown”.</p>
      </header>

      {keyNeeded && (
        <ApiKeyForm message={keyNeeded.error.message} refused={keyKept} onKey={submitKey} />
      )}
      {gamesError && gamesError.status !== 401 && <ErrorBox title="The service could not list its games" error={gamesError.error} />}

      {games && (
        <DealForm form={form} games={games} solving={solving} dealError={dealFault(form)} onChange={change} onSolve={() => void runSolve(form)} onCancel={cancel} boardRef={boardRef} />
      )}

      {apiError && apiError.status !== 401 && (
        <ErrorBox
          title={apiError.boardText !== null && 'line' in apiError.error ? 'The service could not read this board' : 'The service could not solve this'}
          error={apiError.error}
          boardText={apiError.boardText}
          onGoTo={apiError.boardText !== null && form.source === 'board' ? goToBoardLine : undefined}
          testId="api-error"
        />
      )}
      {!apiError && previewError && form.source === 'board' && (
        <ErrorBox
          title="This board cannot be read yet"
          error={previewError.toJSON().error}
          boardText={form.source === 'board' ? form.board : null}
          onGoTo={form.source === 'board' ? goToBoardLine : undefined}
          testId="preview-error"
        />
      )}

      {!(keyNeeded && !games) && (
        <main class="workspace">
          <div class="table-area">
            <div class="table-caption">
              <span>
                {gameName}
                {form.source === 'deal' ? ` · deal ${form.deal.trim()} (${form.numbering === 'ms' ? 'MS' : 'PySolFC'})` : ' · pasted board'}
              </span>
              <span class="muted">
                {current ? (step === 0 ? 'start position' : `after move ${step} of ${total}`) : solving ? '' : 'not solved yet'}
                {shownDeal && (
                  <>
                    {' · '}
                    <a href={playLink(form, current ? current.response.notation.slice(0, step) : [])} data-testid="play-link">
                      Play from here
                    </a>
                  </>
                )}
              </span>
            </div>
            {shownDeal ? (
              <Board rules={shownDeal.rules} layout={shownDeal.layout} move={move} won={current !== null && current.response.verdict === 'solved' && total > 0 && step === total ? total : null} />
            ) : (
              <div class="board board-empty">{!games ? 'Loading…' : previewError || apiError ? 'The position is drawn here once it reads correctly.' : 'Pick a deal or paste a board to see it here.'}</div>
            )}
          </div>

          <aside class="side">
            {solving && (
              <div class="solving" role="status">
                <span class="spinner" aria-hidden="true" /> Solving… {((now - solveStarted) / 1000).toFixed(1)} s
              </div>
            )}
            {!current && !solving && (
              <div class="hint">
                <p>
                  Press <strong>Solve</strong> to ask the service for a solution. Then step through it with the buttons or the arrow keys, or let it play.
                </p>
              </div>
            )}
            {current && <Verdict response={current.response} onRetry={retry} />}
            {current && current.response.verdict === 'solved' && (
              <Player step={step} total={total} playing={playing} speed={speed} onStep={(s) => (setPlaying(false), goTo(s))} onPlay={play} onSpeed={setSpeed} />
            )}
            {current && current.response.verdict === 'solved' && (
              <MoveList rules={current.response.rules} moves={current.response.moves as Move[]} notation={current.response.notation} step={step} onJump={(s) => (setPlaying(false), goTo(s))} />
            )}
            {games && <ReviewPanel request={toRequest(form)} />}
            <div class="copy-row" role="group" aria-label="Copy to the clipboard">
              <span class="copy-title">Copy</span>
              <CopyButton label="Board" testId="copy-board" disabled={!shownDeal} text={() => (shownDeal ? formatBoard(shownDeal.layout, shownDeal.rules) : '')} />
              <CopyButton label="Notation" testId="copy-notation" disabled={!current || total === 0} text={() => current!.response.notation.join(' ')} />
              <CopyButton label="fc-solve moves" testId="copy-fcs" disabled={!current || total === 0} text={() => current!.response.fcsMoves.join('\n')} />
              <CopyButton label="Link" testId="copy-link" text={link} />
            </div>
          </aside>
        </main>
      )}

      <footer class="page-footer">
        <span>
          Keys: ← → step, Home/End, space plays. API: <a href="docs">/docs</a> · <a href="openapi.json">openapi.json</a>
        </span>
        {keyKept && !keyNeeded && (
          <span>
            {' · '}An API key is kept for this tab.{' '}
            <button type="button" class="link-button" data-testid="forget-key" onClick={forgetKey}>
              Forget it
            </button>
          </span>
        )}
      </footer>
    </div>
  );
}

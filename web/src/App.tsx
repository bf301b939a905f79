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
import { ApiError, type ApiErrorBody, fetchGames, type GameInfo, solve } from './api.js';
import { Board } from './components/Board.js';
import { CopyButton } from './components/CopyButton.js';
import { DealForm } from './components/DealForm.js';
import { ErrorBox } from './components/ErrorBox.js';
import { MoveList } from './components/MoveList.js';
import { Player } from './components/Player.js';
import { Verdict, type Retry } from './components/Verdict.js';
import { ReviewPanel } from './components/ReviewPanel.js';
import { DEFAULT_FORM, type Form, fromHash, positionKey, preview, toHash, toRequest } from './form.js';
import { type Replay, replay } from './replay.js';

interface Result extends Replay {
  /** `positionKey` of the form that was solved. */
  key: string;
}

interface ShownError {
  error: ApiErrorBody | { code: string; message: string };
  boardText: string | null;
}

const initial = fromHash(location.hash);

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
      if (err instanceof ApiError) setApiError({ error: err.body, boardText: f.source === 'board' ? f.board : null });
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

  // The games, then the deal of the link (if any) is solved at once.
  useEffect(() => {
    const ctrl = new AbortController();
    fetchGames(ctrl.signal).then(
      (list) => {
        setGames(list);
        if (initial) void runSolve(initial.form, initial.move);
      },
      (err) => {
        if (!ctrl.signal.aborted) setGamesError({ error: err instanceof ApiError ? err.body : { code: 'page_error', message: String(err) }, boardText: null });
      },
    );
    return () => ctrl.abort();
  }, [runSolve]);

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
        ArrowLeft: () => goTo(step - 1),
        ArrowRight: () => goTo(step + 1),
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
  }, [current, step, total, playing, goTo, play]);

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
        <h1>
          <span class="logo" aria-hidden="true">
            <span class="suit-S">♠</span>
            <span class="suit-H">♥</span>
            <span class="suit-D">♦</span>
            <span class="suit-C">♣</span>
          </span>
          Solitaire solver
        </h1>
        <p class="tagline">FreeCell, Seahaven Towers and their kin: a solution checked move by move, a proof that there is none, or an honest “unknown”.</p>
      </header>

      {gamesError && <ErrorBox title="The service could not list its games" error={gamesError.error} />}

      {games && (
        <DealForm form={form} games={games} solving={solving} onChange={change} onSolve={() => void runSolve(form)} onCancel={cancel} boardRef={boardRef} />
      )}

      {apiError && (
        <ErrorBox
          title={apiError.boardText !== null && 'line' in apiError.error ? 'The service could not read this board' : 'The service could not solve this'}
          error={apiError.error}
          boardText={apiError.boardText}
          onGoTo={apiError.boardText !== null && form.source === 'board' ? goToBoardLine : undefined}
          testId="api-error"
        />
      )}
      {!apiError && previewError && (
        <ErrorBox
          title="This board cannot be read yet"
          error={previewError.toJSON().error}
          boardText={form.source === 'board' ? form.board : null}
          onGoTo={form.source === 'board' ? goToBoardLine : undefined}
          testId="preview-error"
        />
      )}

      <main class="workspace">
        <div class="table-area">
          <div class="table-caption">
            <span>
              {gameName}
              {form.source === 'deal' ? ` · deal ${form.deal.trim()} (${form.numbering === 'ms' ? 'MS' : 'PySolFC'})` : ' · pasted board'}
            </span>
            <span class="muted">{current ? (step === 0 ? 'start position' : `after move ${step} of ${total}`) : solving ? '' : 'not solved yet'}</span>
          </div>
          {shownDeal ? (
            <Board rules={shownDeal.rules} layout={shownDeal.layout} move={move} />
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

      <footer class="page-footer">
        <span>
          Keys: ← → step, Home/End, space plays. API: <a href="docs">/docs</a> · <a href="openapi.json">openapi.json</a>
        </span>
      </footer>
    </div>
  );
}

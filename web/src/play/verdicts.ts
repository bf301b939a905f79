/**
 * The live verdict of the game on the page: every position the player
 * reaches is analysed in the browser (the SDK's analyser: the Wasm engine in
 * a Web Worker, budget PLAY_LIMITS); a position the browser's budget cannot
 * decide goes to the service (`POST /v1/solve`) when it answers; a lost
 * position is followed by the search for the move that lost the game (the
 * SDK's `findLosingMove`, i.e. `POST /v1/review`'s search, in the worker or
 * at the service). Verdicts are remembered by position, loss reports by the
 * moves that led there, so undo and redo answer at once.
 */
import { useEffect, useReducer, useRef } from 'preact/hooks';
import { analysePosition, findLosingMove, type Analysis, type AnalysisLimits, type LossReport } from '../../../client-sdk/sdk/analysis.js';
import { createAnalyser, type Analyser } from '../../../client-sdk/sdk/analyser.js';
import type { Game } from '../../../client-sdk/core/play.js';
import { ApiError, review, solve, type SolveRequest } from '../api.js';

/** Who decided a verdict. */
export type Decider = 'browser' | 'service';

/** What the page knows about one position. */
export interface PositionVerdict {
  analysis: Analysis;
  by: Decider;
  /** Wall-clock time from asking to the answer, as the page saw it (the browser's analyses only), ms. */
  elapsedMs?: number;
  /** Wall-clock time from asking to the verdict, before its solution was shortened (the browser's analyses only), ms. */
  decidedMs?: number;
  /** True while the solution of a `winnable` verdict is being shortened (the final answer follows). */
  shortening?: boolean;
  /** The browser's own answer when it was `unknown` and the service was asked. */
  browser?: Analysis;
  /** Why the service gave no verdict when it was asked (not reachable, refused). */
  serviceProblem?: string;
}

/** The search for the losing move of a lost game. */
export type LossSearch = { state: 'searching' } | { state: 'done'; report: LossReport; by: Decider } | { state: 'failed'; message: string };

/** The verdict of the current position as the page shows it. */
export interface Live {
  /** `analysing` until the first answer comes. */
  verdict: PositionVerdict | null;
  /** Set when the position is lost after at least one move. */
  loss: LossSearch | null;
}

let sharedAnalyser: Analyser | null = null;

/** The page's analyser: one worker (made on first use). */
export function analyser(): Analyser {
  sharedAnalyser ??= createAnalyser({
    worker: () => new Worker(new URL('./analysis.worker.ts', import.meta.url), { type: 'module', name: 'analysis' }),
  });
  return sharedAnalyser;
}

function isAbort(err: unknown): boolean {
  return err instanceof DOMException && err.name === 'AbortError';
}

function problemText(err: unknown): string {
  if (err instanceof ApiError) return err.body.code === 'network_error' ? 'the service could not be reached' : `the service refused: ${err.body.message}`;
  return err instanceof Error ? err.message : String(err);
}

/** The service as a solver for the SDK's `analysePosition` (its default budgets). */
function serviceSolver(signal: AbortSignal) {
  return { solve: (request: unknown) => solve(request as SolveRequest, signal) };
}

/** The service as a reviewer for the SDK's `findLosingMove`. */
function serviceReviewer(signal: AbortSignal) {
  return { review: (request: unknown) => review(request as Parameters<typeof review>[0], signal) };
}

/**
 * The live verdict of `game`'s current position (of preset `gameId`),
 * with the caches that keep every answer for the page's lifetime (cleared
 * when `startKey` changes: another deal or budget). `limits`: the browser's
 * budget of each search (default PLAY_LIMITS).
 */
export function useLiveVerdict(gameId: string, startKey: string, game: Game | null, limits?: AnalysisLimits): Live {
  const verdicts = useRef(new Map<string, PositionVerdict>());
  /** Verdicts whose solution is still being shortened (the final one goes to `verdicts`). */
  const early = useRef(new Map<string, PositionVerdict>());
  const losses = useRef(new Map<string, LossSearch>());
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  const cacheOf = useRef(startKey);
  if (cacheOf.current !== startKey) {
    cacheOf.current = startKey;
    verdicts.current = new Map();
    early.current = new Map();
    losses.current = new Map();
  }

  const position = game?.position ?? null;
  const key = position?.key() ?? '';
  const path = game ? `${startKey}|${game.notation.join(' ')}` : '';

  // The verdict of the position: the browser first, the service when the browser's budget ran out.
  useEffect(() => {
    if (!position || verdicts.current.has(key)) return;
    const stop = new AbortController();
    const started = performance.now();
    let decidedMs: number | undefined;
    const store = (v: PositionVerdict) => {
      if (stop.signal.aborted) return;
      verdicts.current.set(key, v);
      early.current.delete(key);
      redraw(0);
    };
    const onDecided = (analysis: Analysis) => {
      decidedMs = Math.round(performance.now() - started);
      if (stop.signal.aborted || analysis.verdict !== 'winnable') return;
      early.current.set(key, { analysis, by: 'browser', decidedMs, shortening: true });
      redraw(0);
    };
    (async () => {
      let local: Analysis;
      try {
        local = await analyser().analyse(gameId, position, { signal: stop.signal, onDecided, ...(limits ? { limits } : {}) });
      } catch (err) {
        if (isAbort(err)) return;
        local = { verdict: 'unknown', reason: 'cancelled', stats: { statesExpanded: 0, statesStored: 0, elapsedMs: 0, limits: { maxStates: 0, timeoutMs: 0 } } };
        console.warn('the browser could not analyse this position:', err);
      }
      const elapsedMs = Math.round(performance.now() - started);
      if (local.verdict !== 'unknown') return store({ analysis: local, by: 'browser', elapsedMs, decidedMs });
      try {
        const remote = await analysePosition(serviceSolver(stop.signal), gameId, position);
        store(remote.verdict === 'unknown' ? { analysis: remote, by: 'service', browser: local, elapsedMs } : { analysis: remote, by: 'service', browser: local });
      } catch (err) {
        if (isAbort(err) || stop.signal.aborted) return;
        store({ analysis: local, by: 'browser', elapsedMs, serviceProblem: problemText(err) });
      }
    })();
    return () => stop.abort();
  }, [key, gameId]);

  const verdict = position ? (verdicts.current.get(key) ?? early.current.get(key) ?? null) : null;
  const lost = verdict?.analysis.verdict === 'lost' && !verdict.shortening && game !== null && game.moveCount > 0;

  // The move that lost the game, searched from the last position known winnable.
  useEffect(() => {
    if (!lost || !game || losses.current.has(path)) return;
    const stop = new AbortController();
    let from = 0;
    for (let k = game.moveCount - 1; k > 0; k--) {
      if (verdicts.current.get(game.positionAfter(k).key())?.analysis.verdict === 'winnable') {
        from = k;
        break;
      }
    }
    const store = (s: LossSearch) => {
      if (stop.signal.aborted) return;
      losses.current.set(path, s);
      redraw(0);
    };
    losses.current.set(path, { state: 'searching' });
    (async () => {
      let report: LossReport | null = null;
      if (verdict!.by === 'browser') {
        try {
          report = await analyser().findLoss(gameId, game, { from, signal: stop.signal, ...(limits ? { limits } : {}) });
        } catch (err) {
          if (isAbort(err)) return;
          console.warn('the browser could not review this game:', err);
        }
        if (report && report.result !== 'unknown') return store({ state: 'done', report, by: 'browser' });
      }
      try {
        store({ state: 'done', report: await findLosingMove(serviceReviewer(stop.signal), gameId, game, { from }), by: 'service' });
      } catch (err) {
        if (isAbort(err) || stop.signal.aborted) return;
        store(report ? { state: 'done', report, by: 'browser' } : { state: 'failed', message: problemText(err) });
      }
    })();
    return () => {
      stop.abort();
      if (losses.current.get(path)?.state === 'searching') losses.current.delete(path);
    };
  }, [lost, path, gameId]);

  return { verdict, loss: lost ? (losses.current.get(path) ?? { state: 'searching' }) : null };
}

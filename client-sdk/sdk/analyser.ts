/**
 * The page side of the analysis worker (`analysis-worker.ts`): analyses and
 * loss searches run in a Web Worker, one at a time, each with a budget and
 * a stop. Nothing here touches the engine, so the page's thread stays free.
 *
 *   const analyser = createAnalyser({
 *     worker: () => new Worker(new URL('./analysis.worker.ts', import.meta.url), { type: 'module' }),
 *   });
 *   const stop = new AbortController();
 *   const analysis = await analyser.analyse('freecell', game.position, { signal: stop.signal });
 *
 * A stop (`signal` aborted) of a request still queued drops it; a stop of
 * the running one ends the worker (a search in Wasm cannot be interrupted
 * from outside without shared memory) and the next request starts a new one,
 * which loads the engine again (a few tens of ms; the browser keeps the
 * Wasm file cached). Either way the promise rejects with an `AbortError`
 * (a DOMException, as `fetch` does).
 */
import type { Move } from '../core/moves.js';
import type { Game, Position } from '../core/play.js';
import { SolverError, type ErrorCode } from '../core/errors.js';
import { PLAY_LIMITS, type Analysis, type AnalysisLimits, type LossReport } from './analysis.js';
import type { AnalysisReply, AnalysisRequest } from './analysis-messages.js';

/** The part of a `Worker` the analyser uses. */
export interface WorkerLike {
  postMessage(message: AnalysisRequest): void;
  addEventListener(type: 'message', listener: (event: { data: AnalysisReply }) => void): void;
  addEventListener(type: 'error', listener: (event: { message?: string }) => void): void;
  terminate(): void;
}

/** Options of {@link createAnalyser}. */
export interface AnalyserOptions {
  /** Makes a worker that runs `serveAnalysis` (called again after a stop ended the previous one). */
  worker: () => WorkerLike;
  /** Budget of each search unless a call gives its own; default {@link PLAY_LIMITS} (1,000,000 states, 4 s). */
  limits?: AnalysisLimits;
}

/** Options of one call: a stop and a budget. */
export interface AnalyserCallOptions {
  signal?: AbortSignal;
  limits?: AnalysisLimits;
}

/** Options of {@link Analyser.analyse}: also the verdict before shortening (`AnalysisOptions.onDecided`). */
export interface AnalyseCallOptions extends AnalyserCallOptions {
  onDecided?: (analysis: Analysis) => void;
}

/** Analyses in a worker; see {@link createAnalyser}. */
export interface Analyser {
  /**
   * `analysePosition` in the worker: the verdict on `position` of a game of preset `game`.
   * @throws DOMException `AbortError` when stopped; SolverError with the worker's code otherwise.
   */
  analyse(game: string, position: Position, options?: AnalyseCallOptions): Promise<Analysis>;
  /**
   * `findLosingMove` in the worker: where `played` was lost (from position `from`, known winnable).
   * @throws as {@link analyse}.
   */
  findLoss(game: string, played: Game, options?: AnalyserCallOptions & { from?: number }): Promise<LossReport>;
  /** Starts the worker now rather than at the first request, so that it loads the engine while the page draws itself. */
  start(): void;
  /** Ends the worker; later calls start a new one. */
  close(): void;
}

type Pending = {
  request: AnalysisRequest;
  resolve: (result: Analysis | LossReport) => void;
  reject: (err: unknown) => void;
  onEarly?: (analysis: Analysis) => void;
};

function abortError(): DOMException {
  return new DOMException('The analysis was stopped.', 'AbortError');
}

/**
 * An analyser whose searches run in the workers `options.worker` makes: one
 * worker at a time, its requests answered in order.
 */
export function createAnalyser(options: AnalyserOptions): Analyser {
  const limits = options.limits ?? PLAY_LIMITS;
  let worker: WorkerLike | null = null;
  let running: Pending | null = null;
  const queue: Pending[] = [];
  let nextId = 1;

  const spawn = (): WorkerLike => {
    const w = options.worker();
    w.addEventListener('message', (event) => {
      if (w !== worker || running === null || event.data.id !== running.request.id) return;
      if (event.data.ok && event.data.early) {
        running.onEarly?.(event.data.result as Analysis);
        return;
      }
      const done = running;
      running = null;
      const reply = event.data;
      if (reply.ok) done.resolve(reply.result);
      else done.reject(new SolverError(reply.code as ErrorCode, reply.message));
      pump();
    });
    w.addEventListener('error', (event) => {
      if (w !== worker) return;
      // the worker itself failed (its script or the engine did not load): fail what it was doing, start afresh next time
      const failed = running;
      running = null;
      worker = null;
      w.terminate();
      failed?.reject(new SolverError('engine_error', `the analysis worker failed: ${event.message ?? 'unknown error'}`));
      pump();
    });
    return w;
  };

  const pump = (): void => {
    if (running !== null) return;
    const next = queue.shift();
    if (next === undefined) return;
    running = next;
    worker ??= spawn();
    worker.postMessage(next.request);
  };

  const stop = (pending: Pending): void => {
    const queued = queue.indexOf(pending);
    if (queued >= 0) queue.splice(queued, 1);
    else if (running === pending) {
      running = null;
      worker?.terminate();
      worker = null;
    } else return;
    pending.reject(abortError());
    pump();
  };

  const submit = <T extends Analysis | LossReport>(request: AnalysisRequest, signal?: AbortSignal, onEarly?: (analysis: Analysis) => void): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortError());
        return;
      }
      const pending: Pending = { request, resolve: resolve as Pending['resolve'], reject, onEarly };
      signal?.addEventListener('abort', () => stop(pending), { once: true });
      queue.push(pending);
      pump();
    });

  return {
    analyse(game, position, call = {}) {
      return submit<Analysis>(
        { id: nextId++, op: 'analyse', game, rules: position.rules, layout: position.layout, limits: call.limits ?? limits, early: call.onDecided !== undefined },
        call.signal,
        call.onDecided,
      );
    },
    findLoss(game, played, call = {}) {
      const moves: Move[] = played.moves;
      return submit<LossReport>(
        { id: nextId++, op: 'findLoss', game, rules: played.start.rules, start: played.start.layout, moves, from: call.from, limits: call.limits ?? limits },
        call.signal,
      );
    },
    start() {
      worker ??= spawn();
    },
    close() {
      for (const p of [...queue, ...(running ? [running] : [])]) stop(p);
      worker?.terminate();
      worker = null;
    },
  };
}

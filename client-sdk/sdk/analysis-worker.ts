/**
 * The worker side of the analyser (`analyser.ts`): the in-process solver
 * inside a Web Worker, answering analyses (`analysePosition`) and loss
 * searches (`findLosingMove`) one at a time, so that a page never waits on
 * the engine. An app's worker file is two lines:
 *
 *   import { serveAnalysis } from '@solitaire-solver/sdk/analysis-worker';
 *   serveAnalysis();
 *
 * and its page makes the worker (`new Worker(new URL('./analysis.worker.ts',
 * import.meta.url), { type: 'module' })`, the pattern bundlers follow) and
 * hands it to `createAnalyser`.
 *
 * The solver remembers the last 512 positions it decided
 * (`LocalSolverOptions.memo`), so the review behind a loss search does not
 * search again the positions the analyses of the moves already decided.
 */
import { SolverError } from '../core/errors.js';
import { Game, Position } from '../core/play.js';
import { analysePosition, findLosingMove, type Analysis } from './analysis.js';
import { createLocalSolver as createBrowserSolver } from './browser.js';
import type { LocalSolver, LocalSolverOptions } from './local.js';
import type { AnalysisReply, AnalysisRequest } from './analysis-messages.js';

export type { AnalysisReply, AnalysisRequest } from './analysis-messages.js';

/** The part of a worker's global scope (or a `MessagePort`) that `serveAnalysis` uses. */
export interface AnalysisPort {
  postMessage(message: AnalysisReply): void;
  addEventListener(type: 'message', listener: (event: { data: AnalysisRequest }) => void): void;
}

/** Options of {@link serveAnalysis}. */
export interface ServeAnalysisOptions {
  /** The solver (default: the browser entry's `createLocalSolver` with `memo: 512`). */
  solver?: () => Promise<LocalSolver>;
  /** Options of the default solver (e.g. `wasm`, the engine's URL). */
  solverOptions?: LocalSolverOptions;
}

/** Positions the worker's solver remembers. */
const WORKER_MEMO = 512;

/**
 * Answers the analyser's requests on `port` (default: the worker's global
 * scope), one at a time in the order they come. The engine is loaded at
 * once; a request that arrives before it is ready waits for it. A failure
 * to load the engine is the reply to every request (`engine_error`).
 */
export function serveAnalysis(port: AnalysisPort = globalThis as unknown as AnalysisPort, options: ServeAnalysisOptions = {}): void {
  const solver = (options.solver ?? (() => createBrowserSolver({ memo: WORKER_MEMO, ...options.solverOptions })))();
  solver.catch(() => undefined); // a load failure is the reply to each request, below
  let queue: Promise<void> = Promise.resolve();
  port.addEventListener('message', (event) => {
    const request = event.data;
    queue = queue.then(async () => {
      let engine: LocalSolver;
      try {
        engine = await solver;
      } catch (err) {
        port.postMessage(failure(request.id, new SolverError('engine_error', `the engine could not be loaded: ${err instanceof Error ? err.message : String(err)}`)));
        return;
      }
      port.postMessage(await answer(engine, request, (early) => port.postMessage({ id: request.id, ok: true, result: early, early: true })));
    });
  });
}

/** The reply for an error: its `code` when it has one (a `SolverError`), else `engine_error`. */
function failure(id: number, err: unknown): AnalysisReply {
  const e = err as { code?: unknown; message?: unknown };
  return { id, ok: false, code: typeof e.code === 'string' ? e.code : 'engine_error', message: typeof e.message === 'string' ? e.message : String(err) };
}

/** The reply to one request; never throws. */
async function answer(solver: LocalSolver, request: AnalysisRequest, onEarly: (analysis: Analysis) => void): Promise<AnalysisReply> {
  try {
    const start = Position.of({ rules: request.rules, layout: request.op === 'analyse' ? request.layout : request.start });
    const result =
      request.op === 'analyse'
        ? await analysePosition(solver, request.game, start, { limits: request.limits, ...(request.early ? { onDecided: onEarly } : {}) })
        : await findLosingMove(solver, request.game, Game.replay(start, request.moves), { from: request.from, limits: request.limits });
    return { id: request.id, ok: true, result };
  } catch (err) {
    return failure(request.id, err);
  }
}

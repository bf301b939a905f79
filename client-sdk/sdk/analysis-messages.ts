/**
 * The messages between the analyser (`analyser.ts`, the page side) and its
 * worker (`analysis-worker.ts`): apart from both, so that the page side
 * needs none of the worker's code.
 */
import type { Layout, Rules } from '../core/rules.js';
import type { Move } from '../core/moves.js';
import type { Analysis, AnalysisLimits, LossReport } from './analysis.js';

/** A request to the worker (`id` pairs it with its reply). */
export type AnalysisRequest =
  | { id: number; op: 'analyse'; game: string; rules: Rules; layout: Layout; limits?: AnalysisLimits; early?: boolean }
  | { id: number; op: 'findLoss'; game: string; rules: Rules; start: Layout; moves: Move[]; from?: number; limits?: AnalysisLimits };

/**
 * The worker's reply: the result, or the error in the service's terms
 * (`code`, `message`). An analysis asked with `early: true` is answered
 * twice: first the verdict before its solution is shortened (`early:
 * true`), then the result.
 */
export type AnalysisReply =
  | { id: number; ok: true; result: Analysis | LossReport; early?: true }
  | { id: number; ok: false; code: string; message: string };

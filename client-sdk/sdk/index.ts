/**
 * The solitaire solver SDK: the public entry point (Node; browsers get
 * `browser.ts`, which differs only in where `createLocalSolver` finds the
 * engine).
 *
 * - `createClient`: the typed HTTP client of the service (solve, games,
 *   batches, results as an async iterator), with retries and one error class.
 * - `createLocalSolver`: the same engine in-process, same answers, no server.
 * - `hint`: the next move of a solution from a position in progress.
 * - Play: `Position` and `Game` (legal moves, undo and redo, safe
 *   auto-moves), `analysePosition` and `findLosingMove` (the live verdict of
 *   a game in play), `createAnalyser` (the same in a Web Worker, with the
 *   worker side in `@solitaire-solver/sdk/analysis-worker`).
 * - The library under both: game presets, deal generators, board and JSON
 *   formats, notation, the independent solution checker, the wire schemas.
 */
export { createClient, ServiceError, type DealsQueryInput, type DifficultyRequestInput, type ReviewRequestInput, type BatchRequestInput, type BatchResultsOptions, type CallOptions, type ClientOptions, type ProofAnswer, type SolveRequestInput, type SolverClient } from './client.js';
export { createLocalSolver, type LocalSolver, type LocalSolverOptions } from './local.js';
export { gamesResponse } from '../api/request.js';
export { hint, type Hint, type Solver } from './hints.js';
export { Game, Position, type Place, type PlayOptions } from '../core/play.js';
export {
  analysePosition,
  findLosingMove,
  PLAY_LIMITS,
  type Analysis,
  type AnalysisLimits,
  type AnalysisOptions,
  type AnalysisStats,
  type LossOptions,
  type LossReport,
  type Reviewer,
} from './analysis.js';
export { createAnalyser, type AnalyseCallOptions, type Analyser, type AnalyserCallOptions, type AnalyserOptions, type WorkerLike } from './analyser.js';
export type { AnalysisReply, AnalysisRequest } from './analysis-messages.js';
export { ERROR_STATUS, SolverError, type ErrorCode, type ErrorLocation } from '../core/errors.js';
export {
  ErrorResponseSchema,
  GamesResponseSchema,
  SolveRequestSchema,
  SolveResponseSchema,
  type ErrorResponse,
  type GameInfo,
  type GamesResponse,
  type SolveRequest,
  type SolveResponse,
} from '../api/schemas.js';
export {
  BatchRequestSchema,
  BatchResultSchema,
  BatchStatusSchema,
  wilsonInterval,
  type BatchRequest,
  type BatchResult,
  type BatchStatus,
  type BatchSummary,
  type BatchVerdict,
} from '../api/batch-schemas.js';
export {
  DealsResponseSchema,
  DifficultyResponseSchema,
  ReviewRequestSchema,
  ReviewResponseSchema,
  type DealsResponse,
  type DifficultyResponse,
  type ReviewResponse,
} from '../api/apps-schemas.js';
export { drawDeals, findBoundary, MEASURE_DEFINITIONS } from '../api/apps.js';
export { replayMoveList, splitMoveText, moveFromNotation } from '../core/move-list.js';
export {
  findPreset,
  PRESETS,
  type Deal,
  type GamePreset,
  type Layout,
  type Numbering,
  type Rules,
} from '../core/rules.js';
export type { Move } from '../core/moves.js';
export type { SolveLimits, SolveOutcome, SolveStats, UnknownReason, Verdict } from '../core/solve-types.js';
export { formatBoard, parseBoard } from '../core/board.js';
export { layoutFromJson, layoutToJson, type LayoutJson } from '../core/layout.js';
export { dealRange, generateDeal, supportedNumberings } from '../core/deals/index.js';
export { applyMove, checkMove, checkSolution, isWon, legalMoves, type CheckResult } from '../core/verify.js';
export { expandSequenceMoves, toFcsMoves, toStandardNotation } from '../core/notation.js';
export { resolveDeal, resolveLimits } from '../api/request.js';
export { compileEngine, Engine, loadEngineModule, type EngineSource, type ProgressOptions, type SolveOptions, type SolveProgress, type SolveShortOptions, type ShortenRunOptions } from '../core/engine/index.js';

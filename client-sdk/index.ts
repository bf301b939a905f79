/**
 * The solitaire solver SDK: the public entry point (Node; browsers get
 * `browser.ts`, which differs only in where `createLocalSolver` finds the
 * engine).
 *
 * - `createClient`: the typed HTTP client of the service (solve, games,
 *   batches, results as an async iterator), with retries and one error class.
 * - `createLocalSolver`: the same engine in-process, same answers, no server.
 * - `hint`: the next move of a solution from a position in progress.
 * - The library under both: game presets, deal generators, board and JSON
 *   formats, notation, the independent solution checker, the wire schemas.
 */
export { createClient, ServiceError, type BatchRequestInput, type BatchResultsOptions, type CallOptions, type ClientOptions, type SolveRequestInput, type SolverClient } from './client.js';
export { createLocalSolver, type LocalSolver, type LocalSolverOptions } from './local.js';
export { gamesResponse } from './request.js';
export { hint, type Hint, type Solver } from './hints.js';
export { ERROR_STATUS, SolverError, type ErrorCode, type ErrorLocation } from './errors.js';
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
} from './schemas.js';
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
} from './batch-schemas.js';
export { findPreset, PRESETS, type Deal, type GamePreset, type Layout, type Numbering, type Rules } from './rules.js';
export type { Move } from './moves.js';
export type { SolveLimits, SolveOutcome, SolveStats, UnknownReason, Verdict } from './solve-types.js';
export { formatBoard, parseBoard } from './board.js';
export { layoutFromJson, layoutToJson, type LayoutJson } from './layout.js';
export { dealRange, generateDeal, supportedNumberings } from './deals/index.js';
export { applyMove, checkSolution, isWon, type CheckResult } from './verify.js';
export { expandSequenceMoves, toFcsMoves, toStandardNotation } from './notation.js';
export { resolveDeal, resolveLimits } from './request.js';
export { compileEngine, Engine, loadEngineModule, type EngineSource } from './engine.js';

/**
 * The solver in-process, with no server: the same Wasm engine, the same
 * request handling (`api/request.ts`) and the same answer (`SolveResponse`,
 * independent check included) as `POST /v1/solve`. Runs in Node and in
 * browsers.
 *
 *   const solver = await createLocalSolver();              // Node: build/engine.wasm
 *   const solver = await createLocalSolver({ wasm: url }); // anywhere: a URL, bytes, a Response or a Module
 *   const answer = await solver.solve({ game: 'seahaven_towers', deal: 1 });
 *
 * `proof: true` gives an unsolvable answer its certificate inline, as the
 * service does (docs/proofs.md). The browser entry (`browser.ts`) passes the
 * Wasm file's URL for you. A solve
 * runs on the calling thread: in a page, keep `limits.timeoutMs` short or
 * call it from a Web Worker.
 */
import { compileEngine, Engine, loadEngineModule, type EngineSource } from '../core/engine/index.js';
import { hint as hintWith, type Hint } from './hints.js';
import { certificateBodyFromEngine, certificateWithinCap, DEFAULT_PROOF_CAPS, gzipWithStreams, proofRequestFor, type ProofCaps } from '../core/proof/certificate.js';
import type { CertificateResult, ProofRequest } from '../core/proof/format.js';
import { withProofSummary } from '../core/proof/summary.js';
import { buildSolveResponse, gamesResponse, resolveDeal, resolveLimits, resolveOptimize, type BudgetPolicy } from '../api/request.js';
import { SolveRequestSchema, validationError, type GamesResponse, type SolveResponse } from '../api/schemas.js';
import type { DealsQueryInput, DifficultyRequestInput, ReviewRequestInput, SolveRequestInput } from './client.js';
import { rateDifficulty, reviewGame, winnableDeals, type Decider } from '../api/apps.js';
import {
  DealsQuerySchema,
  DifficultyRequestSchema,
  ReviewRequestSchema,
  type DealsResponse,
  type DifficultyResponse,
  type ReviewResponse,
} from '../api/apps-schemas.js';
import type { z } from 'zod';
import type { Deal } from '../core/rules.js';
import type { SolveLimits, SolveOutcome } from '../core/solve-types.js';

/**
 * The local solver's default budgets: 5,000,000 states / 30 s, capped at
 * 50,000,000 states / 120 s (the same as the service's defaults, so that an
 * answer does not depend on where the solve ran).
 */
export const LOCAL_BUDGET_POLICY: Readonly<BudgetPolicy> = Object.freeze({
  defaultMaxStates: 5_000_000,
  maxStatesCap: 50_000_000,
  defaultTimeoutMs: 30_000,
  timeoutMsCap: 120_000,
});

/** Options of `createLocalSolver`. */
export interface LocalSolverOptions {
  /** The engine: a compiled module, its bytes, a Response or a URL. Default (Node): `build/engine.wasm`. */
  wasm?: EngineSource;
  /** Defaults and caps of the budgets; default {@link LOCAL_BUDGET_POLICY} (5,000,000 states, 30 s). */
  limits?: Partial<BudgetPolicy>;
  /**
   * Caps of the certificates that `proof: true` asks for: by default the
   * service's position cap (2,000,000) and no byte cap (an in-process answer
   * has no transport to protect).
   */
  proofCaps?: Partial<ProofCaps>;
}

/** The in-process solver; see `createLocalSolver`. */
export interface LocalSolver {
  /**
   * Solves one position: the same request and the same answer as `POST /v1/solve`.
   * @throws SolverError with the service's codes for bad input (`invalid_request`,
   *   `malformed_board`, `unknown_game`, `bad_limits`, ...), and
   *   `solution_check_failed` / `engine_error` if the engine fails.
   */
  solve(request: SolveRequestInput): Promise<SolveResponse>;
  /** The next move of a solution from a position; see `hints.ts`. */
  hint(request: SolveRequestInput): Promise<Hint>;
  /** The game presets, as `GET /v1/games` lists them. */
  games(): GamesResponse;
  /**
   * Reviews a played game: the same request and answer as `POST /v1/review`
   * (docs/apps.md), the positions decided one after the other.
   * @throws SolverError as `solve`, and `illegal_move` (path `moves.<i>`) for an illegal move.
   */
  review(request: ReviewRequestInput): Promise<ReviewResponse>;
  /**
   * A deal's difficulty (`min_cells` or `castle_ladder`): as `POST /v1/difficulty`.
   * @throws SolverError as `solve`; `invalid_request` (path `measure`) for a measure the game does not fit.
   */
  difficulty(request: DifficultyRequestInput): Promise<DifficultyResponse>;
  /**
   * Winnable deal numbers, as `GET /v1/deals?winnable=true` (the query's
   * values may be numbers here). The same seed gives the same deals.
   * @throws SolverError `invalid_request`, `deal_out_of_range`, `unknown_game`, ...
   */
  winnableDeals(query: DealsQueryInput): Promise<DealsResponse>;
}

/** Parses a request with its schema; a failure is the service's 400 (`validationError`). */
function parse<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data;
}

/** A query with number values as the URL's strings. */
function queryStrings(query: DealsQueryInput): Record<string, string> {
  return Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]));
}

/**
 * Compiles (or takes) the engine and returns an in-process solver. One engine
 * instance: solves run one after the other.
 * @throws Error when the Wasm cannot be loaded.
 */
export async function createLocalSolver(options: LocalSolverOptions = {}): Promise<LocalSolver> {
  const module = options.wasm === undefined ? await loadEngineModule() : await compileEngine(options.wasm);
  const engine = Engine.instantiate(module);
  const budgets: BudgetPolicy = { ...LOCAL_BUDGET_POLICY, ...options.limits };
  const proofCaps: ProofCaps = { maxPositions: DEFAULT_PROOF_CAPS.maxPositions, inlineMaxBytes: Number.MAX_SAFE_INTEGER, ...options.proofCaps };

  /** One engine: one position at a time; the certificate as `solve` makes it. */
  const decider: Decider = {
    parallelism: 1,
    async decide(deal: Deal, limits: SolveLimits, _signal?: AbortSignal, options?: { proof?: ProofRequest }): Promise<SolveOutcome> {
      const outcome = withProofSummary(engine, deal.rules, engine.solve(deal, { limits }));
      if (outcome.proof === undefined || !options?.proof?.certificate) return outcome;
      const made = certificateBodyFromEngine(engine, deal, outcome.proof.positions, outcome.proof.fingerprint, options.proof);
      const certificate: CertificateResult = 'body' in made ? certificateWithinCap(await gzipWithStreams(made.body), options.proof) : made;
      return { ...outcome, proof: { ...outcome.proof, certificate } };
    },
  };
  const appsConfig = { limits: budgets, proofCaps };

  const solver: LocalSolver = {
    async solve(request) {
      const parsed = SolveRequestSchema.safeParse(request);
      if (!parsed.success) throw validationError(parsed.error);
      const req = parsed.data;
      const deal = resolveDeal(req);
      const limits = resolveLimits(req.limits, budgets, req.game);
      const optimize = resolveOptimize(req);
      const found = withProofSummary(engine, deal.rules, engine.solve(deal, { limits }));
      const outcome = optimize === undefined ? found : engine.shorten(deal, found, { optimize });
      if (outcome.proof === undefined || !req.proof) return buildSolveResponse(req.game, deal, limits, outcome);
      // the certificate inline, as the service gives it (gzip through Compression Streams, so browsers too)
      const proofRequest = proofRequestFor(req, proofCaps, 'inline');
      const made = certificateBodyFromEngine(engine, deal, outcome.proof.positions, outcome.proof.fingerprint, proofRequest);
      const certificate: CertificateResult = 'body' in made ? certificateWithinCap(await gzipWithStreams(made.body), proofRequest) : made;
      return buildSolveResponse(req.game, deal, limits, { ...outcome, proof: { ...outcome.proof, certificate } });
    },
    hint: (request) => hintWith(solver, request),
    games: gamesResponse,
    review: async (request) => reviewGame(parse(ReviewRequestSchema, request), decider, appsConfig),
    difficulty: async (request) => rateDifficulty(parse(DifficultyRequestSchema, request), decider, appsConfig),
    winnableDeals: async (query) => winnableDeals(parse(DealsQuerySchema, queryStrings(query)), decider, appsConfig),
  };
  return solver;
}


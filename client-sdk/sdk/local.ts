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
import { parseRequest, SolveRequestSchema, type GamesResponse, type SolveResponse } from '../api/schemas.js';
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
import type { Deal } from '../core/rules.js';
import { layoutKey } from '../core/move-list.js';
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
  /**
   * Remember the verdicts of the last `memo` positions decided (`solved`
   * with its checked solution, `unsolvable` with its proof summary; never
   * `unknown`), so that `review`, `difficulty` and `winnableDeals` answer a
   * position this solver has already decided without searching it again
   * (a review after the analysis of each move, client-sdk/sdk/analysis.ts).
   * A remembered answer keeps the counters of its search. `solve` and
   * `hint` always search (their shortening and certificates start from the
   * engine's own search), but what they decide is remembered. Default 0
   * (nothing remembered). (Whatever this is, a `solve` that asks for a
   * shortening right after a `solve` of the same position that found a
   * solution shortens that solution instead of searching again.)
   */
  memo?: number;
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

  const memo = new VerdictMemo(options.memo ?? 0);
  /** The engine's last search when it found a solution, until anything else uses the engine (its solution is still in the engine's buffer). */
  let lastSolved: { key: string; outcome: SolveOutcome } | undefined;
  /** The engine's search of a position, with the proof summary of an unsolvable one; remembered in `memo`. */
  const search = (deal: Deal, limits: SolveLimits): SolveOutcome => {
    const outcome = memo.keep(deal, withProofSummary(engine, deal.rules, engine.solve(deal, { limits })));
    lastSolved = outcome.verdict === 'solved' ? { key: positionKey(deal), outcome } : undefined;
    return outcome;
  };

  /** One engine: one position at a time; the certificate as `solve` makes it (from a search of its own). */
  const decider: Decider = {
    parallelism: 1,
    async decide(deal: Deal, limits: SolveLimits, _signal?: AbortSignal, options?: { proof?: ProofRequest }): Promise<SolveOutcome> {
      const proofRequest = options?.proof?.certificate ? options.proof : undefined;
      const outcome = (proofRequest ? undefined : memo.recall(deal)) ?? search(deal, limits);
      if (outcome.proof === undefined || proofRequest === undefined) return outcome;
      const made = certificateBodyFromEngine(engine, deal, outcome.proof.positions, outcome.proof.fingerprint, proofRequest);
      const certificate: CertificateResult = 'body' in made ? certificateWithinCap(await gzipWithStreams(made.body), proofRequest) : made;
      return { ...outcome, proof: { ...outcome.proof, certificate } };
    },
  };
  const appsConfig = { limits: budgets, proofCaps };

  const solver: LocalSolver = {
    async solve(request) {
      const req = parseRequest(SolveRequestSchema, request);
      const deal = resolveDeal(req);
      const limits = resolveLimits(req.limits, budgets, req.game);
      const optimize = resolveOptimize(req);
      // A shortening asked for right after a solve of the same position starts from that search's solution (still in the engine).
      const again = optimize !== undefined && !req.proof && lastSolved?.key === positionKey(deal) ? lastSolved.outcome : undefined;
      const found = again ?? search(deal, limits);
      if (optimize !== undefined) lastSolved = undefined;
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
    review: async (request) => reviewGame(parseRequest(ReviewRequestSchema, request), decider, appsConfig),
    difficulty: async (request) => rateDifficulty(parseRequest(DifficultyRequestSchema, request), decider, appsConfig),
    winnableDeals: async (query) => winnableDeals(parseRequest(DealsQuerySchema, queryStrings(query)), decider, appsConfig),
  };
  return solver;
}

/** A key equal for two deals exactly when their rules and their cards are the same. */
function positionKey(deal: Deal): string {
  return `${JSON.stringify(deal.rules, Object.keys(deal.rules).sort())}|${layoutKey(deal.layout)}`;
}

/**
 * The verdicts of the last `size` positions decided (see
 * `LocalSolverOptions.memo`), keyed by the rules and the position
 * (`layoutKey`): a decided verdict depends on nothing else (a checked
 * solution wins from that position, a complete search covers all of it),
 * whatever budget found it. Least recently used first out.
 */
class VerdictMemo {
  private readonly entries = new Map<string, SolveOutcome>();
  constructor(private readonly size: number) {}

  /** Remembers `outcome` when it is decided; returns it unchanged. */
  keep(deal: Deal, outcome: SolveOutcome): SolveOutcome {
    if (this.size <= 0 || outcome.verdict === 'unknown') return outcome;
    const key = positionKey(deal);
    this.entries.delete(key);
    this.entries.set(key, outcome);
    if (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value as string);
    return outcome;
  }

  /** The remembered verdict of the position (a copy of its moves), or undefined. */
  recall(deal: Deal): SolveOutcome | undefined {
    if (this.size <= 0) return undefined;
    const key = positionKey(deal);
    const known = this.entries.get(key);
    if (known === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, known);
    return { ...known, moves: known.moves.slice() };
  }
}

/**
 * The batch model shared by both backends (the embedded one, SQLite and the
 * in-process scheduler, in embedded/; the redis one, Redis and BullMQ
 * workers, in redis/): what a batch is (its spec, and the deal number at
 * an index of it), how far it is (its record and state), one deal's
 * result, the compact move codec both stores use, and the wire shapes of a
 * status and a result (client-sdk/api/batch-schemas.ts). Nothing here opens a database or a
 * connection, so a Redis worker that imports it loads no SQLite.
 */
import { wilsonInterval, type BatchDistributions, type BatchResult, type BatchStatus, type BatchVerdict } from '../../client-sdk/api/batch-schemas.js';
import type { RulesOverride } from '../../client-sdk/api/schemas.js';
import { SolverError } from '../../client-sdk/core/errors.js';
import { packMoves, unpackMoves, type Move } from '../../client-sdk/core/moves.js';
import { toStandardNotation } from '../../client-sdk/core/notation.js';
import type { Numbering, Rules } from '../../client-sdk/core/rules.js';
import type { SolveLimits, SolveOutcome, UnknownReason } from '../../client-sdk/core/solve-types.js';
import { bucketRange, type CensusSummary, type Histogram, type ResultsMode } from './census.js';

/**
 * Default worker time of one pool task of several deals of a batch, ms (the
 * embedded scheduler's and the `redis` workers' `chunkMs`): some hundreds of
 * MS FreeCell deals, so the pool's cost of a task (the hand-off to a worker,
 * the answers' way back) is paid once for many quick deals, while a single
 * solve still waits for one deal only (the pool's shared runs give their
 * workers up: server/pool.ts).
 */
export const DEFAULT_CHUNK_MS = 100;

/** Largest batch that keeps every result, by default, in deals (`BATCH_MAX_DEALS`). */
export const DEFAULT_MAX_BATCH_DEALS = 1_000_000;

/**
 * Default quotas on the deals queued in running batches, per API key when
 * keys are on, overall otherwise (`BATCH_QUEUE_MAX_DEALS`,
 * `BATCH_QUEUE_MAX_CENSUS_DEALS`): 5,000,000 deals of batches that keep
 * every result (about 5 GB of stored results at ~1 KB a deal), and 2^34
 * (17,179,869,184: twice the FreeCell Pro range 1..8,589,934,591) of
 * batches that keep exceptions only, whose storage does not grow with their size.
 */
export const DEFAULT_QUOTAS: Readonly<{ maxQueuedDeals: number; maxQueuedCensusDeals: number }> = {
  maxQueuedDeals: 5_000_000,
  maxQueuedCensusDeals: 2 ** 34,
};

/**
 * Refuses a batch of `total` deals of `mode` when, with the `queued` deals
 * its owner already has in running batches of that mode, it would pass
 * the owner's quota (`quotas`; per API key when `owner` is a key's name,
 * overall when it is null).
 * @throws SolverError `quota_exceeded` (429), path `deals`.
 */
export function checkQuota(
  quotas: { maxQueuedDeals: number; maxQueuedCensusDeals: number },
  mode: ResultsMode,
  owner: string | null,
  queued: number,
  total: number,
): void {
  const most = mode === 'exceptions' ? quotas.maxQueuedCensusDeals : quotas.maxQueuedDeals;
  if (queued + total <= most) return;
  const whose = owner === null ? 'the service has' : `API key "${owner}" has`;
  const kind = mode === 'exceptions' ? 'batches that keep exceptions' : 'batches that keep every result';
  throw new SolverError(
    'quota_exceeded',
    `${whose} ${queued} deals queued in running ${kind}; with these ${total} that is more than the ${most} allowed: wait for them to finish, or cancel some`,
    { path: 'deals' },
  );
}

/** The positions of a batch, as stored. Deal numbers are decimal strings (they may exceed 2^53). */
export type BatchPositions =
  | { kind: 'range'; from: string; to: string }
  | { kind: 'list'; deals: (number | string)[] }
  | { kind: 'boards'; boards: string[] };

/** Everything needed to (re)start a batch, stored as JSON. */
export interface BatchSpec {
  game: string;
  numbering: Numbering | null;
  /** The request's overrides (re-applied to the preset for every deal). */
  rulesOverride?: RulesOverride;
  /** The resolved rules, for the status. */
  rules: Rules;
  limits: SolveLimits;
  positions: BatchPositions;
  name?: string;
  /** What the batch keeps (census.ts); absent = `all`. */
  results?: 'exceptions';
}

/** What `spec` keeps of its deals. */
export function resultsMode(spec: BatchSpec): ResultsMode {
  return spec.results ?? 'all';
}

/** The deal number of deal `index` (a number when exact, else a digit string); null for a board. */
export function dealNumberAt(spec: BatchSpec, index: number): number | string | null {
  const p = spec.positions;
  if (p.kind === 'boards') return null;
  if (p.kind === 'list') return p.deals[index];
  const n = BigInt(p.from) + BigInt(index);
  return n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : String(n);
}

/** Where a batch is: `running`, `done` (every deal has a result) or `cancelled`. */
export type BatchState = BatchStatus['status'];

/** A batch's record: its spec and its counters (a SQLite row in embedded/, a Redis hash in redis/). */
export interface BatchRecord {
  id: string;
  spec: BatchSpec;
  status: BatchState;
  createdAt: number;
  finishedAt: number | null;
  total: number;
  done: number;
  solved: number;
  unsolvable: number;
  unknown: number;
  errors: number;
  /** Sum of the solved deals' move counts. */
  sumMoves: number;
  /** Sum of the engine time of every finished deal, ms. */
  sumElapsedMs: number;
  /** Wall-clock ms the batch has been worked on (summed over server runs), for the final deals/s. */
  activeMs: number;
  /** Results stored one by one (every deal's in `all` mode, the exceptions in `exceptions` mode); 0 once purged. */
  stored: number;
  /** The census summary of the finished deals (census.ts); its counts equal the counters above. */
  summary: CensusSummary;
  /** When the stored results were deleted (ms since the epoch), or null. */
  purgedAt: number | null;
  /** The API key that created the batch (its name), or null without keys: whose quota it counts against. */
  owner: string | null;
}

/** One deal's result as a solve gives it, before a store numbers it (`seq`). */
export interface ResultInput {
  index: number;
  verdict: BatchVerdict;
  reason?: UnknownReason;
  /** The solution (empty unless solved, and when `packedMoves` holds it). */
  moves: Move[];
  /**
   * The solution already packed (`packMoves` of client-sdk/core/moves.ts, 8
   * bytes a move), as the pool's `solveManyPacked` answers: the stores keep
   * these bytes as they are, and `moves` is then empty. Never on a result
   * read back from a store.
   */
  packedMoves?: Uint8Array;
  statesExpanded: number;
  statesStored: number;
  elapsedMs: number;
  error?: { code: string; message: string };
}

export { resultMoveCount } from './census.js';

/** `r`'s solution as the stores keep it (`encodeMoves`; the packed bytes as they are), or null for none. */
export function resultMoveBytes(r: ResultInput): Buffer | null {
  const packed = r.packedMoves;
  if (packed !== undefined) return packed.length > 0 ? Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength) : null;
  return r.moves.length > 0 ? encodeMoves(r.moves) : null;
}

/** A stored result, with its place in completion order. */
export interface StoredResult extends ResultInput {
  seq: number;
}

/** A counter of a batch record that counts one verdict (`errors` counts `error`). */
export type VerdictCounter = 'solved' | 'unsolvable' | 'unknown' | 'errors';

/** Every verdict counter, in the order of the record's fields. */
export const VERDICT_COUNTERS: readonly VerdictCounter[] = ['solved', 'unsolvable', 'unknown', 'errors'];

/** The counter of each verdict: the SQLite column and the Redis hash field of the same name. */
export const VERDICT_COUNTER: Readonly<Record<BatchVerdict, VerdictCounter>> = {
  solved: 'solved',
  unsolvable: 'unsolvable',
  unknown: 'unknown',
  error: 'errors',
};

// ------------------------------------------------------------ move codec

/**
 * Packs moves for the stores (the SQLite `moves` column, base64 in Redis):
 * `packMoves` of client-sdk/core/moves.ts, 8 bytes a move, as a Buffer.
 */
export function encodeMoves(moves: readonly Move[]): Buffer {
  const bytes = packMoves(moves);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The inverse of `encodeMoves` (no moves for `null`). */
export function decodeMoves(buf: Uint8Array | null): Move[] {
  return buf ? unpackMoves(buf) : [];
}

// ------------------------------------------------------------ results and wire shapes

/**
 * A solve's outcome as the result of deal `index` (both backends); with
 * `packedMoves` (the pool's `solveManyPacked`), the solution is those bytes
 * and `outcome.moves` is not read.
 */
export function outcomeResult(index: number, outcome: SolveOutcome, packedMoves?: Uint8Array): ResultInput {
  return {
    index,
    verdict: outcome.verdict,
    ...(outcome.reason !== undefined ? { reason: outcome.reason } : {}),
    ...(packedMoves !== undefined ? { moves: [], packedMoves } : { moves: outcome.moves }),
    statesExpanded: outcome.stats.statesExpanded,
    statesStored: outcome.stats.statesStored,
    elapsedMs: outcome.stats.elapsedMs,
  };
}

/** A failed solve as the `error` result of deal `index` (both backends). */
export function failedResult(index: number, err: unknown): ResultInput {
  const error =
    err instanceof SolverError ? { code: err.code, message: err.message } : { code: 'internal_error', message: 'the solve failed unexpectedly' };
  return { index, verdict: 'error', moves: [], statesExpanded: 0, statesStored: 0, elapsedMs: 0, error };
}

/** The wire shape of a stored result. */
export function toWireResult(record: BatchRecord, r: StoredResult, withMoves: boolean): BatchResult {
  return {
    seq: r.seq,
    index: r.index,
    deal: dealNumberAt(record.spec, r.index),
    verdict: r.verdict,
    ...(r.reason !== undefined ? { reason: r.reason } : {}),
    moveCount: r.moves.length,
    notation: r.moves.length > 0 ? toStandardNotation(r.moves, record.spec.rules) : [],
    ...(withMoves ? { moves: r.moves } : {}),
    stats: { statesExpanded: r.statesExpanded, statesStored: r.statesStored, elapsedMs: r.elapsedMs },
    ...(r.error !== undefined ? { error: r.error } : {}),
  };
}

/** The wire status of a batch: counters from the store, live rate from the scheduler. */
export function toStatus(record: BatchRecord, live: { dealsPerSecond: number; etaSeconds: number | null } | null): BatchStatus {
  const { spec } = record;
  const decided = record.solved + record.unsolvable;
  const wilson = wilsonInterval(record.solved, decided);
  const finishedRate = record.activeMs > 0 ? record.done / (record.activeMs / 1000) : 0;
  return {
    id: record.id,
    ...(spec.name !== undefined ? { name: spec.name } : {}),
    status: record.status,
    game: spec.game,
    numbering: spec.numbering,
    rules: spec.rules,
    limits: spec.limits,
    createdAt: new Date(record.createdAt).toISOString(),
    finishedAt: record.finishedAt === null ? null : new Date(record.finishedAt).toISOString(),
    total: record.total,
    done: record.done,
    counts: { solved: record.solved, unsolvable: record.unsolvable, unknown: record.unknown, error: record.errors },
    dealsPerSecond: round(live?.dealsPerSecond ?? finishedRate, 2),
    etaSeconds: record.status === 'running' && live?.etaSeconds != null ? round(live.etaSeconds, 1) : null,
    summary: {
      solvable: wilson && { share: round(wilson.share, 6), low: round(wilson.low, 6), high: round(wilson.high, 6), decided },
      unknown: record.unknown,
      unknownShare: record.done > 0 ? round(record.unknown / record.done, 6) : 0,
      meanMoves: record.solved > 0 ? round(record.sumMoves / record.solved, 2) : null,
      meanMsPerDeal: record.done > 0 ? round(record.sumElapsedMs / record.done, 3) : null,
      meanPositionsPerDeal: record.done > 0 ? round(record.summary.sumPositions / record.done, 1) : null,
      distributions: toWireDistributions(record.summary),
    },
    results: resultsMode(spec),
    stored: record.stored,
    purgedAt: record.purgedAt === null ? null : new Date(record.purgedAt).toISOString(),
    urls: { self: `/v1/batches/${record.id}`, results: `/v1/batches/${record.id}/results` },
  };
}

/** The summary's histograms as the status shows them (batch-schemas.ts `BatchDistributions`). */
export function toWireDistributions(s: CensusSummary): BatchDistributions {
  const sorted = (h: Histogram) =>
    Object.entries(h)
      .map(([bucket, count]) => [Number(bucket), count] as const)
      .filter(([, count]) => count > 0)
      .sort((a, b) => a[0] - b[0]);
  return {
    moves: sorted(s.moves).map(([moves, count]) => ({ moves, count })),
    positions: sorted(s.positions).map(([b, count]) => ({ ...bucketRange(b), count })),
    timeMs: sorted(s.time).map(([b, count]) => {
      const { from, to } = bucketRange(b);
      return { from: from / 1000, to: to / 1000, count };
    }),
  };
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

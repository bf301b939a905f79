/**
 * One deal's result as the `redis` backend stores it (a value of the `res`
 * hash), and the batch hash read back as a `BatchRecord`, so that the wire
 * shapes come from the same functions as in the embedded mode (`toStatus`,
 * `toWireResult` in ../model.ts).
 *
 * A result is compact JSON; the moves are the model's 8-byte-a-move encoding
 * (`encodeMoves` in ../model.ts, as in the SQLite store) in base64, about
 * 1.1 KB for a 100-move solution.
 */
import type { BatchVerdict } from '../../../client-sdk/api/batch-schemas.js';
import type { UnknownReason } from '../../../client-sdk/core/solve-types.js';
import { elapsedUs, positionBucket, resultMoveCount, summaryFromHash, timeBucket } from '../census.js';
import { decodeMoves, resultMoveBytes, VERDICT_COUNTER, type BatchRecord, type BatchSpec, type BatchState, type ResultInput, type StoredResult } from '../model.js';

interface Payload {
  i: number;
  v: BatchVerdict;
  r?: UnknownReason;
  m?: string;
  x: number;
  s: number;
  t: number;
  e?: { code: string; message: string };
}

/** The stored form of a result. */
export function encodeResult(r: ResultInput): string {
  const p: Payload = { i: r.index, v: r.verdict, x: r.statesExpanded, s: r.statesStored, t: r.elapsedMs };
  if (r.reason !== undefined) p.r = r.reason;
  const moves = resultMoveBytes(r);
  if (moves !== null) p.m = moves.toString('base64');
  if (r.error !== undefined) p.e = r.error;
  return JSON.stringify(p);
}

/**
 * A result as `RECORD` takes it (scripts.ts, `RECORD_FIELDS` values): its
 * index, counter field, move count, engine ms, stored form, engine µs,
 * positions, and its summary's histogram fields (census.ts; '' unless solved).
 */
export function recordFields(r: ResultInput): (string | number)[] {
  const solved = r.verdict === 'solved';
  const moves = solved ? resultMoveCount(r) : 0;
  return [
    r.index,
    VERDICT_COUNTER[r.verdict],
    moves,
    r.elapsedMs,
    encodeResult(r),
    elapsedUs(r.elapsedMs),
    Math.max(0, Math.floor(r.statesExpanded)),
    solved ? `m:${moves}` : '',
    solved ? `p:${positionBucket(r.statesExpanded)}` : '',
    solved ? `t:${timeBucket(r.elapsedMs)}` : '',
  ];
}

/** The verdict of a stored form, without decoding the rest (for a filter). */
export function payloadVerdict(text: string): BatchVerdict {
  return (JSON.parse(text) as Payload).v;
}

/** The inverse of `encodeResult`, with the result's `seq`. */
export function decodeResult(seq: number, text: string): StoredResult {
  const p = JSON.parse(text) as Payload;
  return {
    seq,
    index: p.i,
    verdict: p.v,
    ...(p.r !== undefined ? { reason: p.r } : {}),
    moves: p.m ? decodeMoves(Buffer.from(p.m, 'base64')) : [],
    statesExpanded: p.x,
    statesStored: p.s,
    elapsedMs: p.t,
    ...(p.e !== undefined ? { error: p.e } : {}),
  };
}

/**
 * The fields written when a batch is created: its jobs are `chunk` deals
 * each, and at most `window` of them are in the queue at once (consumer.ts
 * adds job k + window when job k ends).
 */
export function batchFields(
  id: string,
  spec: BatchSpec,
  total: number,
  chunk: number,
  createdAt: number,
  options: { window?: number; owner?: string | null } = {},
): Record<string, string | number> {
  const chunks = Math.ceil(total / chunk);
  return {
    id,
    spec: JSON.stringify(spec),
    mode: spec.results ?? 'all',
    status: 'running',
    createdAt,
    total,
    done: 0,
    stored: 0,
    solved: 0,
    unsolvable: 0,
    unknown: 0,
    errors: 0,
    sumMoves: 0,
    sumElapsedMs: 0,
    activeMs: 0,
    chunk,
    chunks,
    window: Math.min(chunks, options.window ?? chunks),
    enqueued: 0,
    ...(options.owner != null ? { owner: options.owner } : {}),
  };
}

/** A batch hash (HGETALL) as the SQLite store's record; `spec` is parsed unless given. */
export function toRecord(h: Record<string, string>, spec?: BatchSpec): BatchRecord {
  const n = (field: string) => Number(h[field] ?? 0);
  return {
    id: h.id,
    spec: spec ?? (JSON.parse(h.spec) as BatchSpec),
    status: h.status as BatchState,
    createdAt: n('createdAt'),
    finishedAt: h.finishedAt === undefined ? null : n('finishedAt'),
    total: n('total'),
    done: n('done'),
    solved: n('solved'),
    unsolvable: n('unsolvable'),
    unknown: n('unknown'),
    errors: n('errors'),
    sumMoves: n('sumMoves'),
    sumElapsedMs: n('sumElapsedMs'),
    activeMs: n('activeMs'),
    stored: h.stored === undefined ? n('done') : n('stored'),
    summary: summaryFromHash(h),
    purgedAt: h.purgedAt === undefined ? null : n('purgedAt'),
    owner: h.owner ?? null,
  };
}

/** A flat [field, value, ...] reply as an object. */
export function pairs(flat: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]] = flat[i + 1];
  return out;
}

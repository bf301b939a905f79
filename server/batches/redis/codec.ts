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
import { decodeMoves, resultMoveBytes, type BatchRecord, type BatchSpec, type BatchState, type ResultInput, type StoredResult } from '../model.js';

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

/** The fields written when a batch is created. */
export function batchFields(id: string, spec: BatchSpec, total: number, chunk: number, createdAt: number): Record<string, string | number> {
  return {
    id,
    spec: JSON.stringify(spec),
    status: 'running',
    createdAt,
    total,
    done: 0,
    solved: 0,
    unsolvable: 0,
    unknown: 0,
    errors: 0,
    sumMoves: 0,
    sumElapsedMs: 0,
    activeMs: 0,
    chunk,
    chunks: Math.ceil(total / chunk),
    enqueued: 0,
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
  };
}

/** A flat [field, value, ...] reply as an object. */
export function pairs(flat: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]] = flat[i + 1];
  return out;
}

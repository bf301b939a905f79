/**
 * The deals of a job, on the worker (wire.ts `DealSource`): deals the caller
 * packed are unpacked, numbered deals are dealt here (a batch's range never
 * crosses the threads as deals: one deal's dealing costs about what its
 * answer's handling does, and the main thread has one core), and requests
 * are resolved as `POST /v1/solve` resolves them (`resolveDeal`), so that a
 * fault of the position is the same 4xx it always was.
 */
import { resolveDeal } from '../../client-sdk/api/request.js';
import type { SolveRequest } from '../../client-sdk/api/schemas.js';
import type { Deal } from '../../client-sdk/core/rules.js';
import { packedDealReader } from './packing.js';
import type { DealSource } from './wire.js';

/**
 * Reads deal `i` of `source`.
 * @returns a function of the deal's index; it throws SolverError as
 *   `resolveDeal` does (a request's bad position), RangeError for an index
 *   outside the source.
 */
export function dealReader(source: DealSource): (i: number) => Deal {
  switch (source.kind) {
    case 'packed':
      return packedDealReader(source.packed);
    case 'given':
      return (i) => source.deals[i] as Deal;
    case 'requests':
      return (i) => resolveDeal(source.requests[i]);
    case 'range': {
      const { game, numbering, rules } = source.template;
      const base = { game, numbering, ...(rules !== undefined ? { rules } : {}) };
      const first = BigInt(source.first);
      // within 2^53 the numbers are plain numbers (the request's own form for them)
      const exact = first + BigInt(source.count) <= BigInt(Number.MAX_SAFE_INTEGER);
      const start = Number(first);
      return (i) => resolveDeal({ ...base, deal: exact ? start + i : String(first + BigInt(i)) } as SolveRequest);
    }
  }
}

/**
 * The deals of a job, on the worker (wire.ts `DealSource`): deals the caller
 * packed are unpacked, numbered deals are dealt here (a batch's range never
 * crosses the threads as deals: one deal's dealing costs about what its
 * answer's handling does, and the main thread has one core; under the
 * game's own rules a range is dealt straight from the game's dealer,
 * `presetDeals`), and requests
 * are resolved as `POST /v1/solve` resolves them (`resolveDeal`), so that a
 * fault of the position is the same 4xx it always was.
 */
import { applyRules, requirePreset, resolveDeal } from '../../client-sdk/api/request.js';
import type { SolveRequest } from '../../client-sdk/api/schemas.js';
import { generateDeal } from '../../client-sdk/core/deals/index.js';
import type { Deal, Numbering, Rules } from '../../client-sdk/core/rules.js';
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
      const numberAt = (i: number) => (exact ? start + i : String(first + BigInt(i)));
      const resolved = (i: number) => resolveDeal({ ...base, deal: numberAt(i) } as SolveRequest);
      return rules === undefined ? presetDeals(game, numbering, numberAt, resolved) : resolved;
    }
  }
}

/**
 * The deals of a range under its game's own rules (no override), dealt
 * straight from the game's dealer: the preset's rules are resolved once
 * and shared, and the dealt layout is taken as it is, where `resolveDeal`
 * would check the rules and validate the layout again for every deal (a
 * census's worker spent about 3 % of its time there). The first deal read
 * is made both ways and compared; if they differ (a preset whose dealt
 * layout `resolveDeal` fits to its rules), every deal goes through
 * `resolveDeal`. The checker still validates each deal's starting
 * position before it accepts a solution.
 */
function presetDeals(game: string, numbering: Numbering, numberAt: (i: number) => number | string, resolved: (i: number) => Deal): (i: number) => Deal {
  const rules: Rules = Object.freeze(applyRules(requirePreset(game).rules, undefined));
  const dealt = (i: number): Deal => {
    const deal = generateDeal(game, numbering, numberAt(i));
    // a deal that fixes its foundation base (Penguin's beak) has rules of its own
    return { rules: deal.foundationBase === undefined ? rules : Object.freeze({ ...rules, foundationBase: deal.foundationBase }), layout: deal.layout };
  };
  let read: ((i: number) => Deal) | undefined;
  return (i) => {
    if (read !== undefined) return read(i);
    const full = resolved(i);
    read = JSON.stringify(dealt(i)) === JSON.stringify(full) ? dealt : resolved;
    return full;
  };
}

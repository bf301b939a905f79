/**
 * `solvePooledPass` (client-sdk/core/proof/writer.ts): the pooled pass alone,
 * as the pool's helper pass runs it on a second worker.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { Engine } from '../../client-sdk/core/engine/index.js';
import { POOLINGS_TO_TRY } from '../../client-sdk/core/pools.js';
import { solvePooledPass } from '../../client-sdk/core/proof/writer.js';

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.create();
});

describe('solvePooledPass', () => {
  it('proves Streets and Alleys 91 unsolvable by a pooled game (a reference-unsolvable deal), with the pools named', () => {
    const deal = resolveDeal({ game: 'streets_and_alleys', deal: 91 });
    const out = solvePooledPass(engine, deal, { maxStates: 1_000_000, timeoutMs: 60_000 });
    expect(out.verdict).toBe('unsolvable');
    const pools = out.proof?.pools;
    expect(POOLINGS_TO_TRY.map((p) => p.join(' '))).toContain(pools?.join(' '));
  });

  it('names each pooling to onPooling before its search: the first of POOLINGS_TO_TRY first, the deciding one last', () => {
    const deal = resolveDeal({ game: 'streets_and_alleys', deal: 91 });
    const seen: string[] = [];
    const out = solvePooledPass(engine, deal, { maxStates: 1_000_000, timeoutMs: 60_000 }, { onPooling: (p) => seen.push(p.join(' ')) });
    expect(out.verdict).toBe('unsolvable');
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(seen[0]).toBe(POOLINGS_TO_TRY[0].join(' '));
    expect(seen.at(-1)).toBe(out.proof?.pools?.join(' '));
    const order = POOLINGS_TO_TRY.map((p) => p.join(' '));
    for (const name of seen) expect(order).toContain(name);
  });

  it('calls onPooledProof once, with the deciding pooling, before the proof is built; never when no pooling decides', () => {
    const deal = resolveDeal({ game: 'streets_and_alleys', deal: 91 });
    const proved: string[] = [];
    const out = solvePooledPass(engine, deal, { maxStates: 1_000_000, timeoutMs: 60_000 }, { onPooledProof: (p) => proved.push(p.join(' ')) });
    expect(out.verdict).toBe('unsolvable');
    expect(proved).toEqual([out.proof?.pools?.join(' ')]);
    const none: string[] = [];
    expect(solvePooledPass(engine, deal, { maxStates: 10, timeoutMs: 60_000 }, { onPooledProof: (p) => none.push(p.join(' ')) }).verdict).toBe('unknown');
    expect(none).toEqual([]);
  });

  it('answers unknown when no pooling decides, and cancelled when stopped', () => {
    const deal = resolveDeal({ game: 'streets_and_alleys', deal: 91 });
    expect(solvePooledPass(engine, deal, { maxStates: 10, timeoutMs: 60_000 })).toMatchObject({ verdict: 'unknown', reason: 'timeout' });
    const stop = new Int32Array(new SharedArrayBuffer(4));
    Atomics.store(stop, 0, 1);
    expect(solvePooledPass(engine, deal, { maxStates: 1_000_000, timeoutMs: 60_000 }, { stop })).toMatchObject({ verdict: 'unknown', reason: 'cancelled' });
  });

  it('refuses rules that look at suit', () => {
    expect(() => solvePooledPass(engine, resolveDeal({ game: 'freecell', deal: 1 }), { maxStates: 1000, timeoutMs: 1000 })).toThrow(RangeError);
  });
});

/**
 * The parts of a service of several HTTP fronts that run in one process
 * (server/fronts/): errors across the channel, the primary's shared
 * rate-limit store, the service's readiness in `/readyz`, and the state
 * changes a front reports. The fronts themselves, in processes:
 * tests/integration/fronts.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { SolverError } from '../../client-sdk/core/errors.js';
import { fromWire, PendingCalls, toWire } from '../../server/fronts/protocol.js';
import { sharedRateLimitStore } from '../../server/fronts/rate-limit.js';
import { ServiceState } from '../../server/lifecycle.js';
import { createLogger } from '../../server/logger.js';
import type { PoolStats } from '../../server/pool.js';
import { createServiceApp } from '../../server/service.js';

const POOL: PoolStats = { threads: 2, running: 0, queued: 0, maxQueue: 8, completed: 0, recycled: 0, inFlight: 0, closing: false };

describe('the channel between the primary and the fronts', () => {
  it('carries a SolverError with its code and location, and any other error as an Error with its message', () => {
    const back = fromWire(structuredClone(toWire(new SolverError('deal_out_of_range', 'too far', { path: 'deal' }))));
    expect(back).toBeInstanceOf(SolverError);
    expect(back).toMatchObject({ code: 'deal_out_of_range', status: 400, message: 'too far', location: { path: 'deal' } });
    const plain = fromWire(toWire(new TypeError('boom')));
    expect(plain).not.toBeInstanceOf(SolverError);
    expect(plain.message).toBe('boom');
  });

  it('answers each call by its id once, and fails what is left unanswered', async () => {
    const calls = new PendingCalls();
    const a = calls.start(10_000, () => new Error('late'));
    const b = calls.start(10_000, () => new Error('late'));
    const c = calls.start(20, () => new SolverError('overloaded', 'no answer'));
    calls.settle({ channel: 'fronts', t: 'reply', id: b.id, ok: true, value: 'B' });
    calls.settle({ channel: 'fronts', t: 'reply', id: b.id, ok: true, value: 'again' });
    expect(await b.answer).toBe('B');
    await expect(c.answer).rejects.toMatchObject({ code: 'overloaded' });
    calls.failAll(() => new Error('gone'));
    await expect(a.answer).rejects.toThrow('gone');
  });
});

describe("the primary's rate-limit store", () => {
  it('counts every front\'s calls for a key in one window, and refuses what is not a store call', () => {
    const run = sharedRateLimitStore(60_000);
    const first = run(['increment', 'alice']) as { totalHits: number; resetTime: Date };
    expect(first.totalHits).toBe(1);
    expect(first.resetTime.getTime()).toBeGreaterThan(Date.now());
    expect((run(['increment', 'alice']) as { totalHits: number }).totalHits).toBe(2);
    run(['decrement', 'alice']);
    expect((run(['increment', 'alice']) as { totalHits: number }).totalHits).toBe(2);
    expect((run(['increment', 'bob']) as { totalHits: number }).totalHits).toBe(1);
    run(['resetKey', 'alice']);
    expect((run(['increment', 'alice']) as { totalHits: number }).totalHits).toBe(1);
    expect(() => run(['resetAll', 'alice'])).toThrow(/not a rate-limit store call/);
  });
});

describe('/readyz with several fronts', () => {
  const app = (state: ServiceState) =>
    createServiceApp({
      solve: async () => {
        throw new Error('no solve here');
      },
      logger: createLogger({ level: 'silent' }),
      state,
      poolStats: async () => POOL,
      front: { index: 1, count: 2 },
      app: { webRoot: null },
    });

  it('is ready only when this front and every front the primary counts are, and says stopping when the service is', async () => {
    const state = Object.assign(new ServiceState(), { ready: true });
    let view = { fronts: 2, ready: 1, stopping: false };
    state.fronts = () => view;
    const ask = async () => {
      const res = await app(state).request('/readyz');
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect(await ask()).toMatchObject({ status: 503, body: { status: 'starting', fronts: { running: 2, ready: 1 }, front: { index: 1, count: 2 } } });
    view = { fronts: 2, ready: 2, stopping: false };
    expect(await ask()).toMatchObject({ status: 200, body: { status: 'ready', pool: POOL } });
    view = { fronts: 2, ready: 2, stopping: true };
    expect(await ask()).toMatchObject({ status: 503, body: { status: 'stopping' } });
    view = { fronts: 0, ready: 0, stopping: false };
    expect((await ask()).status).toBe(503);
  });

  it('a front reports each change of ready and stopping (ServiceState.onChange), once per change', () => {
    const state = new ServiceState();
    const seen: string[] = [];
    state.onChange(() => seen.push(`${state.ready}/${state.stopping}`));
    state.ready = true;
    state.ready = true;
    state.stopping = true;
    state.ready = false;
    expect(seen).toEqual(['true/false', 'true/true', 'false/true']);
  });
});

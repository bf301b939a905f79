/**
 * What the pool's protocol tests share (tests/integration/pool-groups.test.ts,
 * pool-shared.test.ts): pools of the fixture worker (tests/fixtures/pool-worker.ts),
 * closed after each test, its fake deals, and readers of the tags it puts on
 * every outcome; and, for the batch tests' fake pools, an outcome as
 * `solveManyPacked` answers it (`packedAnswer`).
 */
import { join } from 'node:path';
import { afterEach, vi } from 'vitest';
import { SolverError } from '../../client-sdk/core/errors.js';
import type { Deal } from '../../client-sdk/core/rules.js';
import type { SolveLimits, SolveOutcome } from '../../client-sdk/core/solve-types.js';
import { packMoves } from '../../client-sdk/core/moves.js';
import { createPool, type PackedOutcome, type PoolOptions, type SolverPool } from '../../server/pool.js';
import { ROOT } from './paths.js';
import { until } from './wait.js';

/** The fixture worker file. */
export const FIXTURE_WORKER = join(ROOT, 'tests/fixtures/pool-worker.ts');
/** Limits the fixture ignores (its deals end as their mode says). */
export const FIXTURE_LIMITS: SolveLimits = { maxStates: 1000, timeoutMs: 60_000 };
/** A pool log that drops everything (tests that provoke warnings on purpose). */
export const quietLog = { warn: () => {}, error: () => {} };

/**
 * Registers an `afterEach` that restores mocks and closes every pool in the
 * returned `pools` (a test pushes the pools it creates itself there), and
 * gives `fixturePool(options)`: a pool of the fixture worker on one thread
 * with a queue of 16 unless `options` say otherwise, tracked likewise.
 */
export function useFixturePools(): { pools: SolverPool[]; fixturePool: (options?: PoolOptions) => SolverPool } {
  const pools: SolverPool[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    await Promise.all(pools.splice(0).map((p) => p.close()));
  });
  const fixturePool = (options: PoolOptions = {}): SolverPool => {
    const pool = createPool({ filename: FIXTURE_WORKER, threads: 1, maxQueue: 16, ...options });
    pools.push(pool);
    return pool;
  };
  return { pools, fixturePool };
}

/** What a fixture deal does on a worker (tests/fixtures/pool-worker.ts). */
export type FixtureMode = 'wait' | 'stubborn' | 'solve' | 'exit' | 'oom' | 'throw';

/**
 * A fake deal for the fixture (a FreeCell-family build: no helper pass), with
 * a flag it sets when a worker begins it: `whenStarted()` resolves then,
 * `began()` says whether it has.
 */
export function fixtureDeal(mode: FixtureMode = 'wait', stubbornMs?: number) {
  const started = new Int32Array(new SharedArrayBuffer(4));
  const deal = { mode, stubbornMs, started, rules: { build: 'alternate_color', wrap: false } } as unknown as Deal;
  const whenStarted = () => until('the fixture deal started', () => Atomics.load(started, 0) !== 0, { timeoutMs: 30_000 });
  return { deal, whenStarted, began: () => Atomics.load(started, 0) === 1 };
}

/** The `threadId` the fixture tagged an outcome with (the worker that answered it). */
export const threadOf = (o: SolveOutcome | SolverError) => (o as SolveOutcome & { threadId: number }).threadId;
/** What a test compares of an answer: a failure's code, or an outcome's verdict and reason. */
export const verdictOf = (o: SolveOutcome | SolverError | unknown) =>
  o instanceof SolverError ? o.code : [(o as SolveOutcome).verdict, (o as SolveOutcome).reason ?? null];

/** `outcome` as the pool's `solveManyPacked` answers it: its moves as bytes (`packMoves`), `outcome.moves` empty. */
export function packedAnswer(outcome: SolveOutcome): PackedOutcome {
  return { outcome: { ...outcome, moves: [] }, moves: packMoves(outcome.moves) };
}

/**
 * Progress reports of a running solve (client-sdk/core/engine/poll.ts
 * `ProgressOptions`): called from the engine's polls with growing counters,
 * throttled to `intervalMs`, never after `solve` returned, and a throw from
 * the callback ends the solve without breaking the engine.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { generateDeal } from '../../client-sdk/core/deals/index.js';
import { Engine, type SolveProgress } from '../../client-sdk/core/engine/index.js';
import { findPreset, type Deal } from '../../client-sdk/core/rules.js';

/** A PySolFC or Microsoft deal with its game's rules. */
function dealOf(game: string, numbering: 'ms' | 'pysolfc', n: number): Deal {
  return { rules: { ...findPreset(game)!.rules }, layout: generateDeal(game, numbering, n).layout };
}

// PySolFC Streets and Alleys 77: unknown even at 58 M positions, so a budget
// of 300,000 positions ends by max_states after many polls (512 positions each).
const HARD = dealOf('streets_and_alleys', 'pysolfc', 77);
const LIMITS = { maxStates: 300_000, timeoutMs: 60_000 };

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.create();
});

describe('progress of a long solve', () => {
  it('is called during the search with growing positions, memory and time, and never after solve returned', () => {
    const reports: SolveProgress[] = [];
    const outcome = engine.solve(HARD, { limits: LIMITS, progress: { onProgress: (p) => reports.push(p), intervalMs: 0 } });
    expect(outcome).toMatchObject({ verdict: 'unknown', reason: 'max_states' });
    // at every poll with interval 0: about one report per 512 positions taken
    expect(reports.length).toBeGreaterThan(50);
    for (let i = 1; i < reports.length; i++) {
      expect(reports[i].statesStored).toBeGreaterThanOrEqual(reports[i - 1].statesStored);
      expect(reports[i].statesExpanded).toBeGreaterThanOrEqual(reports[i - 1].statesExpanded);
      expect(reports[i].memoryBytes).toBeGreaterThanOrEqual(reports[i - 1].memoryBytes);
      expect(reports[i].elapsedMs).toBeGreaterThanOrEqual(reports[i - 1].elapsedMs);
    }
    const first = reports[0];
    const last = reports.at(-1)!;
    expect(last.statesStored).toBeGreaterThan(first.statesStored);
    expect(last.statesStored).toBeGreaterThan(LIMITS.maxStates / 2);
    // read during the search: never beyond what the solve ends with
    expect(last.statesStored).toBeLessThanOrEqual(outcome.stats.statesStored);
    expect(last.statesExpanded).toBeLessThanOrEqual(outcome.stats.statesExpanded);
    expect(last.memoryBytes).toBeGreaterThan(0);
    expect(last.memoryBytes).toBeLessThanOrEqual(outcome.stats.memoryBytes);
    expect(last.elapsedMs).toBeLessThanOrEqual(outcome.stats.elapsedMs);

    // after the solve: a second solve polls the host too, and must not report
    const count = reports.length;
    expect(engine.solve(HARD, { limits: LIMITS }).verdict).toBe('unknown');
    expect(reports.length).toBe(count);
  });

  it('a solved deal reports during its search, and its shortening (which polls the host too) reports nothing', () => {
    // Streets and Alleys 24: solvable, some 56,000 positions expanded (about 110 polls)
    const deal = dealOf('streets_and_alleys', 'pysolfc', 24);
    let running = false;
    const calls: boolean[] = [];
    running = true;
    const outcome = engine.solve(deal, { limits: LIMITS, progress: { onProgress: () => calls.push(running), intervalMs: 0 } });
    running = false;
    expect(outcome.verdict).toBe('solved');
    expect(calls.length).toBeGreaterThan(10);
    const short = engine.shorten(deal, outcome, { optimize: { budgetMs: 300 } });
    expect(short.verdict).toBe('solved');
    expect(short.optimize).toBeDefined();
    expect(calls.every((inside) => inside)).toBe(true);
  });

  it('is throttled to intervalMs', () => {
    let times: number[] = [];
    // Bound by a 400 ms deadline, not by positions: 300,000 positions take
    // under 0.3 s of CPU here and keep getting quicker, and a solve shorter
    // than two intervals has fewer than two reports. Deal 77 runs for minutes;
    // the 256 MiB cap (some 6 s of search today) only keeps a much faster
    // engine from growing its memory for the rest of this file.
    const outcome = engine.solve(HARD, { limits: { maxStates: 50_000_000, timeoutMs: 400 }, memoryLimitBytes: 256 * 2 ** 20, progress: {
      // the report's own clock reading: a clock read in the callback would add
      // the delay (a busy machine may preempt the thread) between the engine's
      // reading and the call to one gap and take it from the next
      onProgress: (p) => times.push(p.elapsedMs),
      intervalMs: 40,
    } });
    expect(outcome.verdict).toBe('unknown');
    // the first report comes intervalMs after the start, each next one at least intervalMs later
    expect(times.length).toBeGreaterThanOrEqual(2);
    expect(times[0]).toBeGreaterThanOrEqual(40);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(40);
    expect(times.length).toBeLessThanOrEqual(Math.floor(outcome.stats.elapsedMs / 40));
    // a solve shorter than the interval reports nothing
    times = [];
    expect(engine.solve(HARD, { limits: { ...LIMITS, maxStates: 20_000 }, progress: { onProgress: () => times.push(0), intervalMs: 600_000 } }).verdict).toBe('unknown');
    expect(times).toEqual([]);
  });

  it('a throw from onProgress ends the solve with that error, and the engine solves on', () => {
    const boom = new Error('progress sink failed');
    expect(() => engine.solve(HARD, { limits: LIMITS, progress: { onProgress: () => { throw boom; }, intervalMs: 0 } })).toThrow(boom);
    const again = engine.solve(HARD, { limits: { ...LIMITS, maxStates: 20_000 } });
    expect(again).toMatchObject({ verdict: 'unknown', reason: 'max_states' });
    expect(again.stats.statesStored).toBe(20_000);
    expect(engine.solve(dealOf('freecell', 'ms', 1), { limits: LIMITS }).verdict).toBe('solved');
  });

  it('refuses a negative or NaN interval', () => {
    expect(() => engine.solve(HARD, { limits: LIMITS, progress: { onProgress: () => {}, intervalMs: -1 } })).toThrow(RangeError);
    expect(() => engine.solve(HARD, { limits: LIMITS, progress: { onProgress: () => {}, intervalMs: Number.NaN } })).toThrow(RangeError);
  });
});

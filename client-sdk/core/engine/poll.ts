/**
 * What the engine's `pollStop` host function answers: every few hundred
 * positions the search (or a beam) asks its host whether to stop; the host
 * looks at the cancel flag, the deadline and (the guided pass) the cap on
 * expanded positions, and between two polls at least an interval apart
 * reports progress.
 */
import type { UnknownReason } from '../solve-types.js';
import type { EngineExports } from './abi.js';

/**
 * One report of a running solve (see `ProgressOptions`): the engine's
 * counters read between two of its polls.
 */
export interface SolveProgress {
  /** Positions in the state table so far. */
  statesStored: number;
  /** Positions expanded so far (both phases). */
  statesExpanded: number;
  /** Engine linear memory the search holds, bytes (the larger of its two phases so far). */
  memoryBytes: number;
  /** Wall-clock time since the solve started, ms. */
  elapsedMs: number;
}

/**
 * Progress reports of a long solve. The engine calls its host's `pollStop`
 * every 512 positions taken from its open lists (assembly/search-state.ts
 * `POLL_INTERVAL`; a table's rehash polls too); at a poll at least
 * `intervalMs` after the last report (or the start) the glue reads the
 * engine's counters and calls `onProgress`, synchronously, inside the
 * search: keep it short. It is never called after `solve` has returned, nor
 * during a shortening. A throw from `onProgress` ends the search, and
 * `solve` throws it.
 */
export interface ProgressOptions {
  onProgress: (progress: SolveProgress) => void;
  /** Least time between two reports, ms of wall clock; default 1000. */
  intervalMs?: number;
}

/** Least time between two progress reports when `ProgressOptions.intervalMs` is not given, ms. */
export const DEFAULT_PROGRESS_INTERVAL_MS = 1000;

/** The wall clock, ms (`performance.now()`). */
export const wallClock = (): number => performance.now();

/** CPU time (user + system) of this process so far, ms; the wall clock where there is no `process` (browsers). */
export function processCpuMs(): number {
  if (typeof process === 'undefined' || typeof process.cpuUsage !== 'function') return performance.now();
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * The state `pollStop` answers from for one engine instance; the running
 * pass sets it before it calls into the engine and clears it after. Not
 * part of the SDK's API.
 * @internal
 */
export class SearchPoll {
  /** Cancel flag of the running pass (nonzero at index 0: stop). */
  stop: Int32Array | undefined;
  /** When the running pass must stop, on `clock`. */
  deadline = 0;
  /** The clock `deadline` is read on: wall clock, or (a shortening with `cpuClock`) this process's CPU time. */
  clock: () => number = wallClock;
  /** The running pass's progress reports (undefined when none were asked for). */
  progress: { onProgress: (p: SolveProgress) => void; intervalMs: number; started: number; next: number } | undefined;
  /** Most positions the running beam of the guided pass may expand (0: no cap). */
  beamCap = 0;
  /** The guided pass is running (progress reports read the beams' counters). */
  beamRunning = false;
  /** Positions the guided pass's earlier beams expanded. */
  beamBefore = 0;

  constructor(
    private readonly exports: EngineExports,
    private readonly reasonCode: Record<UnknownReason, number>,
  ) {}

  /**
   * Starts progress reports for a pass that started at `started`
   * (performance.now()), or none when `progress` is undefined.
   */
  startProgress(progress: ProgressOptions | undefined, started: number, intervalMs: number): void {
    this.progress = progress && { onProgress: progress.onProgress, intervalMs, started, next: started + intervalMs };
  }

  /** The answer of the engine's `pollStop`: 0 to go on, else the engine's reason code to stop with. */
  check(): number {
    if (this.stop && Atomics.load(this.stop, 0) !== 0) return this.reasonCode.cancelled;
    const now = this.clock();
    if (this.progress !== undefined && now >= this.progress.next) this.report(now);
    if (now > this.deadline) return this.reasonCode.timeout;
    if (this.beamCap > 0 && Number(this.exports.beamExpanded.value) >>> 0 >= this.beamCap) return this.reasonCode.max_states;
    return 0;
  }

  /** Calls the running pass's `onProgress` with the engine's counters now (`now`: performance.now()). */
  private report(now: number): void {
    const p = this.progress!;
    p.next = now + p.intervalMs;
    const e = this.exports;
    // during the guided pass the beams' own counters: the positions they expanded, their memory
    const beam = this.beamRunning;
    const beamExpanded = beam ? this.beamBefore + (Number(e.beamExpanded.value) >>> 0) : 0;
    p.onProgress({
      statesStored: beam ? beamExpanded : e.statesStored() >>> 0,
      statesExpanded: beam ? beamExpanded : e.expandedCount() >>> 0,
      memoryBytes: beam ? e.shortenMemoryBytes() : e.memoryBytesUsed(),
      elapsedMs: Math.round((now - p.started) * 1000) / 1000,
    });
  }
}

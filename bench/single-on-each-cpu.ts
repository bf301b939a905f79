/**
 * The single engine's side of the scaling bench (pool-scaling.ts): a
 * chunk of deals solved on the main thread in equal parts on each vCPU in
 * turn, the thread pinned with `taskset` (Linux, util-linux). On this kind of VM one vCPU can run 5-30 % slower than the
 * other for minutes (a neighbour on its host core); a single engine left to
 * the scheduler sat on either and moved the scaling by as much, while the
 * pool runs on both. Pinned in turn, the baseline is one engine on an
 * average vCPU (docs/benchmarks.md, "Pool scaling"). Only the main
 * thread is pinned (its thread id is the process id): the pool's workers
 * and V8's threads, started before the first chunk, keep their affinity (a
 * thread started while the main thread is pinned would inherit its one
 * vCPU; the pool is idle then). Bench code; not a test.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The vCPUs this process may run on (`Cpus_allowed_list` of /proc/self/status, e.g. "0-1" or "2,5-6"), by number; [] where it cannot be read. */
function allowedCpus(): number[] {
  try {
    const list = /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '';
    return list.split(',').flatMap((range) => {
      const [from, to = from] = range.split('-').map(Number);
      return Number.isInteger(from) && Number.isInteger(to) ? Array.from({ length: to - from + 1 }, (_, i) => from + i) : [];
    });
  } catch {
    return [];
  }
}

/** Pins this process's main thread to `cpus` (taskset's list form: "0", "0-1"); false where taskset fails or is absent. */
function pinMainThread(cpus: string): boolean {
  try {
    execFileSync('taskset', ['-p', '-c', cpus, String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Runs the single engine's side of a chunk; see `singleEngineSide`. */
export interface SingleEngineSide {
  /** True when the main thread is pinned in turn (asked for, more than one vCPU, and taskset works). */
  readonly pinned: boolean;
  /**
   * Calls `solveAt(i)` for i = 0..count-1 on the main thread, in equal parts
   * on each allowed vCPU in turn from the `first`-th (mod their count) when `pinned`,
   * and returns the wall ms of the solving alone (pinning untimed).
   */
  run(count: number, solveAt: (i: number) => void, first: number): number;
  /** Each vCPU's rate so far, e.g. "0: 5500, 1: 4100 deals/s" ('' unpinned). */
  rates(): string;
}

/**
 * The single engine's side, pinned in turn when `pin` (and possible), else
 * left to the scheduler.
 */
export function singleEngineSide(pin: boolean): SingleEngineSide {
  const ids = allowedCpus();
  const cpus = ids.length;
  const all = ids.join(',');
  const pinned = pin && cpus > 1 && pinMainThread(all);
  const byCpu = Array.from({ length: cpus }, () => ({ wallMs: 0, deals: 0 }));
  return {
    pinned,
    run(count, solveAt, first) {
      if (!pinned) {
        const t0 = performance.now();
        for (let i = 0; i < count; i++) solveAt(i);
        return performance.now() - t0;
      }
      let wallMs = 0;
      for (let part = 0; part < cpus; part++) {
        const cpu = (first + part) % cpus;
        const from = Math.floor((part * count) / cpus);
        const to = Math.floor(((part + 1) * count) / cpus);
        pinMainThread(String(ids[cpu]));
        const t0 = performance.now();
        for (let i = from; i < to; i++) solveAt(i);
        const ms = performance.now() - t0;
        wallMs += ms;
        byCpu[cpu].wallMs += ms;
        byCpu[cpu].deals += to - from;
      }
      pinMainThread(all);
      return wallMs;
    },
    rates: () => (pinned ? `${byCpu.map((c, i) => `${ids[i]}: ${(c.deals / (c.wallMs / 1000)).toFixed(0)}`).join(', ')} deals/s` : ''),
  };
}

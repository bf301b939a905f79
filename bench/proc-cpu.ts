/**
 * CPU time of another process, read from Linux's /proc, for the benchmarks
 * that run the server as a child process (bench/http.ts, bench/batch.ts, bench/census.ts).
 *
 * - `processCpuMs`: every thread of the process, those that ended included
 *   (/proc/<pid>/stat utime + stime, in clock ticks of 10 ms: USER_HZ 100);
 * - `mainThreadCpuMs`: its main thread only, the one that runs the event
 *   loop (/proc/<pid>/task/<pid>/schedstat, time on a CPU in nanoseconds);
 * - `threadTimes`: each of its threads' time on a CPU and time runnable
 *   but waiting for one (/proc/<pid>/task/<tid>/schedstat, nanoseconds);
 * - `threadCpuMs`: each of its threads' user + system CPU time
 *   (/proc/<pid>/task/<tid>/stat, 10 ms ticks), what bench/solver.ts and
 *   bench/pool-scaling.ts read of their own process;
 * - `splitThreads`: a run's threads as the benches report them (the main
 *   thread, the solver workers, the rest);
 * - `rssBytes`: its resident memory (/proc/<pid>/status VmRSS).
 */
import { readdirSync, readFileSync } from 'node:fs';

/** CPU time of process `pid`, all its threads, milliseconds (10 ms resolution). */
export function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU time of process `pid`'s main thread (its event loop), milliseconds. */
export function mainThreadCpuMs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
}

/** Both, now: subtract two readings to get a run's. */
export function cpuReading(pid: number): { main: number; all: number } {
  return { main: mainThreadCpuMs(pid), all: processCpuMs(pid) };
}

/** Resident memory of process `pid` (worker threads included), bytes; null once it is gone. */
export function rssBytes(pid: number): number | null {
  try {
    const kib = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib === undefined ? null : Number(kib) * 1024;
  } catch {
    return null;
  }
}

/** One thread's times so far, milliseconds: on a CPU, and runnable but waiting for a CPU (preempted or not yet scheduled). */
export interface ThreadTimes {
  runMs: number;
  waitMs: number;
}

/** `ThreadTimes` of every live thread of process `pid`, by thread id (the main thread's id is `pid`); threads that end between the listing and the read are left out. */
export function threadTimes(pid: number): Map<number, ThreadTimes> {
  const times = new Map<number, ThreadTimes>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
      times.set(Number(tid), { runMs: run / 1e6, waitMs: wait / 1e6 });
    } catch {
      // the thread ended meanwhile
    }
  }
  return times;
}

/**
 * CPU ms so far (user + system, 10 ms ticks) of each live thread of process
 * `pid` (default this one), by thread id as a string; empty where /proc
 * cannot be read (not Linux).
 */
export function threadCpuMs(pid: number | 'self' = 'self'): Map<string, number> {
  const out = new Map<string, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(tid, (Number(fields[11]) + Number(fields[12])) * 10);
    }
  } catch {
    out.clear();
  }
  return out;
}

/**
 * A run's threads split as the benches report them: the main thread
 * (`mainTid`), the `workers` threads that used the most (the solver
 * workers), and every other thread (V8's and libuv's helpers).
 * @param spent each thread's use over the run: its id, and `used`, the amount ranked by (e.g. CPU ms).
 */
export function splitThreads<T extends { tid: string | number; used: number }>(
  spent: readonly T[],
  mainTid: string | number,
  workers: number,
): { main: T | undefined; workers: T[]; others: T[] } {
  const rest = spent.filter((t) => t.tid !== mainTid).sort((a, b) => b.used - a.used);
  return { main: spent.find((t) => t.tid === mainTid), workers: rest.slice(0, workers), others: rest.slice(workers) };
}

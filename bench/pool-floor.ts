/**
 * The floor of a pool task on this machine: Piscina alone (no SolverPool,
 * no engine) with a worker that spins `--spin-us` µs of CPU per task (an
 * easy MS FreeCell deal's engine time) and answers a small object, `threads`
 * workers, one task in flight each (or `--in-flight`). Prints the CPU a task
 * of the whole process beyond the spin, and per thread (/proc), so the
 * pool's own cost can be told from the hand-off between threads:
 *
 *   node --import tsx bench/pool-floor.ts --tasks 20000 --spin-us 450
 *   node --import tsx bench/pool-floor.ts --tasks 20000 --spin-us 450 --solver-pool
 *
 * With `--solver-pool` the same worker answers SolverPool's tasks (a solved
 * outcome with 90 packed moves), so the difference to Piscina alone is what
 * server/pool.ts and the protocol add.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { Piscina } from 'piscina';
import { positiveInt } from '../server/cli/usage.js';
import { resolveDeal } from '../client-sdk/api/request.js';
import { createPool } from '../server/pool.js';

const opts = new Command()
  .option('--tasks <n>', 'tasks', positiveInt, 20000)
  .option('--spin-us <n>', 'CPU µs a task in the worker', (v) => Number(v), 450)
  .option('--threads <n>', 'workers', positiveInt, 2)
  .option('--in-flight <n>', 'tasks in flight (default: 2 x threads)', positiveInt)
  .option('--atomics <mode>', "Piscina's atomics option: sync, async or disabled", 'sync')
  .option('--solver-pool', 'through SolverPool (server/pool.ts: pool.solve of a plain MS deal) instead of Piscina alone')
  .parse()
  .opts<{ tasks: number; spinUs: number; threads: number; inFlight?: number; atomics: 'sync' | 'async' | 'disabled'; solverPool?: boolean }>();

const worker = `
  module.exports = function (task) {
    // a SolverPool task: its spin in limits.maxStates, the answer of worker-protocol.ts
    const solver = task.limits !== undefined;
    const spinUs = solver ? task.limits.maxStates : task.spinUs;
    const end = process.hrtime.bigint() + BigInt(Math.round(spinUs * 1000));
    let x = 0;
    while (process.hrtime.bigint() < end) x++;
    if (!solver) return { ok: true, n: task.n, x };
    const stats = { statesExpanded: x, statesStored: 1, elapsedMs: spinUs / 1000, memoryBytes: 0 };
    return { ok: true, outcome: { verdict: 'solved', moves: [], stats }, moves: new Uint8Array(8 * 90) };
  };
`;
const dir = mkdtempSync(join(tmpdir(), 'pool-floor-'));
const file = join(dir, 'spin-worker.cjs');
writeFileSync(file, worker);

/** CPU ms of each thread of this process (Linux /proc, 10 ms ticks). */
function threadCpuMs(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(tid, (Number(fields[11]) + Number(fields[12])) * 10);
  }
  return out;
}

const deal = resolveDeal({ game: 'freecell', numbering: 'ms', deal: 1 });
const piscina = opts.solverPool ? undefined : new Piscina({ filename: file, minThreads: opts.threads, maxThreads: opts.threads, atomics: opts.atomics, recordTiming: false });
const solver = opts.solverPool ? createPool({ filename: file, threads: opts.threads }) : undefined;
const one = (n: number, spinUs: number) =>
  solver ? solver.solve(deal, { maxStates: spinUs, timeoutMs: 30_000 }) : piscina!.run({ n, spinUs });
await Promise.all(Array.from({ length: opts.threads * 4 }, (_, n) => one(n, 1)));
const before = threadCpuMs();
const cpu0 = process.cpuUsage();
let next = 0;
await Promise.all(
  Array.from({ length: opts.inFlight ?? 2 * opts.threads }, async () => {
    while (next < opts.tasks) await one(next++, opts.spinUs);
  }),
);
const cpu = process.cpuUsage(cpu0);
const after = threadCpuMs();
const totalUs = (cpu.user + cpu.system) / opts.tasks;
console.log(`${opts.tasks} tasks of ${opts.spinUs} µs spin, ${opts.threads} workers, ${solver ? 'SolverPool' : `Piscina, atomics ${opts.atomics}`}: ${totalUs.toFixed(1)} µs CPU a task, ${(totalUs - opts.spinUs).toFixed(1)} beyond the spin (system ${(cpu.system / opts.tasks).toFixed(1)})`);
const main = String(process.pid);
for (const [tid, ms] of after) {
  const used = ms - (before.get(tid) ?? 0);
  if (used >= 20) console.log(`  thread ${tid}${tid === main ? ' (main)' : ''}: ${((used * 1000) / opts.tasks).toFixed(1)} µs a task`);
}
await (solver ? solver.close() : piscina!.close());
rmSync(dir, { recursive: true, force: true });

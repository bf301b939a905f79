/**
 * Profiles the pool on MS FreeCell deals, main thread and workers:
 *
 *   node --cpu-prof --cpu-prof-dir=DIR --import tsx bench/pool-profile.ts --to 8000 --per-task 1 --out DIR
 *
 * The workers run bench/profile-worker.ts (the real worker under an
 * inspector profile) and write DIR/worker-<n>.cpuprofile; `--cpu-prof`
 * writes the main thread's. `node bench/cpuprofile-top.ts FILE` prints the
 * self time by function. Also prints the CPU ms a deal of the whole process.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { loadEngineModule } from '../client-sdk/core/engine.js';
import { resolveDeal } from '../client-sdk/api/request.js';
import type { Deal } from '../client-sdk/core/rules.js';
import { createPool } from '../server/pool.js';
import { positiveInt } from '../server/cli/usage.js';

const opts = new Command()
  .option('--to <n>', 'last MS deal', positiveInt, 8000)
  .option('--per-task <n>', 'deals a task', positiveInt, 1)
  .option('--threads <n>', 'workers', positiveInt, 2)
  .option('--out <dir>', 'where the worker profiles go', 'prof')
  .option('--plain', 'the real worker, no profiles: only the CPU figures')
  .option('--worker <file>', 'with --plain: this worker file (e.g. dist/server/worker.js, compiled, as production runs it)')
  .parse()
  .opts<{ to: number; perTask: number; threads: number; out: string; plain?: boolean; worker?: string }>();

/** CPU ms of each thread of this process so far (Linux: /proc/self/task/<tid>/stat, 10 ms ticks), by thread name. */
function threadCpuMs(): { tid: string; name: string; ms: number }[] {
  const tick = 10; // USER_HZ = 100 on Linux
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { tid, name, ms: (Number(fields[11]) + Number(fields[12])) * tick };
  });
}

const out = resolve(opts.out);
mkdirSync(out, { recursive: true });
const deals: Deal[] = [];
for (let n = 1; n <= opts.to; n++) deals.push(resolveDeal({ game: 'freecell', numbering: 'ms', deal: n }));
const limits = { maxStates: 5_000_000, timeoutMs: 30_000 };
const pool = createPool({
  module: await loadEngineModule(),
  threads: opts.threads,
  ...(opts.plain ? (opts.worker ? { filename: resolve(opts.worker) } : {}) : { filename: fileURLToPath(new URL('./profile-worker.ts', import.meta.url)) }),
});
await Promise.all(Array.from({ length: 2 * opts.threads }, () => pool.solve(deals[0], limits)));
const threads0 = new Map(threadCpuMs().map((t) => [t.tid, t.ms]));
let next = 0;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await Promise.all(
  Array.from({ length: 2 * opts.threads }, async () => {
    while (next < deals.length) {
      const from = next;
      next = Math.min(deals.length, next + opts.perTask);
      if (opts.perTask === 1) await pool.solve(deals[from], limits);
      else await pool.solveMany(deals.slice(from, next), limits);
    }
  }),
);
const cpu = process.cpuUsage(cpu0);
const wall = performance.now() - t0;
console.log(`${deals.length} deals, ${opts.perTask} a task: ${((cpu.user + cpu.system) / 1000 / deals.length).toFixed(3)} CPU ms a deal, ${(deals.length / (wall / 1000)).toFixed(0)} deals/s`);
for (const t of threadCpuMs()) {
  const ms = t.ms - (threads0.get(t.tid) ?? 0);
  if (ms >= 20) console.log(`  thread ${t.tid} ${t.name}: ${ms} CPU ms = ${(ms / deals.length).toFixed(3)} a deal`);
}
if (!opts.plain) await Promise.all(Array.from({ length: opts.threads }, (_, i) => pool.solve({ ...deals[0], profileOut: join(out, `worker-${i}.cpuprofile`) } as Deal, limits)));
await pool.close();

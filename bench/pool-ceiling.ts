/**
 * The ceiling of any pool on this machine: two bare worker threads, each
 * with an engine and every deal decoded up front, claiming deals from one
 * cursor in shared memory (`Atomics.add`), with the main thread idle while
 * they run: no Piscina, no task messages, no answers read. Measured as
 * bench/pool-scaling.ts measures the pool (chunks, single engine and the
 * two workers alternating chunk by chunk), so the two benches' scalings
 * compare: what pool-scaling's pool gets below this figure is the pool's
 * own cost (docs/engine.md, "Pool scaling", session 17). Prints numbers;
 * not a test. Runs the compiled code (`npx tsc -p tsconfig.build.json` first).
 * The single engine's side is pinned to each vCPU in turn, as in
 * pool-scaling.ts (bench/single-on-each-cpu.ts; `--no-pin` to leave it).
 *
 *   npx tsx bench/pool-ceiling.ts [--to 32000] [--chunk 8000] [--threads 2]
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { Command } from 'commander';
import { Engine, loadEngineModule } from '../client-sdk/core/engine.js';
import { resolveDeal } from '../client-sdk/api/request.js';
import { DEFAULT_LIMITS_CONFIG } from '../server/limits.js';
import { exitOnUsageError, positiveInt } from '../server/cli/usage.js';
import { packDeals } from '../server/worker-protocol.js';
import { singleEngineSide } from './single-on-each-cpu.js';

const opts = new Command()
  .name('pool-ceiling')
  .description('one engine against bare worker threads on a shared cursor, chunk by chunk, alternating')
  .option('--to <n>', 'last MS deal (from 1)', positiveInt, 32000)
  .option('--chunk <n>', 'deals a chunk', positiveInt, 8000)
  .option('--threads <n>', 'worker threads', positiveInt, 2)
  .option('--warmup <n>', 'deals after the set solved by both sides first, untimed', positiveInt, 4000)
  .option('--no-pin', 'leave the single engine\'s thread to the scheduler (default: each chunk\'s single side in equal parts on each vCPU)')
  .exitOverride(exitOnUsageError)
  .parse()
  .opts<{ to: number; chunk: number; threads: number; warmup: number; pin: boolean }>();
const single = singleEngineSide(opts.pin);

const total = opts.to + opts.warmup;
const deals = Array.from({ length: total }, (_, i) => resolveDeal({ game: 'freecell', numbering: 'ms', deal: i + 1 }));
const packed = packDeals(deals, true);
if (packed === undefined) throw new Error('the deals do not pack');
const shared = new Uint8Array(new SharedArrayBuffer(packed.bytes.length));
shared.set(packed.bytes);
const module = await loadEngineModule();
const engine = Engine.instantiate(module);
const limits = { maxStates: DEFAULT_LIMITS_CONFIG.defaultMaxStates, timeoutMs: DEFAULT_LIMITS_CONFIG.defaultTimeoutMs };
const cursor = new Int32Array(new SharedArrayBuffer(4));

// the worker: the compiled engine and protocol (dist/), every deal decoded before the first chunk
const dist = (file: string) => pathToFileURL(resolve('dist', file)).href;
const source = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { Engine } = await import(${JSON.stringify(dist('client-sdk/core/engine.js'))});
  const { unpackDeals } = await import(${JSON.stringify(dist('server/worker-protocol.js'))});
  const engine = Engine.instantiate(workerData.module);
  const deals = unpackDeals({ ...workerData.packed, bytes: new Uint8Array(workerData.bytes) });
  parentPort.on('message', (end) => {
    for (let i = Atomics.add(workerData.cursor, 0, 1); i < end; i = Atomics.add(workerData.cursor, 0, 1)) engine.solve(deals[i], workerData.limits);
    parentPort.postMessage('done');
  });
  parentPort.postMessage('ready');
})();`;
const workers = Array.from(
  { length: opts.threads },
  () => new Worker(source, { eval: true, workerData: { module, packed: { rules: packed.rules, count: packed.count, many: true }, bytes: shared.buffer, cursor, limits } }),
);
const next = (w: Worker) => new Promise((done) => w.once('message', done));
await Promise.all(workers.map(next));
/** Deals `from` to `end` - 1 on the workers, claimed one at a time. */
const onWorkers = (from: number, end: number) => {
  Atomics.store(cursor, 0, from);
  return Promise.all(workers.map((w) => {
    const done = next(w);
    w.postMessage(end);
    return done;
  }));
};

try {
  for (let i = opts.to; i < total; i++) engine.solve(deals[i], limits);
  await onWorkers(opts.to, total);
  let singleWall = 0;
  let workersWall = 0;
  let singleCpu = 0;
  let workersCpu = 0;
  for (let from = 0, k = 0; from < opts.to; from += opts.chunk, k++) {
    const end = Math.min(opts.to, from + opts.chunk);
    const wall: Record<string, number> = {};
    for (const side of k % 2 === 0 ? ['single', 'workers'] : ['workers', 'single']) {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      if (side === 'single') wall[side] = single.run(end - from, (i) => engine.solve(deals[from + i], limits), k);
      else {
        await onWorkers(from, end);
        wall[side] = performance.now() - t0;
      }
      const cpu = process.cpuUsage(cpu0);
      if (side === 'single') singleCpu += (cpu.user + cpu.system) / 1000;
      else workersCpu += (cpu.user + cpu.system) / 1000;
    }
    singleWall += wall.single;
    workersWall += wall.workers;
    console.log(`chunk ${k + 1} (deals ${from + 1}..${end}): single ${wall.single.toFixed(0)} ms, ${opts.threads} workers ${wall.workers.toFixed(0)} ms, ${(wall.single / wall.workers).toFixed(2)}×`);
  }
  console.log(
    `\nsingle engine: ${(opts.to / (singleWall / 1000)).toFixed(0)} deals/s, ${(singleCpu / opts.to).toFixed(3)} CPU ms a deal${single.pinned ? `; by vCPU ${single.rates()}` : ''}\n` +
      `${opts.threads} bare workers: ${(opts.to / (workersWall / 1000)).toFixed(0)} deals/s, ${(workersCpu / opts.to).toFixed(3)} CPU ms a deal, ${(workersCpu / workersWall).toFixed(2)} cores busy\n` +
      `ceiling (single wall / workers wall): ${(singleWall / workersWall).toFixed(2)}×`,
  );
} finally {
  await Promise.all(workers.map((w) => w.terminate()));
}

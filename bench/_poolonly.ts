import { resolve } from 'node:path';
import { loadEngineModule } from '../client-sdk/core/engine.js';
import { resolveDeal } from '../client-sdk/api/request.js';
import { createPool } from '../server/pool.js';
const deals = Array.from({ length: 36000 }, (_, i) => resolveDeal({ game: 'freecell', numbering: 'ms', deal: i + 1 }));
const pool = createPool({ module: await loadEngineModule(), threads: 2, filename: resolve('dist/server/worker.js') });
const limits = { maxStates: 2_000_000, timeoutMs: 60_000 };
async function through(set: typeof deals) {
  let next = 0;
  await Promise.all([0, 1].map(async () => { while (next < set.length) { const f = next; next = Math.min(set.length, next + 256); await pool.solveManyPacked(set.slice(f, next), limits); } }));
}
await through(deals.slice(32000));
const c0 = process.cpuUsage(); const t0 = performance.now();
await through(deals.slice(0, 32000));
const u = process.cpuUsage(c0);
console.log(`${(32000 / ((performance.now() - t0) / 1000)).toFixed(0)} deals/s, ${((u.user + u.system) / 1000 / 32000).toFixed(3)} CPU ms a deal`);
await pool.close();

/**
 * The compact layout of the no-cell Castle games (assembly/castle-key.ts)
 * against the layout of the other games (56-byte records), in one engine:
 * each deal solved under the same memory cap with the compact layout
 * allowed and forbidden (`wide`: forbidden only), printing the
 * verdict, positions stored and expanded, engine memory, bytes per stored
 * position, the open stacks' peak entries and the CPU seconds of each solve.
 * A development tool (docs/benchmarks.md, "What 4 GiB holds"); not a test.
 *
 *   npx tsx tools/tuning/compact-memory.ts streets_and_alleys 77 [capMiB=256] [maxStates=100000000] [both|compact|wide]
 *   npx tsx tools/tuning/compact-memory.ts streets_and_alleys 523 4095 2000000000 compact   # the deep budget's full search
 *   ENGINE_WASM=/tmp/base.tuning.wasm npx tsx tools/tuning/compact-memory.ts streets_and_alleys 77   # another build
 *
 * The deadline is the deep budget's, 30 minutes.
 */
import { parseArgs } from 'node:util';
import { tuningEngine, tuningHooks } from './tuning-hooks.js';
import { resolveDeal } from '../../client-sdk/api/request.js';

const { positionals } = parseArgs({ allowPositionals: true, options: {} });
const [game = 'streets_and_alleys', dealArg = '77', capArg = '256', maxArg = '100000000', which = 'both'] = positionals;
const deal = resolveDeal({ game, deal: Number(dealArg) } as Parameters<typeof resolveDeal>[0]);
const cap = Number(capArg) * 1024 * 1024;
// ENGINE_WASM=path measures another tuning build (e.g. main's)
const engine = await tuningEngine();
const raw = tuningHooks(engine);
for (const compact of which === 'both' ? [true, false] : [which === 'compact']) {
  raw.setCompactLayoutAllowed(compact ? 1 : 0);
  const cpu0 = process.cpuUsage();
  const out = engine.solve(deal, { limits: { maxStates: Number(maxArg), timeoutMs: 1_800_000 }, memoryLimitBytes: cap });
  const cpu = process.cpuUsage(cpu0);
  const cpuS = (cpu.user + cpu.system) / 1e6;
  const { statesStored: stored, statesExpanded: expanded, memoryBytes } = out.stats;
  console.log(
    `${game} ${dealArg} cap ${capArg} MiB ${compact && raw.compactLayoutInUse() ? 'compact' : '56-byte'}: ${out.verdict}` +
      `${out.verdict === 'unknown' ? ` (${out.reason})` : ''}, stored ${stored}, expanded ${expanded}, ` +
      `memory ${(memoryBytes / 2 ** 20).toFixed(1)} MiB, ${(memoryBytes / stored).toFixed(1)} B/stored, ` +
      `slots ${(raw.slotBytes() / stored).toFixed(1)} B/stored, open peak ${raw.openEntriesPeakCount()} entries (${raw.openBlocksCount()} blocks), cpu ${cpuS.toFixed(2)} s, ` +
      `${(stored / cpuS).toFixed(0)} stored/cpu-s`,
  );
}
raw.setCompactLayoutAllowed(1);

/**
 * Engine search statistics on a range of deals, one engine in process: CPU
 * seconds, positions expanded and stored per deal, solution lengths, tail.
 * A development tool for search changes (docs/engine.md, "Tuned values"); not a test.
 *
 *   npx tsx tools/tuning/quick.ts freecell 1 2000 [maxStates] [timeoutMs]
 *   ENGINE_WASM=/tmp/base.tuning.wasm npx tsx tools/tuning/quick.ts freecell 1 2000   # another build
 */
import { parseArgs } from 'node:util';
import { tuningEngine, tuningHooks } from './tuning-hooks.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { DEFAULT_LIMITS_CONFIG } from '../../server/limits.js';

const { positionals } = parseArgs({ allowPositionals: true, options: {} });
const [game = 'freecell', fromArg = '1', toArg = '1000', maxArg, timeoutArg] = positionals;
const wholeNumber = (text: string, what: string): number => {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`${what} must be a positive whole number, got ${JSON.stringify(text)}`);
  return n;
};
const from = wholeNumber(fromArg, 'from');
const to = wholeNumber(toArg, 'to');
const limits = {
  maxStates: maxArg ? wholeNumber(maxArg, 'maxStates') : DEFAULT_LIMITS_CONFIG.defaultMaxStates,
  timeoutMs: timeoutArg ? wholeNumber(timeoutArg, 'timeoutMs') : DEFAULT_LIMITS_CONFIG.defaultTimeoutMs,
};
const deals = [];
for (let n = from; n <= to; n++) deals.push(resolveDeal({ game, deal: n } as Parameters<typeof resolveDeal>[0]));
// ENGINE_WASM=path compares another tuning build of the engine (e.g. main's) on the same deals
const engine = await tuningEngine();
// LAZY_QUOTA=n sets the engine's lazy-phase quota (a tuning hook of assembly/presets.ts)
if (process.env.LAZY_QUOTA) tuningHooks(engine).setLazyQuota(Number(process.env.LAZY_QUOTA));
engine.solve(deals[0], { limits });
const rows: { n: number; v: string; moves: number; noAuto: number; exp: number; st: number; ms: number }[] = [];
const cpu0 = process.cpuUsage();
for (let i = 0; i < deals.length; i++) {
  const t = performance.now();
  const out = engine.solve(deals[i], { limits });
  const ms = performance.now() - t;
  rows.push({
    n: from + i, v: out.verdict, moves: out.moves.length, noAuto: out.moves.filter((m) => !m.auto).length,
    exp: out.stats.statesExpanded, st: out.stats.statesStored, ms,
  });
}
const cpu = process.cpuUsage(cpu0);
const cpuS = (cpu.user + cpu.system) / 1e6;
const solved = rows.filter((r) => r.v === 'solved');
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const sortedMs = rows.map((r) => r.ms).sort((a, b) => a - b);
const byStored = [...rows].sort((a, b) => b.st - a.st).slice(0, 5);
const count = (v: string) => rows.filter((r) => r.v === v).length;
console.log(
  `${game} ${from}..${to}: cpu ${cpuS.toFixed(2)} s, ${(rows.length / cpuS).toFixed(0)} deals/cpu-s; ` +
    `solved ${solved.length} unsolvable ${count('unsolvable')} unknown ${count('unknown')}; ` +
    `moves ${mean(solved.map((r) => r.moves)).toFixed(1)} (no auto ${mean(solved.map((r) => r.noAuto)).toFixed(1)}); ` +
    `expanded mean ${mean(rows.map((r) => r.exp)).toFixed(0)}; stored mean ${mean(rows.map((r) => r.st)).toFixed(0)} max ${byStored[0].st}; ` +
    `p99 ${sortedMs[Math.floor(sortedMs.length * 0.99)].toFixed(1)} ms max ${sortedMs[sortedMs.length - 1].toFixed(0)} ms`,
);
console.log('largest:', byStored.map((r) => `${r.n}:${r.v}:${r.st}:${r.ms.toFixed(0)}ms`).join(' '));
if (process.env.ROWS) {
  const { writeFileSync } = await import('node:fs');
  writeFileSync(process.env.ROWS, JSON.stringify(rows));
}

/**
 * A/B comparison of the beam (assembly/beam.ts) of two or more engine builds,
 * one process: for each deal every build solves it, then runs one beam of
 * `width` from the start with costs 2,4,8,2,1 (the main beam's,
 * client-sdk/core/shorten.ts WEIGHTS[0]); this `reps` times, the builds
 * taking turns, and the least CPU time (process.cpuUsage around the beam
 * alone) of each build counts for the deal. The sum of those minimums is
 * steadier than one run on a loaded machine (single runs of
 * tools/tuning/beam-fixed.ts varied by ±20 % at a load average of 8-13). Prints
 * each build's sum, its ratio to the first build, and the sum of the beam's
 * lengths in counted moves (equal when a build changes only the cost of a
 * step). A development tool (docs/short-solutions.md); not a test.
 *
 *   npx tsx tools/tuning/beam-ab.ts A.wasm B.wasm [more.wasm …] [--from 1] [--to 15] [--width 4096] [--reps 3]
 */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { createTuningEngine } from '../../tests/helpers/tuning-engine.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { DEFAULT_LIMITS_CONFIG } from '../../server/limits.js';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    from: { type: 'string', default: '1' },
    to: { type: 'string', default: '15' },
    width: { type: 'string', default: '4096' },
    reps: { type: 'string', default: '3' },
  },
});
if (positionals.length < 2) {
  console.error('usage: npx tsx tools/tuning/beam-ab.ts A.wasm B.wasm [more.wasm …] [--from n] [--to n] [--width n] [--reps n]');
  process.exit(2);
}
const from = Number(values.from);
const to = Number(values.to);
const width = Number(values.width);
const reps = Number(values.reps);

/** The engine's beam exports this tool drives (assembly/beam.ts and beam-cost.ts document each). */
interface Raw {
  shortenBegin(width: number, mem: number): number;
  shortenBeam(width: number, prefix: number): number;
  shortenBestLength(): number;
  setBeamWeights(a: number, b: number, c: number, d: number, e: number): void;
}
const engines = await Promise.all(positionals.map((p) => createTuningEngine(resolve(p))));
const limits = { maxStates: DEFAULT_LIMITS_CONFIG.defaultMaxStates, timeoutMs: DEFAULT_LIMITS_CONFIG.defaultTimeoutMs };
const cpu = new Array<number>(engines.length).fill(0);
const lengths = new Array<number>(engines.length).fill(0);
for (let n = from; n <= to; n++) {
  const deal = resolveDeal({ game: 'freecell', deal: n, numbering: 'ms' });
  const least = new Array<number>(engines.length).fill(Infinity);
  for (let r = 0; r < reps; r++) {
    for (let k = 0; k < engines.length; k++) {
      const engine = engines[k];
      if (engine.solve(deal, { limits }).verdict !== 'solved') continue;
      const e = engine.moduleExports() as unknown as Raw;
      if (e.shortenBegin(width, 2 ** 30) < 0) throw new Error(`deal ${n}: shortenBegin failed (${positionals[k]})`);
      e.setBeamWeights(2, 4, 8, 2, 1);
      const c0 = process.cpuUsage();
      e.shortenBeam(width, 0);
      const c = process.cpuUsage(c0);
      least[k] = Math.min(least[k], (c.user + c.system) / 1000);
      if (r === 0) lengths[k] += e.shortenBestLength();
    }
  }
  for (let k = 0; k < engines.length; k++) if (least[k] < Infinity) cpu[k] += least[k];
}
positionals.forEach((p, k) =>
  console.log(`${p}: MS ${from}..${to} width ${width}, sum of per-deal least beam CPU ${cpu[k].toFixed(0)} ms (${(cpu[k] / cpu[0]).toFixed(3)} of the first), lengths ${lengths[k]}`),
);

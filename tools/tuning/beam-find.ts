/**
 * The guided pass (Engine.beamFind, assembly/beam.ts beamFindBegin) on
 * chosen deals: beams from the start with no solution known, at given widths
 * and cost weights, one engine in process (docs/search.md §10,
 * docs/benchmarks.md). A development tool, not a test.
 *
 *   npx tsx tools/tuning/beam-find.ts --game streets_and_alleys --deals 226,958,211 \
 *     --widths 32768,65536 --costs '2,4,0,2,1;1,1,0,0,1' [--timeout-ms 600000] [--mem-mb 3800] [--max-levels 512] [--global-log2 0]
 *
 * Each deal × width × cost runs as one beam (`--portfolio` instead runs the
 * listed beams in turn as one pass per deal, stopping at the first found;
 * `--guided` runs the pass's own portfolio, client-sdk/core/guided.ts
 * GUIDED_BEAMS, the same way; `--first N` only its first N beams).
 * Prints one line per beam: found or not, solution length (all moves /
 * counted), CPU ms of the process, wall ms, positions expanded, deepest
 * level, most cards home, the engine memory. Every found solution has been
 * replayed by the checker (verify.ts) inside beamFind.
 */
import { parseArgs } from 'node:util';
import type { GuidedBeam } from '../../client-sdk/core/engine/index.js';
import { tuningEngine } from './tuning-hooks.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { countedMoves } from '../../client-sdk/core/shorten.js';
import { GUIDED_BEAMS } from '../../client-sdk/core/guided.js';

const { values } = parseArgs({
  options: {
    game: { type: 'string', default: 'streets_and_alleys' },
    deals: { type: 'string', default: '226' },
    widths: { type: 'string', default: '65536' },
    costs: { type: 'string', default: '2,4,0,2,1' },
    'timeout-ms': { type: 'string', default: '600000' },
    'mem-mb': { type: 'string', default: '3800' },
    portfolio: { type: 'boolean', default: false },
    guided: { type: 'boolean', default: false },
    first: { type: 'string' },
    'max-levels': { type: 'string', default: '512' },
    'global-log2': { type: 'string', default: '0' },
  },
});

/** "1..5,9" → [1,2,3,4,5,9] */
function parseDeals(text: string): number[] {
  return text.split(',').flatMap((part) => {
    const [a, b] = part.split('..').map(Number);
    return b === undefined ? [a] : Array.from({ length: b - a + 1 }, (_, i) => a + i);
  });
}
const deals = parseDeals(values.deals!);
const widths = values.widths!.split(',').map(Number);
const costs = values.costs!.split(';').map((c) => c.split(',').map(Number) as unknown as GuidedBeam['weights']);
const timeoutMs = Number(values['timeout-ms']);
const memBytes = Number(values['mem-mb']) * 2 ** 20;
const maxLevels = Number(values['max-levels']);
const globalSeenLog2 = Number(values['global-log2']);
const engine = await tuningEngine();
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const plans: GuidedBeam[][] = values.guided
  ? [GUIDED_BEAMS.slice(0, values.first === undefined ? GUIDED_BEAMS.length : Number(values.first))]
  : values.portfolio
  ? [widths.flatMap((width) => costs.map((weights) => ({ width, weights, maxLevels, globalSeenLog2 })))]
  : widths.flatMap((width) => costs.map((weights) => [{ width, weights, maxLevels, globalSeenLog2 }]));
let found = 0;
let runs = 0;
for (const n of deals) {
  const deal = resolveDeal({ game: values.game, deal: n } as Parameters<typeof resolveDeal>[0]);
  for (const plan of plans) {
    const c0 = cpuMs();
    const out = engine.beamFind(deal, { beams: plan, timeoutMs, memoryLimitBytes: memBytes });
    const cpu = cpuMs() - c0;
    runs++;
    if (out.verdict === 'solved') found++;
    const last = out.beams[out.beams.length - 1];
    console.log(
      `${values.game} ${n} ${values.guided ? 'GUIDED_BEAMS' : plan.map((b) => `w${b.width}[${b.weights.join(',')}]`).join('+')}: ` +
        `${out.verdict === 'solved' ? `FOUND ${out.moves.length} moves (${countedMoves(out.moves)} counted)` : `not found (${out.reason})`}` +
        `, cpu ${cpu.toFixed(0)} ms, wall ${out.stats.elapsedMs.toFixed(0)} ms, expanded ${out.stats.statesExpanded}` +
        `, levels ${last?.levels ?? 0}, most home ${Math.max(0, ...out.beams.map((b) => b.mostHome))}` +
        `, mem ${(out.stats.memoryBytes / 2 ** 20).toFixed(0)} MiB` +
        (plan.length > 1 ? `, beams run ${out.beams.length} (${out.beams.map((b) => `${b.found ? 'found' : b.stopped ? 'stopped' : 'exhausted'} at level ${b.levels}, home ${b.mostHome}, ${(b.elapsedMs / 1000).toFixed(1)} s`).join('; ')})` : ''),
    );
  }
}
console.log(`found ${found} of ${runs}`);
const cpuTotal = cpuMs();
console.log(`CPU of the process ${(cpuTotal / 1000).toFixed(1)} s`);

/**
 * Coordinate descent over the search's scan weights (the tables of
 * assembly/presets.ts; docs/engine.md, "Tuned values"): from a start set of weights, tries every weight of
 * every scan one step up and one step down (the depth weight by 16), keeps a
 * step when it lowers the mean count of positions expanded a deal on the
 * training deals without raising the mean solution length past a cap, and
 * sweeps again until a sweep keeps nothing. Position counts are exact, so
 * the climb is not disturbed by the machine's load; check what it finds on
 * deals it did not see with tools/tuning/tune.ts. A development tool, not a test.
 *
 *   npx tsx tools/tuning/climb.ts --game freecell --ranges 1-4000,20001-24000 --moves-cap 92.6 \
 *     --scan 5,3,5,6,2,0,32 --scan 5,3,3,6,2,0,64 --scan 5,2,6,8,1,0,32 --scan 4,6,4,6,2,0,32
 *   npx tsx tools/tuning/climb.ts --game seahaven_towers --ranges 1-400 --solved-only --moves-cap 81.9 --scan ...
 *
 * `--scan` takes one scan's seven weights in the order of assembly/presets.ts
 * `setHeuristicWeights` (see tools/tuning/tune.ts); the number of `--scan`s is the
 * scan count. `--solved-only` drops the deals the start weights do not
 * solve: a complete search of an unsolvable deal expands the same set under
 * any weights. `--prelude scan,items` fixes the prelude (default: the rule's).
 * `--objective cost` lowers a CPU model instead of the positions expanded:
 * `--cost E,P` µs per position expanded and per pending move queued (the
 * lazy phase's measured and queued children), by default 0.63 and 0.066, a
 * least-squares fit of the engine's time per deal on MS 1..32000 (kept in
 * git: docs/engine.md at bd7bc28); still from exact counts.
 * Each kept step is printed (and appended to `--log`, if given).
 */
import { Command, InvalidArgumentError } from 'commander';
import { appendFileSync } from 'node:fs';
import { resolveDeal } from '../../client-sdk/api/request.js';
import type { Deal } from '../../client-sdk/core/rules.js';
import { DEFAULT_LIMITS_CONFIG } from '../../server/limits.js';
import { applyScanWeights, parseScanWeights, tuningEngine, tuningHooks } from './tuning-hooks.js';

const scanOption = (text: string, previous: number[][] = []): number[][] => {
  try {
    return [...previous, parseScanWeights(text)];
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
};
const parsePrelude = (text: string): [number, number] => {
  const m = /^(\d+),(\d+)$/.exec(text);
  if (!m) throw new InvalidArgumentError(`wants SCAN,ITEMS (two whole numbers), got ${JSON.stringify(text)}`);
  return [Number(m[1]), Number(m[2])];
};
const parseRanges = (text: string): [number, number][] => text.split(',').map((part) => {
  const m = /^(\d+)-(\d+)$/.exec(part);
  if (!m || Number(m[1]) < 1 || Number(m[2]) < Number(m[1])) throw new InvalidArgumentError(`a range is FROM-TO with 1 <= FROM <= TO, got ${JSON.stringify(part)}`);
  return [Number(m[1]), Number(m[2])];
});

const program = new Command()
  .name('climb')
  .description('coordinate descent over the scan weights, by positions expanded per deal')
  .requiredOption('--game <id>', 'game preset id, e.g. freecell, seahaven_towers, bakers_game')
  .requiredOption('--ranges <list>', 'training deals, e.g. 1-4000,20001-24000', parseRanges)
  .requiredOption('--scan <weights>', 'one scan\'s seven start weights (repeat per scan)', scanOption)
  .requiredOption('--moves-cap <n>', 'most mean moves a kept step may give (auto-moves counted)', Number)
  .option('--solved-only', 'train on the deals the start weights solve')
  .option('--prelude <scan,items>', 'prelude of every solve (default: the rule\'s)', parsePrelude)
  .option('--sweeps <n>', 'most sweeps', Number, 8)
  .option('--objective <kind>', 'what the climb lowers: expanded (positions expanded a deal) or cost (the CPU model below)', 'expanded')
  .option('--cost <us-per-expanded,us-per-pending>', 'the CPU model of --objective cost, µs per position expanded and per pending move queued', '0.63,0.066')
  .option('--log <file>', 'also append every line to this file')
  .parse();
const opts = program.opts<{
  game: string; ranges: [number, number][]; scan: number[][]; movesCap: number;
  solvedOnly?: boolean; prelude?: [number, number]; sweeps: number; log?: string; objective: string; cost: string;
}>();
if (opts.objective !== 'expanded' && opts.objective !== 'cost') program.error(`--objective is expanded or cost, got ${JSON.stringify(opts.objective)}`);
const [usPerExpanded, usPerPending] = opts.cost.split(',').map(Number);
if (!(usPerExpanded >= 0) || !(usPerPending >= 0)) program.error(`--cost wants two numbers >= 0 separated by a comma, got ${JSON.stringify(opts.cost)}`);

const print = (line: string): void => {
  console.log(line);
  if (opts.log) appendFileSync(opts.log, line + '\n');
};

const engine = await tuningEngine();
const hooks = tuningHooks(engine);
const limits = { maxStates: DEFAULT_LIMITS_CONFIG.defaultMaxStates, timeoutMs: DEFAULT_LIMITS_CONFIG.defaultTimeoutMs };
let deals: Deal[] = [];
for (const [from, to] of opts.ranges) for (let n = from; n <= to; n++) deals.push(resolveDeal({ game: opts.game, deal: n } as Parameters<typeof resolveDeal>[0]));

/**
 * A weight set's result on the training deals: means a deal of positions
 * expanded, pending moves queued (the lazy phase's measured and queued
 * children) and moves of the solved deals; `cost` is the CPU model of
 * `--cost` (µs a deal, from exact counts: the same whatever the load).
 */
interface Result { expanded: number; pending: number; cost: number; moves: number; max: number; verdicts: string[] }
const cache = new Map<string, Result>();
/** Solves every training deal under `scans` (cached by weights). */
function evaluate(scans: number[][]): Result {
  const key = JSON.stringify(scans);
  const known = cache.get(key);
  if (known) return known;
  applyScanWeights(hooks, scans);
  if (opts.prelude) hooks.setScanPrelude(...opts.prelude);
  let expanded = 0, pending = 0, moves = 0, solved = 0, max = 0;
  const verdicts: string[] = [];
  for (const deal of deals) {
    const out = engine.solve(deal, { limits });
    verdicts.push(out.verdict);
    expanded += out.stats.statesExpanded;
    pending += hooks.pendingMovesQueued();
    max = Math.max(max, out.stats.statesExpanded);
    if (out.verdict === 'solved') { moves += out.moves.length; solved++; }
  }
  const n = deals.length;
  const result = {
    expanded: expanded / n, pending: pending / n, cost: (usPerExpanded * expanded + usPerPending * pending) / n,
    moves: moves / Math.max(1, solved), max, verdicts,
  };
  cache.set(key, result);
  return result;
}
const score = (r: Result): number => (r.moves > opts.movesCap ? Infinity : opts.objective === 'cost' ? r.cost : r.expanded);
const describe = (scans: number[][], r: Result): string =>
  `${scans.map((w) => w.join(',')).join('  ')}  expanded ${r.expanded.toFixed(2)} pending ${r.pending.toFixed(1)} cost ${r.cost.toFixed(2)} µs moves ${r.moves.toFixed(2)} max ${r.max}`;

let current = opts.scan;
if (opts.solvedOnly) {
  const start = evaluate(current);
  deals = deals.filter((_, i) => start.verdicts[i] === 'solved');
  cache.clear();
  print(`training on the ${deals.length} deals the start weights solve`);
}
let best = evaluate(current);
print(`start  ${describe(current, best)}`);
/** [weight index, step]: not home, unsorted, cells, empty columns, next-card depth by 1; depth by 16 (the mode is left alone). */
const steps: [number, number][] = [[0, 1], [1, 1], [2, 1], [3, 1], [4, 1], [6, 16]];
for (let sweep = 1; sweep <= opts.sweeps; sweep++) {
  let kept = false;
  for (let scan = 0; scan < current.length; scan++) {
    for (const [w, step] of steps) {
      for (const sign of [1, -1]) {
        const candidate = current.map((weights) => [...weights]);
        candidate[scan][w] += sign * step;
        if (candidate[scan][w] < 0) continue;
        const r = evaluate(candidate);
        if (score(r) < score(best) - 0.05) {
          current = candidate;
          best = r;
          kept = true;
          print(`sweep ${sweep} keeps scan ${scan} weight ${w} ${sign > 0 ? '+' : '-'}${step}: ${describe(current, best)}`);
        }
      }
    }
  }
  print(`sweep ${sweep} done  ${describe(current, best)}`);
  if (!kept) break;
}

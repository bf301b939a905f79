/**
 * The beam of assembly/beam.ts at fixed settings, one engine in process: a
 * development tool for beam changes (docs/short-solutions.md), not a test.
 * Deterministic: no wall or CPU budget decides anything.
 *
 *   npx tsx tools/tuning/beam-fixed.ts freecell 1 100 width [a,b,c,d]
 *     one beam of `width` from the start with cost weights a,b,c,d,e (default 2,4,6,2,0; assembly/beam-cost.ts setBeamWeights)
 *   SCHEDULE=n npx tsx tools/tuning/beam-fixed.ts freecell 1 100
 *     client-sdk/core/shorten.ts runBeams with a budget of n expanded positions
 *     (its clock counts expanded positions instead of ms)
 *   COSTS='[[2,4,8,2,1],[1,1,4,0,1]]' SCHEDULE=n …   runBeams with other costs
 *   VARIANT=one|two SCHEDULE=n …   the alternative schedules below (tried, not better)
 *   ENGINE_WASM=/tmp/base.tuning.wasm …   another build of the engine
 *
 * Prints the mean counted length (moves without safe auto-moves) of the
 * first solutions and of the beam's, the CPU time of the beams alone, the
 * positions expanded and the CPU ns per expanded position. Every beam
 * solution is replayed by the checker (verify.ts); a rejected one is an error.
 */
import { parseArgs } from 'node:util';
import { tuningEngine } from './tuning-hooks.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { DEFAULT_LIMITS_CONFIG } from '../../server/limits.js';
import { checkSolution } from '../../client-sdk/core/verify.js';
import { countedMoves, runBeams, type BeamEngine, type BeamCost } from '../../client-sdk/core/shorten.js';
import type { Move } from '../../client-sdk/core/moves.js';

const { positionals } = parseArgs({ allowPositionals: true, options: {} });
const [game = 'freecell', fromArg = '1', toArg = '100', widthArg = '1024', weightsArg = '2,4,6,2,0'] = positionals;
const from = Number(fromArg);
const to = Number(toArg);
const width = Number(widthArg);
const weights = weightsArg.split(',').map(Number) as [number, number, number, number, number];
const schedule = process.env.SCHEDULE ? Number(process.env.SCHEDULE) : 0;
const W: [number, number, number, number, number][] = [[2, 4, 6, 2, 0], [1, 1, 4, 0, 0]];
const schedules = {
  /** one beam as wide as the budget allows */
  one(engine: BeamEngine): number {
    engine.weights(...W[0]);
    const t0 = engine.now();
    engine.beam(64, 0);
    const per = (engine.now() - t0) / 64;
    const w = Math.floor((0.95 * (engine.deadline - engine.now())) / per);
    if (w > 64) engine.beam(Math.min(w, 16384), 0);
    return w;
  },
  /** two beams, one per cost, each half the budget; then suffixes at the same width */
  two(engine: BeamEngine): number {
    engine.weights(...W[0]);
    const t0 = engine.now();
    engine.beam(64, 0);
    const per = (engine.now() - t0) / 64;
    const w = Math.floor((0.45 * (engine.deadline - engine.now())) / per);
    if (w <= 64) return 64;
    engine.beam(Math.min(w, 16384), 0);
    engine.weights(...W[1]);
    engine.beam(Math.min(w, 16384), 0);
    let turn = 0;
    for (let prefix = 16; prefix < engine.pathMoves() && !engine.stopped(); prefix += 16) {
      engine.weights(...W[turn++ % 2]);
      engine.beam(Math.min(w, 16384), prefix);
    }
    return w;
  },
};
const limits = { maxStates: DEFAULT_LIMITS_CONFIG.defaultMaxStates, timeoutMs: DEFAULT_LIMITS_CONFIG.defaultTimeoutMs };
const engine = await tuningEngine();
interface Raw {
  shortenBegin(width: number, mem: number): number;
  shortenBeam(width: number, prefix: number): number;
  shortenWrite(): number;
  shortenPathMoves(): number;
  shortenStopped(): number;
  setBeamWeights(a: number, b: number, c: number, d: number, e: number): void;
  beamExpanded: WebAssembly.Global;
  beamChildren?: WebAssembly.Global;
}
const e = engine.moduleExports() as unknown as Raw;
// the engine's private parts this tool drives directly: the clock and deadline its pollStop reads, and the solution reader (client-sdk/core/engine/)
const priv = engine as unknown as { poll: { deadline: number; clock: () => number }; io: { readSolution(base: number): Move[] } };
priv.poll.deadline = Infinity;
let firstSum = 0;
let shortSum = 0;
let solved = 0;
let beamCpu = 0;
let expanded = 0;
let children = 0;
const lengths: number[] = [];
for (let n = from; n <= to; n++) {
  const deal = resolveDeal({ game, deal: n } as Parameters<typeof resolveDeal>[0]);
  const out = engine.solve(deal, { limits });
  if (out.verdict !== 'solved') continue;
  solved++;
  const first = countedMoves(out.moves);
  firstSum += first;
  const c0 = process.cpuUsage();
  if (e.shortenBegin(schedule ? 16384 : width, 2 ** 30) < 0) throw new Error(`deal ${n}: shortenBegin failed`);
  let exp = 0;
  if (schedule) {
    const be: BeamEngine = {
      begin: () => 0,
      beam: (w, p) => e.shortenBeam(w, p),
      pathMoves: () => e.shortenPathMoves(),
      weights: (a, b, c, d, f) => e.setBeamWeights(a, b, c, d, f),
      stopped: () => e.shortenStopped() !== 0,
      read: () => null,
      now: () => Number(e.beamExpanded.value),
      deadline: schedule,
    };
    priv.poll.deadline = schedule;
    priv.poll.clock = () => Number(e.beamExpanded.value);
    const variant = process.env.VARIANT ? (schedules as Record<string, (b: BeamEngine, w: number, c?: BeamCost[]) => number>)[process.env.VARIANT] : runBeams;
    variant(be, 16384, process.env.COSTS ? (JSON.parse(process.env.COSTS) as BeamCost[]) : undefined);
    priv.poll.deadline = Infinity;
    priv.poll.clock = () => performance.now();
  } else {
    e.setBeamWeights(...weights);
    e.shortenBeam(width, 0);
  }
  exp = Number(e.beamExpanded.value);
  const c1 = process.cpuUsage(c0);
  beamCpu += (c1.user + c1.system) / 1000;
  expanded += exp;
  if (e.beamChildren) children += Number(e.beamChildren.value);
  if (e.shortenWrite() === 0) throw new Error(`deal ${n}: shortenWrite failed`);
  const moves = priv.io.readSolution(deal.rules.foundationBase);
  const check = checkSolution(deal.rules, deal.layout, moves);
  if (!check.ok) throw new Error(`deal ${n}: beam solution rejected at move ${check.moveIndex + 1}: ${check.reason}`);
  const len = Math.min(first, countedMoves(moves));
  lengths.push(len);
  shortSum += len;
}
lengths.sort((a, b) => a - b);
console.log(
  `${game} ${from}..${to} ${schedule ? `schedule ${schedule} expanded` : `width ${width} weights ${weights.join(',')}`}: ` +
    `solved ${solved}, first ${(firstSum / solved).toFixed(2)}, beam ${(shortSum / solved).toFixed(3)} (median ${lengths[lengths.length >> 1]}, max ${lengths[lengths.length - 1]}); ` +
    `beam CPU ${(beamCpu / solved).toFixed(1)} ms/deal, expanded ${(expanded / solved).toFixed(0)}/deal, ${((beamCpu * 1e6) / expanded).toFixed(0)} ns/expanded` +
    (children ? `, ${(children / solved).toFixed(0)} children/deal, ${((beamCpu * 1e6) / children).toFixed(1)} ns/child` : ''),
);

/**
 * Tuning runs for the search's heuristic (assembly/presets.ts; docs/engine.md,
 * "Tuned values"): solves a range of
 * deals with one engine in process under one or more configurations of the
 * engine's tuning hooks (scan weights, scan count, scan step, lazy quota) and
 * prints, per configuration, the deterministic position counts that tuning
 * goes by: positions expanded per deal (mean), the tail (sum of the
 * expansions of the 1 % of deals that expand the most), the mean over the
 * solved deals alone (an unsolvable deal's complete search expands the same
 * set in any order), stored positions, pending moves queued and open-list
 * items taken (the lazy phase's work per child: each queued child was played,
 * measured and scored),
 * verdicts and mean solution length (with and without auto-moves), and CPU
 * seconds (process.cpuUsage; noisy on a shared machine). A development tool,
 * not a test.
 *
 *   npx tsx tools/tuning/tune.ts --game freecell --from 1 --to 4000
 *   npx tsx tools/tuning/tune.ts --game bakers_game --to 1000 --scan 6,3,4,6,2,1,24 --scan 6,3,2,6,2,0,32
 *   npx tsx tools/tuning/tune.ts --game seahaven_towers --to 300 --configs configs.json
 *
 * `--scan a,b,c,d,e,f,g` (repeatable) gives one scan's weights in the order of
 * assembly/presets.ts `setHeuristicWeights`: not home, unsorted, cell, empty
 * column, next-card depth, unsorted mode (0 top run, 1 bottom sequence),
 * depth (sixteenths of a point per move); the number of `--scan`s is the scan
 * count. Without `--scan` the engine's defaults for the game run. `--configs`
 * names a JSON array of `{ "name", "scans"?: number[][], "quota"?, "step"?, "stick"?,
 * "prelude"?: [scan, items] }`,
 * each run in turn on the same deals. `--rows file.json` dumps the per-deal
 * rows of the last configuration. `ENGINE_WASM=path` runs another build.
 */
import { parseArgs } from 'node:util';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { DEFAULT_LIMITS_CONFIG } from '../../server/limits.js';
import { applyScanWeights, parseScanWeights, tuningEngine, tuningHooks } from './tuning-hooks.js';

/** One configuration of the tuning hooks; a field left out keeps the engine's default. */
interface TuneConfig {
  name: string;
  /** Weights per scan (7 numbers each, see the file comment); the length is the scan count. */
  scans?: number[][];
  quota?: number;
  step?: number;
  /** Items a scan may take in a row while its best pending move is one of the held position's. */
  stick?: number;
  /** [scan, items]: that scan alone takes the first items. */
  prelude?: [number, number];
}

const { values } = parseArgs({
  options: {
    game: { type: 'string', default: 'freecell' },
    from: { type: 'string', default: '1' },
    to: { type: 'string', default: '1000' },
    scan: { type: 'string', multiple: true },
    quota: { type: 'string' },
    step: { type: 'string' },
    configs: { type: 'string' },
    'max-states': { type: 'string' },
    rows: { type: 'string' },
  },
});

const from = Number(values.from);
const to = Number(values.to);
const limits = {
  maxStates: values['max-states'] ? Number(values['max-states']) : DEFAULT_LIMITS_CONFIG.defaultMaxStates,
  timeoutMs: DEFAULT_LIMITS_CONFIG.defaultTimeoutMs,
};
const configs: TuneConfig[] = values.configs
  ? (JSON.parse(readFileSync(values.configs, 'utf8')) as TuneConfig[])
  : [{
      name: values.scan ? values.scan.join(' ') : 'default',
      scans: values.scan?.map(parseScanWeights),
      quota: values.quota ? Number(values.quota) : undefined,
      step: values.step ? Number(values.step) : undefined,
    }];

const deals = [];
for (let n = from; n <= to; n++) deals.push(resolveDeal({ game: values.game, deal: n } as Parameters<typeof resolveDeal>[0]));
// ENGINE_WASM=path runs another tuning build of the engine (an experiment) on the same deals
const engine = await tuningEngine();
const hooks = tuningHooks(engine);

let quotaSet = false;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
for (const config of configs) {
  applyScanWeights(hooks, config.scans);
  // 0 is the default quota in this build; an older build takes it as a quota of 0, so it is set only when asked for
  if (config.quota !== undefined || quotaSet) hooks.setLazyQuota(config.quota ?? 0);
  quotaSet ||= config.quota !== undefined;
  hooks.setScanStep(config.step ?? 1);
  if (config.stick !== undefined) hooks.setScanStick(config.stick);
  if (config.prelude) hooks.setScanPrelude(config.prelude[0], config.prelude[1]);
  const rows: { n: number; v: string; moves: number; noAuto: number; exp: number; st: number; queued: number; taken: number; decoded: number; cpuMs: number }[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < deals.length; i++) {
    const before = process.cpuUsage();
    const out = engine.solve(deals[i], { limits });
    const used = process.cpuUsage(before);
    rows.push({
      cpuMs: (used.user + used.system) / 1000,
      n: from + i, v: out.verdict, moves: out.moves.length, noAuto: out.moves.filter((m) => !m.auto).length,
      exp: out.stats.statesExpanded, st: out.stats.statesStored,
      queued: hooks.pendingMovesQueued(), taken: hooks.openItemsTaken(), decoded: hooks.parentsDecoded(),
    });
  }
  const cpu = process.cpuUsage(cpu0);
  const solved = rows.filter((r) => r.v === 'solved');
  const byExp = rows.map((r) => r.exp).sort((a, b) => b - a);
  const tail = byExp.slice(0, Math.max(1, Math.round(rows.length / 100))).reduce((a, b) => a + b, 0);
  const count = (v: string) => rows.filter((r) => r.v === v).length;
  const unsolvableCpu = rows.filter((r) => r.v === 'unsolvable').reduce((a, r) => a + r.cpuMs, 0);
  console.log(
    `${config.name}\t${values.game} ${from}..${to}: expanded mean ${mean(rows.map((r) => r.exp)).toFixed(1)} ` +
      `tail1% ${tail} max ${byExp[0]}; solved only ${mean(solved.map((r) => r.exp)).toFixed(1)}; ` +
      `stored mean ${mean(rows.map((r) => r.st)).toFixed(1)}; queued ${mean(rows.map((r) => r.queued)).toFixed(0)} taken ${mean(rows.map((r) => r.taken)).toFixed(0)} decoded ${mean(rows.map((r) => r.decoded)).toFixed(0)}; ` +
      `solved ${solved.length} unsolvable ${count('unsolvable')} unknown ${count('unknown')}; ` +
      `moves ${mean(solved.map((r) => r.moves)).toFixed(2)} (no auto ${mean(solved.map((r) => r.noAuto)).toFixed(2)}); ` +
      `cpu ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s, ` +
      `${(100 * unsolvableCpu / Math.max(1e-9, rows.reduce((a, r) => a + r.cpuMs, 0))).toFixed(0)} % of it in unsolvable deals`,
  );
  if (values.rows) writeFileSync(values.rows, JSON.stringify(rows));
}

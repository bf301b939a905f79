/**
 * A/B comparison of two engine builds on the same deals, one process, one
 * engine each: the deals are cut into chunks of 50 and every chunk is solved
 * by both builds in turn (the order alternating from chunk to chunk), so a
 * change in the machine's load falls on both alike. Prints each build's CPU
 * seconds per round (process.cpuUsage around its solves, checker replay
 * included) and the median ratio B / A, and counts the deals whose verdict,
 * solution length, or positions expanded or stored differ (a build that
 * changes only the cost per position must show 0). A development tool
 * (docs/engine.md, "Tuned values"); not a test.
 *
 *   npx tsx tools/tuning/ab.ts A.wasm B.wasm [game] [from] [to] [rounds]
 *   npx tsx tools/tuning/ab.ts /tmp/base.tuning.wasm build/engine.tuning.wasm freecell 1 4000 3
 *   AB_WIDE=A npx tsx tools/tuning/ab.ts build/engine.tuning.wasm build/engine.tuning.wasm beleaguered_castle 1 100 3
 *
 * A and B may be release or tuning builds (`npm run asbuild`, `npm run
 * asbuild:tuning`; copy one aside before changing assembly/). AB_WIDE=A (or
 * B) forbids the compact layout of the no-cell Castle games (castle-key.ts
 * `setCompactLayoutAllowed`, a hook of the tuning build) in that build's
 * engine, so one build can be A/B'd against itself in the layout of the
 * other games (56-byte records).
 */
import { parseArgs } from 'node:util';
import { createTuningEngine, tuningHooks } from '../../tests/helpers/tuning-engine.js';
import { resolve } from 'node:path';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { DEFAULT_LIMITS_CONFIG } from '../../server/limits.js';

const { positionals } = parseArgs({ allowPositionals: true, options: {} });
const [aPath, bPath, game = 'freecell', fromArg = '1', toArg = '4000', roundsArg = '3'] = positionals;
if (!aPath || !bPath) {
  console.error('usage: npx tsx tools/tuning/ab.ts A.wasm B.wasm [game] [from] [to] [rounds]');
  process.exit(2);
}
const from = Number(fromArg);
const to = Number(toArg);
const rounds = Number(roundsArg);
const CHUNK = 50;
const limits = { maxStates: DEFAULT_LIMITS_CONFIG.defaultMaxStates, timeoutMs: DEFAULT_LIMITS_CONFIG.defaultTimeoutMs };
const deals = [];
for (let n = from; n <= to; n++) deals.push(resolveDeal({ game, deal: n } as Parameters<typeof resolveDeal>[0]));
const engines = await Promise.all([aPath, bPath].map((p) => createTuningEngine(resolve(p))));
const wide = process.env.AB_WIDE ?? '';
for (const [i, name] of ['A', 'B'].entries()) {
  if (wide.includes(name)) tuningHooks(engines[i]).setCompactLayoutAllowed(0);
}
for (const e of engines) e.solve(deals[0], { limits });

/** What a build must reproduce exactly: verdict, moves, positions expanded and stored. */
const facts: string[][] = [[], []];
const cpuOf = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const ratios: number[] = [];
for (let round = 0; round < rounds; round++) {
  const cpu = [0, 0];
  for (let start = 0, chunk = 0; start < deals.length; start += CHUNK, chunk++) {
    const order = chunk % 2 === 0 ? [0, 1] : [1, 0];
    for (const which of order) {
      const t = cpuOf();
      for (let i = start; i < Math.min(deals.length, start + CHUNK); i++) {
        const out = engines[which].solve(deals[i], { limits });
        if (round === 0) facts[which][i] = `${out.verdict}/${out.moves.length}/${out.stats.statesExpanded}/${out.stats.statesStored}`;
      }
      cpu[which] += cpuOf() - t;
    }
  }
  ratios.push(cpu[1] / cpu[0]);
  console.log(`round ${round + 1}: A ${cpu[0].toFixed(2)} s, B ${cpu[1].toFixed(2)} s, B/A ${(cpu[1] / cpu[0]).toFixed(3)}`);
}
ratios.sort((x, y) => x - y);
const differ = facts[0].filter((f, i) => f !== facts[1][i]).length;
console.log(`${game} ${from}..${to}: median B/A ${ratios[Math.floor(ratios.length / 2)].toFixed(3)}; deals that differ: ${differ}`);

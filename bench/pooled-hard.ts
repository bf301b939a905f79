/**
 * The pooled pass alone on hard deals (docs/search.md §9, docs/benchmarks.md
 * "The hard Castle deals"): for each deal, the poolings of POOLINGS_TO_TRY in
 * order until one is exhausted (pooled unsolvable), each with the given
 * state and time budget and 4 GiB of engine memory; prints per pooling the
 * verdict, positions stored, CPU seconds and engine memory; for the deciding
 * pooling, writes its certificate and times check-proof on it (one thread).
 * A development tool, not a test.
 *
 *   npx tsx bench/pooled-hard.ts streets_and_alleys 794,229 [maxStates] [timeoutMs per pooling] [certificate dir]
 *   POOLINGS=C.DS.H npx tsx bench/pooled-hard.ts streets_and_alleys 794 ...   # only these poolings (groups joined by '.', poolings by ',')
 *   NO_CHECK=1 ...                                                          # write the certificate, do not check it
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Engine, MAX_ENGINE_MEMORY_BYTES } from '../client-sdk/core/engine.js';
import { resolveDeal } from '../client-sdk/api/request.js';
import { POOLINGS_TO_TRY } from '../client-sdk/core/pools.js';
import { certificateFromEngine } from '../client-sdk/core/proof/writer.js';
import { checkCertificate } from '../client-sdk/core/proof/check.js';

const { positionals } = parseArgs({ allowPositionals: true, options: {} });
const [game = 'streets_and_alleys', dealsArg = '794', maxArg = '2000000000', timeoutArg = '300000', dir] = positionals;
const cpuS = (from: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(from);
  return (c.user + c.system) / 1e6;
};
const engine = await Engine.create();
for (const n of dealsArg.split(',').map(Number)) {
  const deal = resolveDeal({ game, deal: n } as Parameters<typeof resolveDeal>[0]);
  const dealStart = process.cpuUsage();
  const poolings = process.env.POOLINGS ? process.env.POOLINGS.split(',').map((p) => p.split('.')) : POOLINGS_TO_TRY;
  for (const pools of poolings) {
    const c0 = process.cpuUsage();
    const out = engine.solvePooled(deal, pools, { maxStates: Number(maxArg), timeoutMs: Number(timeoutArg) }, undefined, MAX_ENGINE_MEMORY_BYTES);
    const line = `${game} ${n} pools ${pools.join('+')}: ${out.verdict}${out.reason ? ` (${out.reason})` : ''}, ${out.stats.statesStored} positions, ${cpuS(c0).toFixed(1)} CPU s, engine ${(out.stats.memoryBytes / 2 ** 20).toFixed(0)} MiB; deal so far ${cpuS(dealStart).toFixed(1)} CPU s`;
    console.log(line);
    if (out.verdict !== 'unsolvable') continue;
    if (dir) {
      const c1 = process.cpuUsage();
      const cert = certificateFromEngine(engine, deal, out.stats.statesStored, engine.fingerprint(), {
        certificate: true, maxPositions: 2e9, maxBytes: Number.MAX_SAFE_INTEGER, game, deal: { number: String(n), numbering: 'pysolfc' },
      }, pools);
      if (!cert.included) throw new Error('certificate not included');
      const file = join(dir, `${game}-${n}.pooled.proof.gz`);
      writeFileSync(file, cert.certificate);
      console.log(`  certificate ${file}: ${cert.bytes} bytes, written in ${cpuS(c1).toFixed(1)} CPU s`);
      if (process.env.NO_CHECK) break;
      const c2 = process.cpuUsage();
      const result = checkCertificate(cert.certificate);
      console.log(`  check-proof: ${result.ok ? 'PASS' : `FAIL ${result.code}: ${result.reason}`}, ${result.ok ? `${result.movesChecked} moves, ` : ''}${cpuS(c2).toFixed(1)} CPU s, RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);
    }
    break;
  }
}

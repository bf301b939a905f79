/**
 * The layered complete pass (assembly/layers.ts) against the full search on
 * the compact layout, in one engine: each deal solved with the layered pass
 * on and off (or one of them), printing the verdict, positions stored and
 * expanded, the layered pass's peak live positions (keys held at once),
 * purges, engine memory, CPU seconds, and the layer histogram (positions per
 * value of M, and in the largest of its groups). A development tool (docs/engine.md, "The layered pass"); not a test.
 *
 *   npx tsx bench/layered.ts beleaguered_castle 954 [capMiB=4095] [maxStates=2000000000] [both|layered|full]
 *
 * The deadline is the deep budget's, 30 minutes.
 */
import { parseArgs } from 'node:util';
import { Engine } from '../client-sdk/core/engine.js';
import { resolveDeal } from '../client-sdk/api/request.js';

const { positionals } = parseArgs({ allowPositionals: true, options: {} });
const [game = 'beleaguered_castle', dealArg = '1', capArg = '4095', maxArg = '2000000000', which = 'both'] = positionals;
const deal = resolveDeal({ game, deal: Number(dealArg) } as Parameters<typeof resolveDeal>[0]);
const cap = Number(capArg) * 1024 * 1024;
const engine = await Engine.create();
const raw = (engine as unknown as { exports: Record<string, (...a: number[]) => number> }).exports;
for (const layered of which === 'both' ? [true, false] : [which === 'layered']) {
  const cpu0 = process.cpuUsage();
  const out = engine.solve(deal, { maxStates: Number(maxArg), timeoutMs: 1_800_000, layered }, undefined, cap);
  const cpu = process.cpuUsage(cpu0);
  const cpuS = (cpu.user + cpu.system) / 1e6;
  const { statesStored: stored, statesExpanded: expanded, memoryBytes } = out.stats;
  const used = raw.layeredInUse() === 1;
  console.log(
    `${game} ${dealArg} cap ${capArg} MiB ${used ? 'layered' : 'full'}: ${out.verdict}` +
      `${out.verdict === 'unknown' ? ` (${out.reason})` : ''}${out.verdict === 'solved' ? ` ${out.moves.length} moves` : ''}, stored ${stored}, expanded ${expanded}, ` +
      `memory ${(memoryBytes / 2 ** 20).toFixed(1)} MiB, ` +
      (used ? `peak live ${raw.layeredPeakLive()}, live at end ${raw.layeredLiveAtEnd()}, purges ${raw.layeredPurges()}, violations ${raw.layeredViolations()}, ` : '') +
      `cpu ${cpuS.toFixed(2)} s`,
  );
  if (used) {
    // layers are (M, group): 32 groups a value of M (assembly/layers.ts GROUPS)
    const rows: string[] = [];
    for (let m = 0; m < 128; m++) {
      let n = 0;
      let most = 0;
      for (let g = 0; g < 32; g++) {
        const c = raw.layerCount(m * 32 + g) >>> 0;
        n += c;
        most = Math.max(most, c);
      }
      if (n > 0) rows.push(`${m}:${n}/${most}`);
    }
    console.log(`  M:positions/largest group ${rows.join(' ')}`);
  }
}

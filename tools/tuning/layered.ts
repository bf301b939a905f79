/**
 * The layered complete pass (assembly/layers.ts) against the full search on
 * the compact layout, in one engine: each deal solved with the layered pass
 * on and off (or one of them), printing the verdict, positions stored and
 * expanded, the layered pass's peak live positions (keys held at once),
 * purges, engine memory, CPU seconds, and the layer histogram (positions per
 * value of M, and in the largest of its groups). `sharded` runs the layered
 * pass over K engines (client-sdk/core/sharded-layers.ts; K from the cap, or
 * given) and prints each shard's counters too. A development tool
 * (docs/engine.md, "The layered pass"); not a test.
 *
 *   npx tsx tools/tuning/layered.ts beleaguered_castle 954 [capMiB=4095] [maxStates=2000000000] [both|layered|full|sharded] [shards] [batch=256]
 *
 * The deadline is the deep budget's, 30 minutes (LAYERED_TIMEOUT_MS overrides it).
 */
import { parseArgs } from 'node:util';
import { Engine, loadEngineModule } from '../../client-sdk/core/engine/index.js';
import { solveLayeredSharded } from '../../client-sdk/core/sharded-layers.js';
import { resolveDeal } from '../../client-sdk/api/request.js';

const { positionals } = parseArgs({ allowPositionals: true, options: {} });
const [game = 'beleaguered_castle', dealArg = '1', capArg = '4095', maxArg = '2000000000', which = 'both', shardsArg, batchArg = '256'] = positionals;
const deal = resolveDeal({ game, deal: Number(dealArg) } as Parameters<typeof resolveDeal>[0]);
const cap = Number(capArg) * 1024 * 1024;
const timeoutMs = Number(process.env.LAYERED_TIMEOUT_MS ?? 1_800_000);

/** Positions per value of M and in its largest group, from per-layer counts (32 groups a value of M: assembly/layers.ts GROUPS). */
function histogram(count: (layer: number) => number): string {
  const rows: string[] = [];
  for (let m = 0; m < 128; m++) {
    let n = 0;
    let most = 0;
    for (let g = 0; g < 32; g++) {
      const c = count(m * 32 + g);
      n += c;
      most = Math.max(most, c);
    }
    if (n > 0) rows.push(`${m}:${n}/${most}`);
  }
  return `  M:positions/largest group ${rows.join(' ')}`;
}

if (which === 'sharded') {
  const module = await loadEngineModule();
  const cpu0 = process.cpuUsage();
  const out = solveLayeredSharded(module, deal, { maxStates: Number(maxArg), timeoutMs }, {
    memoryLimitBytes: cap,
    ...(shardsArg ? { shards: Number(shardsArg) } : {}),
    batch: Number(batchArg),
    progress: { intervalMs: 60_000, onProgress: (p) => console.error(`  ${(p.elapsedMs / 1000).toFixed(0)} s: stored ${p.statesStored}, expanded ${p.statesExpanded}, memory ${(p.memoryBytes / 2 ** 20).toFixed(0)} MiB`) },
  });
  const cpu = process.cpuUsage(cpu0);
  const { statesStored: stored, statesExpanded: expanded, memoryBytes } = out.stats;
  console.log(
    `${game} ${dealArg} cap ${capArg} MiB sharded K=${out.detail.shards} batch ${batchArg}: ${out.verdict}` +
      `${out.verdict === 'unknown' ? ` (${out.reason})` : ''}${out.verdict === 'solved' ? ` ${out.moves.length} moves` : ''}, stored ${stored}, expanded ${expanded}, ` +
      `memory ${(memoryBytes / 2 ** 20).toFixed(1)} MiB, peak live (sum of shards) ${out.layered?.peakLive}, cpu ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s`,
  );
  out.detail.perShard.forEach((p, s) =>
    console.log(`  shard ${s}: stored ${p.stored}, expanded ${p.expanded}, peak live ${p.peakLive}, live at end ${p.liveAtEnd}, memory ${(p.memoryBytes / 2 ** 20).toFixed(1)} MiB, purges ${p.purges}, forwarded ${p.forwarded} in ${p.calls} calls`),
  );
  console.log(histogram((l) => out.detail.layerCounts[l]));
} else {
  const engine = await Engine.create();
  const raw = engine.moduleExports() as Record<string, (...a: number[]) => number>;
  for (const layered of which === 'both' ? [true, false] : [which === 'layered']) {
    const cpu0 = process.cpuUsage();
    const out = engine.solve(deal, { limits: { maxStates: Number(maxArg), timeoutMs, layered }, memoryLimitBytes: cap });
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
    if (used) console.log(histogram((l) => raw.layerCount(l) >>> 0));
  }
}

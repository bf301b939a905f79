/**
 * Prints the self time by function of a V8 `.cpuprofile` (Chrome's format):
 * `node bench/cpuprofile-top.ts FILE [N]`, the N (default 30) largest, as
 * ms and share of all samples. Plain Node, no dependencies.
 */
import { readFileSync } from 'node:fs';

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }
const [file, n = '30'] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map<string, number>();
for (let i = 0; i < profile.samples.length; i++) {
  const node = byId.get(profile.samples[i])!;
  const f = node.callFrame;
  const key = `${f.functionName || '(anon)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
console.log(`${file}: ${(total / 1000).toFixed(0)} ms sampled`);
for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) {
  console.log(`${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / total).toFixed(1).padStart(5)} %  ${key}`);
}

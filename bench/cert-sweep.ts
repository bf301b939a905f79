/**
 * Certificate sweep: solves each deal of a PySolFC range with a state cap,
 * builds the certificate of every `unsolvable` (v1, in memory) and checks it
 * with the independent checker (`checkCertificate`, as `check-proof`).
 * Prints every failure and one summary line: unsolvable deals, certificates
 * checked and passed, deals the cap left undecided, positions checked, CPU
 * seconds. No pooled pass (poolings: []), so each verdict is the full
 * search's. A development tool for issue #15's "every unsolvable with a
 * certificate that check-proof passes"; not a test.
 *
 *   npx tsx bench/cert-sweep.ts citadel 1 1000 1000000
 *   npx tsx bench/cert-sweep.ts streets_and_alleys 1 1000 30000000   # the default budget's cap: hours
 */
import { Engine } from '../client-sdk/core/engine.js';
import { resolveDeal } from '../client-sdk/api/request.js';
import { solveWithProof } from '../client-sdk/core/proof/writer.js';
import { checkCertificate } from '../client-sdk/core/proof/check.js';
const [game, fromA, toA, capA] = process.argv.slice(2);
const cap = Number(capA);
const engine = await Engine.create();
let unsolvable = 0, checked = 0, passed = 0, skipped = 0, positions = 0;
const undecided: string[] = [];
const t0 = process.cpuUsage();
for (let n = Number(fromA); n <= Number(toA); n++) {
  const deal = resolveDeal({ game, deal: n } as Parameters<typeof resolveDeal>[0]);
  const out = solveWithProof(engine, deal, { maxStates: cap, timeoutMs: 60_000 }, { proof: { certificate: true, maxPositions: cap, maxBytes: Number.MAX_SAFE_INTEGER, game, deal: { number: String(n), numbering: 'pysolfc' } }, poolings: [] });
  if (out.verdict !== 'unsolvable') { if (out.verdict === 'unknown') { skipped++; undecided.push(`${n} (${out.reason}, ${out.stats.statesStored} positions)`); } continue; }
  unsolvable++;
  const c = out.proof?.certificate;
  if (!c || !c.included) { skipped++; undecided.push(`${n} (unsolvable, certificate over the cap)`); continue; }
  const r = checkCertificate(c.certificate);
  checked++; positions += out.proof!.positions;
  if (r.ok) passed++; else console.log(`FAIL ${game} ${n}: ${r.code} ${r.reason}`);
}
const cpu = process.cpuUsage(t0);
console.log(`${game} ${fromA}..${toA} cap ${cap}: unsolvable ${unsolvable}, certificates checked ${checked}, PASS ${passed}, not decided within the cap ${skipped}, positions checked ${positions}, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s`);
if (undecided.length > 0) console.log(`not decided within the cap: ${undecided.join(', ')}`);

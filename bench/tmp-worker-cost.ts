import { buildSolveResponse, resolveDeal } from '../client-sdk/api/request.js';
import { Engine, loadEngineModule } from '../client-sdk/core/engine/index.js';
import { solveWithProof } from '../client-sdk/core/proof/writer.js';
const engine = Engine.instantiate(await loadEngineModule());
const limits = { maxStates: 5_000_000, timeoutMs: 30_000 };
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const reqs = Array.from({ length: 1000 }, (_, i) => ({ game: 'freecell', deal: i + 1, numbering: 'ms' as const }));
const enc = new TextEncoder();
for (let round = 0; round < 3; round++) {
  let t = cpu(); const deals = reqs.map((r) => resolveDeal(r)); const tDeal = cpu() - t;
  t = cpu(); const outs = deals.map((d) => solveWithProof(engine, d, limits, {})); const tSolve = cpu() - t;
  const sink = { moves: undefined as Uint8Array | undefined };
  t = cpu(); for (const d of deals) { solveWithProof(engine, d, limits, { packedSolution: sink }); } const tSolvePacked = cpu() - t;
  t = cpu(); let bytes = 0; for (let i = 0; i < deals.length; i++) bytes += enc.encode(JSON.stringify(buildSolveResponse('freecell', deals[i], limits, outs[i]))).length; const tResp = cpu() - t;
  console.log(`ms/deal: deal ${(tDeal / 1000).toFixed(4)} solve(objects) ${(tSolve / 1000).toFixed(4)} solve(packed) ${(tSolvePacked / 1000).toFixed(4)} response ${(tResp / 1000).toFixed(4)} (${(bytes / 1000).toFixed(0)} B avg)`);
}
{
  const { formatBoard } = await import('../client-sdk/core/board.js');
  const { toStandardNotation, toFcsMoves } = await import('../client-sdk/core/notation.js');
  const deals = reqs.map((r) => resolveDeal(r));
  const outs = deals.map((d) => solveWithProof(engine, d, limits, {}));
  for (let round = 0; round < 3; round++) {
    let t = cpu(); for (const d of deals) formatBoard(d.layout, d.rules); const tBoard = cpu() - t;
    t = cpu(); for (let i = 0; i < deals.length; i++) toStandardNotation(outs[i].moves, deals[i].rules); const tNot = cpu() - t;
    t = cpu(); for (let i = 0; i < deals.length; i++) toFcsMoves(outs[i].moves); const tFcs = cpu() - t;
    const resp = deals.map((d, i) => buildSolveResponse('freecell', d, limits, outs[i]));
    t = cpu(); const texts = resp.map((r) => JSON.stringify(r)); const tJson = cpu() - t;
    t = cpu(); for (const s of texts) enc.encode(s); const tEnc = cpu() - t;
    t = cpu(); for (const s of texts) Buffer.from(s); const tBuf = cpu() - t;
    console.log(`ms/deal: board ${(tBoard / 1000).toFixed(4)} notation ${(tNot / 1000).toFixed(4)} fcs ${(tFcs / 1000).toFixed(4)} stringify ${(tJson / 1000).toFixed(4)} encode ${(tEnc / 1000).toFixed(4)} Buffer.from ${(tBuf / 1000).toFixed(4)}`);
  }
}
{
  const deals = reqs.map((r) => resolveDeal(r));
  const outs = deals.map((d) => solveWithProof(engine, d, limits, {}));
  const resp = deals.map((d, i) => buildSolveResponse('freecell', d, limits, outs[i]));
  for (let round = 0; round < 3; round++) {
    let t = cpu(); for (const r of resp) JSON.stringify(r.moves); const tMoves = cpu() - t;
    t = cpu(); for (const r of resp) JSON.stringify(r.notation); const tNot = cpu() - t;
    t = cpu(); for (const r of resp) JSON.stringify(r.fcsMoves); const tFcs = cpu() - t;
    t = cpu(); for (const r of resp) JSON.stringify({ ...r, moves: [], notation: [], fcsMoves: [] }); const tRest = cpu() - t;
    const copies = resp.map((r) => r.moves.map((m) => ({ from: m.from, fromIndex: m.fromIndex, to: m.to, toIndex: m.toIndex, count: m.count, card: m.card, auto: m.auto })));
    t = cpu(); for (const c of copies) JSON.stringify(c); const tCopies = cpu() - t;
    console.log(`stringify ms/deal: moves ${(tMoves / 1000).toFixed(4)} (fresh literal objects ${(tCopies / 1000).toFixed(4)}) notation ${(tNot / 1000).toFixed(4)} fcs ${(tFcs / 1000).toFixed(4)} rest ${(tRest / 1000).toFixed(4)}`, Object.keys(resp[0].moves[0]));
  }
}

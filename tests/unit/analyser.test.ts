/**
 * The analyser (client-sdk/sdk/analyser.ts) with its worker side
 * (analysis-worker.ts) in a Node worker thread, as a page runs them in a
 * Web Worker: answers in order, the verdict before the shortened one, a
 * loss search, a stop of a queued request and of the running one (the
 * worker is ended and the next request starts another), and an error
 * carried back with its code.
 */
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveDeal } from '../../client-sdk/api/request.js';
import type { SolveRequest } from '../../client-sdk/api/schemas.js';
import { Game, Position } from '../../client-sdk/core/play.js';
import { createAnalyser, type WorkerLike } from '../../client-sdk/sdk/analyser.js';
import type { AnalysisReply, AnalysisRequest } from '../../client-sdk/sdk/analysis-worker.js';

const threads: Worker[] = [];
/** tsx's ESM API by its file URL: the thread registers it before it imports the TypeScript file (`--import tsx` in `execArgv` does not reach a thread's own entry). */
const TSX_API = import.meta.resolve('tsx/esm/api');

/** A worker thread running `serveAnalysis`, seen through the `Worker` interface the analyser takes. */
function thread(): WorkerLike {
  const file = new URL('../helpers/analysis-worker-thread.ts', import.meta.url).href;
  const w = new Worker(`import(${JSON.stringify(TSX_API)}).then(({ register }) => { register(); return import(${JSON.stringify(file)}); })`, { eval: true });
  threads.push(w);
  return {
    postMessage: (m: AnalysisRequest) => w.postMessage(m),
    addEventListener: ((type: 'message' | 'error', listener: (e: { data?: AnalysisReply; message?: string }) => void) => {
      if (type === 'message') w.on('message', (data: AnalysisReply) => listener({ data }));
      else w.on('error', (err: Error) => listener({ message: err.message }));
    }) as WorkerLike['addEventListener'],
    terminate: () => void w.terminate(),
  };
}

afterAll(async () => {
  await Promise.all(threads.map((t) => t.terminate()));
});

const position = (deal: number) => Position.of(resolveDeal({ game: 'freecell', deal, numbering: 'ms' } as SolveRequest));

describe('createAnalyser with its worker', () => {
  it('answers in order, the verdict first, and finds the losing move', async () => {
    let spawned = 0;
    const analyser = createAnalyser({ worker: () => (spawned++, thread()) });
    const early: string[] = [];
    const [a617, a11982] = await Promise.all([
      analyser.analyse('freecell', position(617), { onDecided: (a) => early.push(a.verdict) }),
      analyser.analyse('freecell', position(11982)),
    ]);
    expect(early).toEqual(['winnable']);
    expect(a617).toMatchObject({ verdict: 'winnable', stats: { limits: { maxStates: 1_000_000, timeoutMs: 4000 } } });
    expect(a11982).toMatchObject({ verdict: 'lost', proofPositions: 61643 });
    const game = Game.replay(position(1), '1a 2b 3c 4d');
    expect(await analyser.findLoss('freecell', game, { from: 2 })).toMatchObject({ result: 'lost', moveIndex: 3, notation: '4d' });
    expect(spawned).toBe(1);
    analyser.close();
  }, 60_000);

  it('stops a queued request and the running one; the next request gets a new worker', async () => {
    let spawned = 0;
    const analyser = createAnalyser({ worker: () => (spawned++, thread()) });
    // Streets and Alleys 77: undecided after 3 s and 1,000,000 positions (a long search under this budget)
    const hard = Position.of(resolveDeal({ game: 'streets_and_alleys', deal: 77 } as SolveRequest));
    const stopRunning = new AbortController();
    const stopQueued = new AbortController();
    const running = analyser.analyse('streets_and_alleys', hard, { signal: stopRunning.signal, limits: { maxStates: 30_000_000, timeoutMs: 60_000 } });
    const queued = analyser.analyse('freecell', position(617), { signal: stopQueued.signal });
    await new Promise((r) => setTimeout(r, 1500));
    stopQueued.abort();
    await expect(queued).rejects.toMatchObject({ name: 'AbortError' });
    const t = performance.now();
    stopRunning.abort();
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
    expect(performance.now() - t).toBeLessThan(1000);
    expect(await analyser.analyse('freecell', position(617))).toMatchObject({ verdict: 'winnable' });
    expect(spawned).toBe(2);
    analyser.close();
  }, 60_000);

  it("carries the worker's error back with its code", async () => {
    const analyser = createAnalyser({ worker: thread });
    const p = position(617);
    await expect(analyser.analyse('no_such_game', p)).rejects.toMatchObject({ code: 'unknown_game' });
    await expect(analyser.analyse('freecell', p, { limits: { maxStates: -5 } })).rejects.toMatchObject({ code: 'bad_limits' });
    analyser.close();
  }, 60_000);
});

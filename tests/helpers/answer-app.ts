/**
 * The app the answer fixture is recorded from and checked against
 * (tests/helpers/answer-fixture.ts): the service's routes on a real pool of
 * two workers, which builds each answer on the worker that solved it
 * (`SolverPool.solveRequest`), with no helper pass (its race would make a
 * Castle verdict depend on timing) and the shortening's beams capped in
 * width. With `progress`, every solve also writes progress reports (the
 * CLI's two-thread solve asks for them), which must not change an answer.
 */
import { loadEngineModule } from '../../client-sdk/core/engine/index.js';
import { createApp } from '../../server/app.js';
import { createPool } from '../../server/pool.js';
import { newProgressSlots } from '../../server/pool/progress.js';
import { OPTIMIZE_MAX_WIDTH, type AnswerApp } from './answer-fixture.js';

/** The app and how to close its pool. */
export async function answerFixtureApp(options: { progress?: boolean } = {}): Promise<{ app: AnswerApp; close: () => Promise<void> }> {
  const pool = createPool({ module: await loadEngineModule(), threads: 2, maxQueue: 64, helperPassAfterMs: 0 });
  const app = createApp({
    solve: pool.solve,
    solveRequest: (job, signal) =>
      pool.solveRequest(
        {
          ...job,
          ...(job.optimize ? { optimize: { ...job.optimize, maxWidth: OPTIMIZE_MAX_WIDTH } } : {}),
          ...(options.progress ? { progress: newProgressSlots(2) } : {}),
        },
        signal,
      ),
    webRoot: null,
  });
  return { app, close: () => pool.close() };
}

/**
 * A solver worker that profiles itself (bench/pool-profile.ts): the real
 * worker (server/pool-worker.ts) run under a V8 CPU profile started through an
 * inspector Session in this thread. A task whose deal carries `profileOut`
 * (a file path) stops the profile, writes it there (`.cpuprofile`, Chrome's
 * format) and answers `unknown`/`cancelled`. Piscina ends its threads without
 * running `--cpu-prof`'s exit hook, hence this.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import solveTask, { type MovedResult } from '../server/pool-worker.js';
import { answerFor, cancelledOutcome, type SolveTask, type SolveTaskResult } from '../server/worker-protocol.js';

const session = new Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.setSamplingInterval', { interval: 100 });
session.post('Profiler.start');

/** The real worker's `solveTask`, or the profile's end for a task whose deal has `profileOut`. */
export default function profiledTask(task: SolveTask): SolveTaskResult | MovedResult | Promise<SolveTaskResult> {
  // a plain deal comes packed (no task.deal); the profile-stop task has an extra field, so it comes as an object
  const out = (task.deal as { profileOut?: string } | undefined)?.profileOut;
  if (out === undefined) return solveTask(task);
  return new Promise((resolve, reject) => {
    session.post('Profiler.stop', (err, result) => {
      if (err) return reject(err);
      writeFileSync(out, JSON.stringify(result.profile));
      resolve(answerFor(cancelledOutcome()));
    });
  });
}

/**
 * The pool's queue of jobs waiting for a worker: by class (interactive,
 * then background, then batch: job.ts `CLASS_RANK`), and within a class in
 * submission order. This is where "batches yield to single solves" is
 * decided, for both batch backends alike: a batch job starts only when no
 * job of a higher class waits, and a running batch share gives its worker
 * up after its deal as soon as one does (the count it reads is
 * `aboveBatches`, published in the pool's shared flags).
 */
import { CLASS_RANK, type Job, type JobClass } from './job.js';

/** True when two limits are the same budgets, so that their jobs may share a task. */
function sameLimits(a: Job['spec']['limits'], b: Job['spec']['limits']): boolean {
  return a === b || (a.maxStates === b.maxStates && a.timeoutMs === b.timeoutMs && a.layered === b.layered && a.guided === b.guided);
}

/** Jobs waiting for a worker (see the file comment). */
export class JobQueue {
  readonly #lists: Job[][] = [[], [], [], []];

  /** Jobs waiting, of `cls` or of every class. */
  size(cls?: JobClass): number {
    if (cls !== undefined) return this.#lists[CLASS_RANK[cls]].length;
    let n = 0;
    for (const list of this.#lists) n += list.length;
    return n;
  }

  /** Jobs waiting that rank above batches (a running batch share gives its worker up to them). */
  aboveBatches(): number {
    return this.#lists[CLASS_RANK.interactive].length + this.#lists[CLASS_RANK.background].length;
  }

  /** Puts `job` in line: at its place by submission (a job handed back after a lost task keeps its turn). */
  push(job: Job): void {
    const list = this.#lists[CLASS_RANK[job.spec.cls]];
    let at = list.length;
    while (at > 0 && list[at - 1].seq > job.seq) at--;
    list.splice(at, 0, job);
  }

  /** The next job to start (highest class, oldest), taken out of the queue. */
  shift(): Job | undefined {
    for (const list of this.#lists) if (list.length > 0) return list.shift();
    return undefined;
  }

  /** The next job of `cls` to start, taken out; undefined when none waits. */
  shiftOf(cls: JobClass): Job | undefined {
    return this.#lists[CLASS_RANK[cls]].shift();
  }

  /** The oldest waiting job of `cls`, left in the queue. */
  first(cls: JobClass): Job | undefined {
    return this.#lists[CLASS_RANK[cls]][0];
  }

  /** Takes `job` out of the queue; false when it was not there. */
  remove(job: Job): boolean {
    const list = this.#lists[CLASS_RANK[job.spec.cls]];
    const at = list.indexOf(job);
    if (at < 0) return false;
    list.splice(at, 1);
    return true;
  }

  /**
   * Grouping: the groupable jobs right behind `head` (just shifted) that may
   * share its task: of its class, with the same budgets and answer mode, not
   * handed back after a lost task; at most `cap - 1`, taken out in order, and
   * none past the first that does not fit (the queue keeps its order).
   */
  takeFollowers(head: Job, cap: number): Job[] {
    const out: Job[] = [];
    const list = this.#lists[CLASS_RANK[head.spec.cls]];
    while (out.length < cap - 1 && list.length > 0) {
      const next = list[0];
      if (!next.spec.groupable || next.retried || next.spec.answer !== head.spec.answer || !sameLimits(next.spec.limits, head.spec.limits)) break;
      out.push(list.shift()!);
    }
    return out;
  }

  /** Every waiting job, taken out (closing). */
  drainAll(): Job[] {
    return this.#lists.flatMap((list) => list.splice(0));
  }

  /** Every waiting job, in queue order (for the deadline sweep). */
  *all(): Generator<Job> {
    for (const list of this.#lists) yield* [...list];
  }
}

/**
 * What crosses the thread boundary between the pool (`pool.ts`) and a solver
 * worker (`pool-worker.ts`): structured-clonable plain data only.
 *
 * Errors travel as data (`TaskFailure`), not as thrown objects: structured
 * cloning keeps an Error's message but drops its `code`, and the service needs
 * the code to choose the HTTP status.
 */
import { threadId } from 'node:worker_threads';
import { SolverError, type ErrorCode, type ErrorLocation } from '../client-sdk/core/errors.js';
import type { ProofRequest } from '../client-sdk/core/proof/format.js';
import { PACKED_MOVE_BYTES, packMoves, packMovesInto, unpackMoves } from '../client-sdk/core/moves.js';
import type { Deal, Rules } from '../client-sdk/core/rules.js';
import { UNKNOWN_REASONS, VERDICTS, type SolveLimits, type SolveOutcome } from '../client-sdk/core/solve-types.js';
import type { ShortenOptions } from '../client-sdk/core/shorten.js';
import type { SuitPools } from '../client-sdk/core/pools.js';

/** Index of the stop flag in `SolveTask.stop`. Nonzero = stop now (reason `cancelled`). */
export const STOP_INDEX = 0;

/**
 * Index of the retire request in `SolveTask.stop`: 0, or the `threadId` of a
 * worker whose engine memory grew past `SolveTask.recycleMemoryBytes` during
 * this task (written by the worker before it answers; the pool then gives
 * that worker no further task and replaces it).
 */
export const RETIRE_INDEX = 1;

/**
 * Index of the pooled-pass claim in `SolveTask.stop` (bytes 16-19): who runs
 * the pooled pass of a Castle-family solve (client-sdk/core/proof/writer.ts).
 * 0 = nobody yet; `POOLED_HERE` = the task's own worker, after its full search
 * ended `unknown`; `POOLED_ELSEWHERE` = the pool gave the pass to another
 * worker while the full search still ran (SolverPool's helper pass). Each side
 * claims it with `Atomics.compareExchange` from 0, so the pass runs once.
 */
export const POOLED_CLAIM_INDEX = 4;
/**
 * Index of the running worker's `threadId` in `SolveTask.stop` (bytes
 * 20-23): 0 while the task waits, written by `markStarted`. The pool
 * terminates that thread when the task does not stop `stopGraceMs` after its
 * stop flag was set (server/pool.ts), instead of giving Piscina an
 * AbortSignal a task.
 */
export const RUNNING_ON_INDEX = 5;
/**
 * `RUNNING_ON_INDEX` value written by the pool (`withdraw`): the deal was
 * cancelled before a worker began it, and no worker may begin it now
 * (`markStarted` refuses); the pool has answered it `cancelled` already.
 */
export const WITHDRAWN = -1;
/**
 * Index of the end mark in `SolveTask.stop` (bytes 24-27): 1 once the worker
 * is done with this deal, written only for a deal of a group
 * (`SolveTask.stops`), whose answer comes with the group's, maybe much later.
 * The pool then knows the deal stopped and terminates no worker for it.
 */
export const ENDED_INDEX = 6;
/** `POOLED_CLAIM_INDEX` value: the task's own worker runs the pooled pass. */
export const POOLED_HERE = 1;
/** `POOLED_CLAIM_INDEX` value: another worker runs the pooled pass; the task's worker skips it. */
export const POOLED_ELSEWHERE = 2;

/**
 * Byte layout of a task's SharedArrayBuffer: the Int32 stop flag at index
 * `STOP_INDEX` (written by the pool, polled by the engine), the Int32 retire
 * request at index `RETIRE_INDEX` (bytes 4-7, written by the worker), at byte
 * `STARTED_AT_BYTE` a Float64 with the `Date.now()` at which the worker began
 * the search (0 while the task waits in the queue), read by the pool's
 * deadline backstop, the Int32 pooled-pass claim at index
 * `POOLED_CLAIM_INDEX` (bytes 16-19), the Int32 `threadId` of the worker
 * running it at index `RUNNING_ON_INDEX` (bytes 20-23; `WITHDRAWN` when the
 * pool took back a cancelled deal not yet begun), and the Int32 end mark of a
 * grouped deal at index `ENDED_INDEX` (bytes 24-27).
 */
export const FLAGS_BYTES = 28;
export const STARTED_AT_BYTE = 8;

/**
 * Claims the pooled pass of the task whose flags are `stop` for `who`
 * (`POOLED_HERE` or `POOLED_ELSEWHERE`). True when the claim is `who`'s now
 * (it was free, or already `who`'s); false when the other side has it. Flags
 * too short to hold the claim (a caller's own stop flag) always give true to
 * `POOLED_HERE`: no one else can run the pass then.
 */
export function claimPooledPass(stop: Int32Array, who: typeof POOLED_HERE | typeof POOLED_ELSEWHERE): boolean {
  if (stop.length <= POOLED_CLAIM_INDEX) return who === POOLED_HERE;
  const before = Atomics.compareExchange(stop, POOLED_CLAIM_INDEX, 0, who);
  return before === 0 || before === who;
}

/**
 * Records in the task's flags that the search begins now, on this thread
 * (called by the worker; a task of several deals keeps its first deal's
 * start): this thread's `threadId` at `RUNNING_ON_INDEX`, claimed with a
 * compare-exchange against the pool's `withdraw`, and the start time at
 * `STARTED_AT_BYTE`. Flags shorter than `FLAGS_BYTES` (a caller's own stop
 * flag) get nothing.
 * @returns false when the pool withdrew the deal (cancelled before it
 *   began, and answered already): the worker must not search it. True otherwise.
 */
export function markStarted(stop: Int32Array): boolean {
  if (stop.buffer.byteLength < FLAGS_BYTES) return true;
  const before = Atomics.compareExchange(stop, RUNNING_ON_INDEX, 0, threadId);
  if (before === WITHDRAWN) return false;
  const startedAt = new Float64Array(stop.buffer, STARTED_AT_BYTE, 1);
  if (startedAt[0] === 0) startedAt[0] = Date.now();
  return true;
}

/**
 * The pool's side of `markStarted`: takes back a deal that no worker has
 * begun (its `RUNNING_ON_INDEX` still 0), so that none will (pool side, after
 * setting its stop flag).
 * @returns true when withdrawn (the pool may answer it now); false when a
 *   worker began it already (it stops at its next poll of the stop flag).
 */
export function withdraw(stop: Int32Array): boolean {
  return Atomics.compareExchange(stop, RUNNING_ON_INDEX, 0, WITHDRAWN) === 0;
}

/**
 * A progress slot (`SolveTask.progress`): PROGRESS_FIELDS Float64 values over
 * a SharedArrayBuffer that the worker writes at each of the engine's progress
 * reports (client-sdk/core/engine/poll.ts `ProgressOptions`, at most one a second)
 * and that another thread reads when it likes (the CLI's progress bars,
 * server/cli/two-threads.ts). Each value is written whole; a reader may see
 * one report's positions beside the previous report's memory, which is fine
 * for a display and for nothing else. Field indices:
 * - `PROGRESS_REPORTS`: reports so far (0: none yet);
 * - `PROGRESS_STORED`, `PROGRESS_EXPANDED`: positions stored and expanded by the
 *   search now running (a pooled pass restarts them at each pooling);
 * - `PROGRESS_MEMORY`: its engine memory, bytes;
 * - `PROGRESS_STARTED_AT`: `Date.now()` when the worker began the task, ms;
 * - `PROGRESS_POOLING`: -1 for the real game, else the index in
 *   `POOLINGS_TO_TRY` (client-sdk/core/pools.ts) of the pooling searched now
 *   (-2 for a pooling not in that list; `PROGRESS_GUIDED`, -3, while the
 *   guided pass runs, its stored and expanded counts both the positions its
 *   beams expanded).
 */
export const PROGRESS_REPORTS = 0;
export const PROGRESS_STORED = 1;
export const PROGRESS_EXPANDED = 2;
export const PROGRESS_MEMORY = 3;
export const PROGRESS_STARTED_AT = 4;
export const PROGRESS_POOLING = 5;
/** `PROGRESS_POOLING` while the slot's search is the guided pass (client-sdk/core/guided.ts). */
export const PROGRESS_GUIDED = -3;
/** Float64 values in one progress slot. */
export const PROGRESS_FIELDS = 6;

/**
 * `count` progress slots over one SharedArrayBuffer, all zero but
 * `PROGRESS_POOLING` (-1); slot i is `progressSlot(slots, i)`.
 * @throws RangeError when `count` is not a positive integer.
 */
export function newProgressSlots(count: number): Float64Array {
  if (!(Number.isInteger(count) && count >= 1)) throw new RangeError(`count must be a positive integer, got ${count}`);
  const slots = new Float64Array(new SharedArrayBuffer(count * PROGRESS_FIELDS * Float64Array.BYTES_PER_ELEMENT));
  for (let i = 0; i < count; i++) slots[i * PROGRESS_FIELDS + PROGRESS_POOLING] = -1;
  return slots;
}

/**
 * Slot `index` of `slots` (a view on the same shared memory, PROGRESS_FIELDS long).
 * @throws RangeError when `slots` has no slot `index`.
 */
export function progressSlot(slots: Float64Array, index: number): Float64Array {
  if (!(Number.isInteger(index) && index >= 0 && (index + 1) * PROGRESS_FIELDS <= slots.length)) {
    throw new RangeError(`no progress slot ${index} in ${slots.length / PROGRESS_FIELDS} slots`);
  }
  return slots.subarray(index * PROGRESS_FIELDS, (index + 1) * PROGRESS_FIELDS);
}

/**
 * Deals as they cross to a worker (`packDeals`): the distinct rules as JSON
 * text (equal rules objects share one), and for each deal in turn, in
 * `bytes`, the index of its rules, the
 * number of columns, each column's length, the columns' cards (bottom
 * first), the number of free cells, each cell's card (255: empty) and the
 * four foundations. Cloning two strings and one byte array costs a fraction
 * of cloning the layout's arrays field by field (docs/engine.md "Pool
 * scaling" as kept in git at 1eca5a0).
 */
export interface PackedDeals {
  rules: string[];
  bytes: Uint8Array;
  /** How many deals `bytes` holds. */
  count: number;
  /** A task of several deals (`SolverPool.solveMany`), even for one: kept on the wire for the fixture workers; every answer crosses packed alike (`PackedAnswers`). */
  many: boolean;
}

/** Byte of an empty free cell in `PackedDeals.bytes`. */
const EMPTY_CELL = 255;

/** True when `o` is an object with exactly `n` enumerable keys (a deal or layout with nothing more to carry). */
function hasKeys(o: object, n: number): boolean {
  let k = 0;
  for (const _ in o) k++;
  return k === n;
}

/** True when `a` and `b` are equal JSON values (primitives, arrays, plain objects: same keys in the same order), as their JSON texts would be. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    if (ka[i] !== kb[i] || !sameJson((a as Record<string, unknown>)[ka[i]], (b as Record<string, unknown>)[kb[i]])) return false;
  }
  return true;
}

/** True when every value is an integer from 0 to 254 (one byte, 255 kept for an empty cell). */
function bytesOk(values: readonly (number | null)[], nullable: boolean): boolean {
  for (const v of values) {
    if (v === null ? !nullable : !(Number.isInteger(v) && v >= 0 && v < EMPTY_CELL)) return false;
  }
  return true;
}

/**
 * `deals` as `PackedDeals`, or undefined when one of them does not fit the
 * format (more than the plain `rules` and `layout`, e.g. a test fixture's
 * fields; a value that is not a byte; more than 254 columns or distinct
 * rules): the caller then sends the objects as they are.
 * @param many answer as a task of several deals (`SolverPool.solveMany`).
 *   The bytes of such a run are then in shared memory: each of its shares
 *   (one a worker) reads them there, where a plain buffer would be cloned
 *   into every share's task.
 */
export function packDeals(deals: readonly Deal[], many: boolean): PackedDeals | undefined {
  const rules: string[] = [];
  const ruleOf = new Map<Rules, number>();
  const textOf = new Map<string, number>();
  let last: Rules | undefined;
  let size = 0;
  for (const deal of deals) {
    const layout = deal.layout;
    if (!hasKeys(deal, 2) || typeof layout !== 'object' || layout === null || !hasKeys(layout, 3)) return undefined;
    const { columns, freeCells, foundations } = layout;
    if (!Array.isArray(columns) || !Array.isArray(freeCells) || !Array.isArray(foundations) || foundations.length !== 4) return undefined;
    if (columns.length >= EMPTY_CELL || freeCells.length >= EMPTY_CELL) return undefined;
    for (const column of columns) if (!Array.isArray(column) || column.length >= EMPTY_CELL || !bytesOk(column, false)) return undefined;
    if (!bytesOk(freeCells, true) || !bytesOk(foundations, false)) return undefined;
    if (!ruleOf.has(deal.rules)) {
      // deals dealt one by one each have their own rules object, most often equal to the one before: one text for them all
      if (last !== undefined && sameJson(last, deal.rules)) {
        ruleOf.set(deal.rules, ruleOf.get(last)!);
      } else {
        const text = JSON.stringify(deal.rules);
        let index = textOf.get(text);
        if (index === undefined) {
          if (rules.length >= EMPTY_CELL - 1) return undefined;
          index = rules.length;
          textOf.set(text, index);
          rules.push(text);
        }
        ruleOf.set(deal.rules, index);
      }
    }
    last = deal.rules;
    size += 3 + columns.length + freeCells.length + 4;
    for (const column of columns) size += column.length;
  }
  const bytes = new Uint8Array(many ? new SharedArrayBuffer(size) : new ArrayBuffer(size));
  let o = 0;
  for (const deal of deals) {
    const { columns, freeCells, foundations } = deal.layout;
    bytes[o++] = ruleOf.get(deal.rules)!;
    bytes[o++] = columns.length;
    for (const column of columns) bytes[o++] = column.length;
    for (const column of columns) for (const card of column) bytes[o++] = card;
    bytes[o++] = freeCells.length;
    for (const cell of freeCells) bytes[o++] = cell ?? EMPTY_CELL;
    for (const f of foundations) bytes[o++] = f;
  }
  return { rules, bytes, count: deals.length, many };
}

/**
 * Runs `solveOne` on each deal of `task`, however the deals crossed: packed
 * (`packDeals`), as `task.deals` (several), or as `task.deal` (one, which a
 * malformed task may lack: `solveOne` then gets undefined). `solveOne` gets
 * the deal and its flags (`task.stops[i]` for a group of single solves, else
 * `task.stop`) and gives the deal's outcome as the engine returned it (its
 * moves as objects), or a `SolveAnswer` (`answerFor`, or a failure `{ok:
 * false}`). A deal of a group gets its end mark (`ENDED_INDEX`) once
 * `solveOne` returns. The task's answer is every deal's, in order, in one
 * `PackedAnswers` (`{ok: true, packed}`), for one deal as for several. The
 * real worker (server/pool-worker.ts) and the tests' fixture workers share this dispatch.
 * @throws RangeError when `task.stops` does not have one entry a deal.
 */
export function forEachDealOfTask(task: SolveTask, solveOne: (deal: Deal | undefined, stop: Int32Array) => SolveAnswer | SolveOutcome): SolveTaskResult {
  if (task.claim !== undefined) return claimDealsOfTask(task, task.claim, solveOne);
  const deals = task.packed !== undefined ? unpackDeals(task.packed) : task.deals;
  const count = deals !== undefined ? deals.length : 1;
  const stops = task.stops;
  if (stops !== undefined && stops.length !== count) throw new RangeError(`${stops.length} flags for a group of ${count} deals`);
  const packer = answerPacker.begin(count);
  for (let i = 0; i < count; i++) {
    const stop = stops !== undefined ? stops[i] : task.stop;
    packer.add(solveOne(deals !== undefined ? deals[i] : task.deal, stop));
    if (stops !== undefined) {
      Atomics.store(stop, ENDED_INDEX, 1);
      // the pool answers a stopped deal of a group at this mark (server/pool.ts `#answerWhenEnded`)
      Atomics.notify(stop, ENDED_INDEX);
    }
  }
  return { ok: true, packed: packer.finish() };
}

/**
 * A share of a shared run (`SolveTask.claim`): claims the run's deals one at
 * a time from the shared cursor (`Atomics.add`, so each deal goes to exactly
 * one share) and solves each with `solveOne` under the task's flags, until
 * none is left, or the task's stop flag is set, or its worker asked to be
 * retired, or (after one deal at least, so that the run always moves on)
 * the pool says other tasks wait for a worker (`SolveTask.yieldTo`). The
 * answers are those of the deals it claimed, in claim order, with their
 * indices in `claimed`.
 */
function claimDealsOfTask(task: SolveTask, claim: Int32Array, solveOne: (deal: Deal | undefined, stop: Int32Array) => SolveAnswer | SolveOutcome): Extract<SolveTaskResult, { packed: PackedAnswers }> {
  const count = task.packed !== undefined ? task.packed.count : (task.deals?.length ?? 0);
  const dealAt = task.packed !== undefined ? packedDealReader(task.packed) : (i: number) => task.deals![i];
  const stop = task.stop;
  const yieldTo = task.yieldTo;
  const claimed: number[] = [];
  const packer = answerPacker.begin(count);
  for (;;) {
    if (Atomics.load(stop, STOP_INDEX) !== 0 || (stop.length > RETIRE_INDEX && Atomics.load(stop, RETIRE_INDEX) !== 0)) break;
    if (yieldTo !== undefined && claimed.length > 0 && Atomics.load(yieldTo, 0) > 0) break;
    const i = Atomics.add(claim, 0, 1);
    if (i >= count) break;
    claimed.push(i);
    packer.add(solveOne(dealAt(i), stop));
  }
  return { ok: true, packed: packer.finish(claimed.length), claimed };
}

/** Rules parsed from their JSON text in this thread, for the deals that share them (`unpackDeals`). */
const parsedRules = new Map<string, Rules>();
/** Most entries of `parsedRules` before it starts afresh. */
const PARSED_RULES_MAX = 64;

/**
 * The deals of `packed` (`packDeals`), in order. Deals with the same rules
 * text share one rules object (read-only for the engine).
 */
export function unpackDeals(packed: PackedDeals): Deal[] {
  const dealAt = packedDealReader(packed);
  const deals: Deal[] = [];
  for (let d = 0; d < packed.count; d++) deals.push(dealAt(d));
  return deals;
}

/**
 * Reads the deals of `packed` (`packDeals`) in any order: one pass over the
 * bytes finds where each deal starts, and `dealAt(i)` decodes deal i (a
 * new object each call; deals with the same rules text share one rules
 * object, read-only for the engine).
 * @throws RangeError from `dealAt` for an index outside 0..count-1.
 */
export function packedDealReader(packed: PackedDeals): (i: number) => Deal {
  const rules = packed.rules.map((text) => {
    let parsed = parsedRules.get(text);
    if (parsed === undefined) {
      if (parsedRules.size >= PARSED_RULES_MAX) parsedRules.clear();
      parsed = JSON.parse(text) as Rules;
      parsedRules.set(text, parsed);
    }
    return parsed;
  });
  const { bytes } = packed;
  const starts = new Uint32Array(packed.count);
  for (let d = 0, o = 0; d < packed.count; d++) {
    starts[d] = o;
    const n = bytes[o + 1];
    let cards = 0;
    for (let c = 0; c < n; c++) cards += bytes[o + 2 + c];
    o += 2 + n + cards;
    o += 1 + bytes[o] + 4;
  }
  return (d: number): Deal => {
    if (!(Number.isInteger(d) && d >= 0 && d < packed.count)) throw new RangeError(`no deal ${d} in ${packed.count} packed deals`);
    let o = starts[d];
    const rule = rules[bytes[o++]];
    const n = bytes[o++];
    const lengths = bytes.subarray(o, o + n);
    o += n;
    const columns: number[][] = [];
    for (let c = 0; c < n; c++) {
      const column: number[] = [];
      for (let k = 0; k < lengths[c]; k++) column.push(bytes[o++]);
      columns.push(column);
    }
    const cells = bytes[o++];
    const freeCells: (number | null)[] = [];
    for (let c = 0; c < cells; c++, o++) freeCells.push(bytes[o] === EMPTY_CELL ? null : bytes[o]);
    const foundations: [number, number, number, number] = [bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]];
    return { rules: rule, layout: { columns, freeCells, foundations } };
  };
}

/** One solve, as posted to a worker. */
export interface SolveTask {
  /** The deal (absent when `packed` carries it). */
  deal?: Deal;
  /**
   * The deal, or the deals of a task of several, packed (`packDeals`); the
   * worker then ignores `deal` and `deals`. The pool packs every plain deal.
   */
  packed?: PackedDeals;
  /**
   * Several deals to solve in turn with the same limits (`SolverPool.solveMany`);
   * then `deal` is ignored and the answer has one entry per deal. The stop
   * flag stops the deal being solved and skips the rest (`cancelled`).
   */
  deals?: Deal[];
  /**
   * A group of single solves (SolverPool's grouping of the solves that wait
   * in its queue): one flag buffer a deal, in order, each that deal's own
   * (stop, retire request, start time, running thread, end mark:
   * `FLAGS_BYTES`), so that each deal is stopped, timed and retired on its
   * own while the task's answer carries them all. `stop` is then the first
   * deal's. Absent: every deal of the task uses `stop`.
   */
  stops?: Int32Array[];
  /**
   * A share of a shared run (SolverPool's `solveMany`): an Int32Array over a
   * SharedArrayBuffer whose element 0 is the index of the next deal of
   * `packed` (or `deals`) that no share has claimed. Every share of the run
   * carries the same cursor and the same deals, and solves the deals it
   * claims (`Atomics.add`), so that the run's deals spread over every worker
   * that joins it; the answer says which (`claimed`).
   */
  claim?: Int32Array;
  /**
   * With `claim`: the pool's count of other tasks waiting for a worker
   * (element 0 of an Int32Array over a SharedArrayBuffer). A share that sees
   * it above 0 after a deal stops claiming and answers, so that its worker
   * goes to them; the pool hands the rest of the run out again later.
   */
  yieldTo?: Int32Array;
  limits: SolveLimits;
  /**
   * Cooperative stop flag: an Int32Array (length >= 1) over a
   * SharedArrayBuffer, so it is shared with the worker, not copied. The pool
   * sets `stop[STOP_INDEX]` to 1; the engine polls it during the search.
   */
  stop: Int32Array;
  /**
   * Cap on the engine's linear memory for this solve, bytes (the pool's
   * `memoryLimitBytes`); beyond it the search ends `unknown`/`memory`.
   * Absent: the engine's own maximum.
   */
  memoryLimitBytes?: number;
  /** Build the certificate of an `unsolvable` verdict within these caps (client-sdk/core/proof/writer.ts). */
  proof?: ProofRequest;
  /** Shorten a found solution within this budget (client-sdk/core/shorten.ts). */
  optimize?: ShortenOptions;
  /**
   * What the worker runs: `full` (default) the full search, then the pooled
   * pass when it ended `unknown` unless another worker claimed that pass
   * (`POOLED_CLAIM_INDEX`); `pooled` only the pooled pass of a Castle-family
   * deal, within `limits` (SolverPool's helper pass; `writer.ts` `solvePooledPass`).
   */
  pass?: 'full' | 'pooled';
  /**
   * With `pass: 'pooled'`: the poolings to try, in this order (default
   * `POOLINGS_TO_TRY`; the pool's second helper pass takes them in reverse:
   * SolverPool `#solveWithHelperPass`).
   */
  poolings?: SuitPools[];
  /**
   * With `pass: 'pooled'`: the flags (`SolveTask.stop`) of the searches this
   * pass runs beside (the full search, another helper pass); the worker sets
   * their stop flags the moment a pooling's search is exhausted, before it
   * builds the proof and the certificate, so they stop at once rather than
   * when the answer arrives (writer.ts `onPooledProof`).
   */
  stopOnProof?: Int32Array[];
  /**
   * Engine memory past which the worker asks to be retired once this task
   * ends (bytes; the pool's `recycleMemoryBytes`). Absent: never.
   */
  recycleMemoryBytes?: number;
  /**
   * A progress slot (`progressSlot` of `newProgressSlots`) the worker writes
   * the search's counters to, about once a second (see `PROGRESS_FIELDS`).
   * Absent: no progress reports.
   */
  progress?: Float64Array;
}

/**
 * What a worker gives back for one task. A solution's moves travel packed
 * (`packMoves` of client-sdk/core/moves.ts, 8 bytes a move) beside an
 * outcome whose `moves` is empty: cloning one byte array is a copy, while an
 * array of some 90 move objects is cloned field by field, which cost the
 * worker about a fifth of an easy MS FreeCell solve (docs/engine.md "Pool
 * scaling" as kept in git at 1eca5a0). `answerFor` packs, `outcomeOf` unpacks.
 */
export type SolveAnswer = { ok: true; outcome: SolveOutcome; moves: Uint8Array; many?: undefined } | TaskFailure;

/**
 * A task's answer: every deal's packed (`PackedAnswers`, what
 * `forEachDealOfTask` gives), or one deal's `SolveAnswer`, or one per deal in
 * order (`many`; a worker of the tests may answer so).
 */
export type SolveTaskResult =
  | SolveAnswer
  | { ok: true; many: SolveAnswer[] }
  /** `claimed`: for a share of a shared run (`SolveTask.claim`), the index in the run of each answer's deal, in order. */
  | { ok: true; packed: PackedAnswers; claimed?: number[] };

/** The worker's answer for `outcome`: its moves packed, the rest as it is. */
export function answerFor(outcome: SolveOutcome): SolveAnswer {
  return { ok: true, outcome: { ...outcome, moves: [] }, moves: packMoves(outcome.moves) };
}

/** The outcome of a worker's successful answer, its moves unpacked. */
export function outcomeOf(answer: Extract<SolveAnswer, { ok: true }>): SolveOutcome {
  const outcome = answer.outcome;
  outcome.moves = unpackMoves(answer.moves);
  return outcome;
}

/**
 * Every answer of one task in two typed arrays (`forEachDealOfTask` packs,
 * `unpackAnswers` reads): structured-cloning two buffers is two copies,
 * where the answers as objects (an outcome, its stats, a moves buffer a
 * deal) are cloned and rebuilt field by field on both threads, and left
 * garbage on the pool's thread (docs/engine.md "Pool scaling" as kept in git
 * at 1eca5a0).
 * - `head`: `ANSWER_FIELDS` Float64 values a deal, in task order (the
 *   `ANSWER_*` indices): how to read it (`ANSWER_PLAIN`, `ANSWER_OBJECT`,
 *   `ANSWER_FAILED`), the verdict (index in `VERDICTS`), the reason of an
 *   `unknown` (index in `UNKNOWN_REASONS`, -1: none), the four stats, and
 *   the end of its moves in `moves`, bytes (its start is the previous
 *   deal's end, 0 for the first);
 * - `moves`: every deal's moves, `packMoves` format, one after the other;
 * - `objects`: by deal index, what the head cannot hold: an outcome with
 *   more than verdict, reason, moves and the four stats (a proof summary,
 *   `optimize`, `layered`; its `moves` empty, the moves still in `moves`),
 *   or a failure (`TaskFailure.error`).
 */
export interface PackedAnswers {
  head: Float64Array;
  moves: Uint8Array;
  objects?: Record<number, SolveOutcome | TaskFailure['error']>;
}

/** Float64 values a deal in `PackedAnswers.head`. */
export const ANSWER_FIELDS = 8;
/** `head` index: how the deal's answer is read (`ANSWER_PLAIN`, `ANSWER_OBJECT`, `ANSWER_FAILED`). */
export const ANSWER_KIND = 0;
/** `head` index: the verdict's index in `VERDICTS` (plain answers). */
export const ANSWER_VERDICT = 1;
/** `head` index: the reason's index in `UNKNOWN_REASONS`, -1 for none (plain answers). */
export const ANSWER_REASON = 2;
/** `head` indices of the stats (plain answers): positions expanded, stored, elapsed ms, engine memory bytes. */
export const ANSWER_EXPANDED = 3;
export const ANSWER_STORED = 4;
export const ANSWER_ELAPSED_MS = 5;
export const ANSWER_MEMORY = 6;
/** `head` index: the end of the deal's moves in `PackedAnswers.moves`, bytes. */
export const ANSWER_MOVES_END = 7;
/** `ANSWER_KIND`: the outcome is all in the head (and its moves in `moves`). */
export const ANSWER_PLAIN = 0;
/** `ANSWER_KIND`: the outcome is `objects[i]` (its moves in `moves`). */
export const ANSWER_OBJECT = 1;
/** `ANSWER_KIND`: the deal failed, `objects[i]` is the failure. */
export const ANSWER_FAILED = 2;

/** True when `o` has exactly the keys of a plain outcome (verdict, moves, stats, and reason when set) and stats of four numbers. */
function plainOutcome(o: SolveOutcome): boolean {
  let n = 0;
  for (const _ in o) n++;
  if (n !== (o.reason === undefined ? 3 : 4) || !('moves' in o) || !('stats' in o) || !('verdict' in o)) return false;
  const st = o.stats;
  let m = 0;
  for (const _ in st) m++;
  return (
    m === 4 &&
    typeof st.statesExpanded === 'number' &&
    typeof st.statesStored === 'number' &&
    typeof st.elapsedMs === 'number' &&
    typeof st.memoryBytes === 'number'
  );
}

/**
 * Packs a task's answers one deal at a time into buffers it keeps between
 * tasks (one packer a thread: `answerPacker`); `finish` copies them out.
 */
class AnswerPacker {
  #head = new Float64Array(ANSWER_FIELDS * 32);
  #moves = new Uint8Array(PACKED_MOVE_BYTES * 256);
  #count = 0;
  #deal = 0;
  #end = 0;
  #objects: Record<number, SolveOutcome | TaskFailure['error']> | undefined;

  /** Starts a task of `count` deals. */
  begin(count: number): this {
    if (this.#head.length < count * ANSWER_FIELDS) this.#head = new Float64Array(count * ANSWER_FIELDS);
    this.#count = count;
    this.#deal = 0;
    this.#end = 0;
    this.#objects = undefined;
    return this;
  }

  /** The next deal's answer: an engine outcome, or a `SolveAnswer` (packed by `answerFor`, or a failure). */
  add(answer: SolveAnswer | SolveOutcome): void {
    const h = this.#deal++ * ANSWER_FIELDS;
    const head = this.#head;
    if ('ok' in answer) {
      if (!answer.ok) {
        head[h + ANSWER_KIND] = ANSWER_FAILED;
        head[h + ANSWER_MOVES_END] = this.#end;
        (this.#objects ??= {})[this.#deal - 1] = answer.error;
        return;
      }
      this.#room(answer.moves.length);
      this.#moves.set(answer.moves, this.#end);
      this.#end += answer.moves.length;
      this.#outcome(h, answer.outcome);
      return;
    }
    this.#room(answer.moves.length * PACKED_MOVE_BYTES);
    this.#end = packMovesInto(answer.moves, this.#moves, this.#end);
    this.#outcome(h, answer);
  }

  /** The head of an outcome whose moves are packed already (`outcome.moves` is not read again). */
  #outcome(h: number, outcome: SolveOutcome): void {
    const head = this.#head;
    head[h + ANSWER_MOVES_END] = this.#end;
    const verdict = VERDICTS.indexOf(outcome.verdict);
    const reason = outcome.reason === undefined ? -1 : UNKNOWN_REASONS.indexOf(outcome.reason);
    if (verdict < 0 || (outcome.reason !== undefined && reason < 0) || !plainOutcome(outcome)) {
      head[h + ANSWER_KIND] = ANSWER_OBJECT;
      (this.#objects ??= {})[this.#deal - 1] = outcome.moves.length === 0 ? outcome : { ...outcome, moves: [] };
      return;
    }
    head[h + ANSWER_KIND] = ANSWER_PLAIN;
    head[h + ANSWER_VERDICT] = verdict;
    head[h + ANSWER_REASON] = reason;
    const st = outcome.stats;
    head[h + ANSWER_EXPANDED] = st.statesExpanded;
    head[h + ANSWER_STORED] = st.statesStored;
    head[h + ANSWER_ELAPSED_MS] = st.elapsedMs;
    head[h + ANSWER_MEMORY] = st.memoryBytes;
  }

  /** Grows the moves buffer to hold `bytes` more. */
  #room(bytes: number): void {
    if (this.#end + bytes <= this.#moves.length) return;
    const grown = new Uint8Array(Math.max(2 * this.#moves.length, this.#end + bytes));
    grown.set(this.#moves.subarray(0, this.#end));
    this.#moves = grown;
  }

  /**
   * The task's answers (copies: the packer's buffers are reused by the next
   * task). `answered`: how many deals were added, when fewer than `begin`'s
   * count may be (a share of a shared run).
   */
  finish(answered = this.#count): PackedAnswers {
    if (this.#deal !== answered || answered > this.#count) throw new RangeError(`${this.#deal} answers for a task of ${answered} deals`);
    const packed: PackedAnswers = { head: this.#head.slice(0, answered * ANSWER_FIELDS), moves: this.#moves.slice(0, this.#end) };
    if (this.#objects !== undefined) packed.objects = this.#objects;
    this.#objects = undefined;
    return packed;
  }
}

/** This thread's packer (a worker runs one task at a time). */
const answerPacker = new AnswerPacker();

/**
 * Reads `PackedAnswers` (pool side): calls `onAnswer(i, outcome, moves)` for
 * each deal `i` in order, with its outcome (`moves` empty) and its moves'
 * bytes (a view into `packed.moves`, not a copy), or `onFailure(i, error)`.
 * @throws RangeError when `packed` is malformed (a head not a whole number
 *   of deals, moves ends out of order or beyond the buffer, an object missing).
 */
export function unpackAnswers(
  packed: PackedAnswers,
  onAnswer: (i: number, outcome: SolveOutcome, moves: Uint8Array) => void,
  onFailure: (i: number, error: TaskFailure['error']) => void,
): void {
  const { head, moves } = packed;
  if (head.length % ANSWER_FIELDS !== 0) throw new RangeError('a packed answer head that is not a whole number of deals');
  let start = 0;
  for (let i = 0, h = 0; h < head.length; i++, h += ANSWER_FIELDS) {
    const end = head[h + ANSWER_MOVES_END];
    if (!(end >= start && end <= moves.length && (end - start) % PACKED_MOVE_BYTES === 0)) throw new RangeError(`packed answer ${i}: moves end ${end} out of range`);
    const kind = head[h + ANSWER_KIND];
    if (kind === ANSWER_PLAIN) {
      const reason = head[h + ANSWER_REASON];
      const outcome: SolveOutcome = {
        verdict: VERDICTS[head[h + ANSWER_VERDICT]],
        ...(reason >= 0 ? { reason: UNKNOWN_REASONS[reason] } : {}),
        moves: [],
        stats: { statesExpanded: head[h + ANSWER_EXPANDED], statesStored: head[h + ANSWER_STORED], elapsedMs: head[h + ANSWER_ELAPSED_MS], memoryBytes: head[h + ANSWER_MEMORY] },
      };
      if (outcome.verdict === undefined || (reason >= 0 && outcome.reason === undefined)) throw new RangeError(`packed answer ${i}: unknown verdict or reason`);
      onAnswer(i, outcome, moves.subarray(start, end));
    } else {
      const object = packed.objects?.[i];
      if (object === undefined) throw new RangeError(`packed answer ${i}: its object is missing`);
      if (kind === ANSWER_FAILED) onFailure(i, object as TaskFailure['error']);
      else onAnswer(i, object as SolveOutcome, moves.subarray(start, end));
    }
    start = end;
  }
}

/** A failure reported by the worker, rebuilt as a `SolverError` by the pool. */
export interface TaskFailure {
  ok: false;
  error: {
    code: ErrorCode;
    message: string;
    location?: ErrorLocation;
    /** For the server log only, never for a response body: the original error's name, message and stack. */
    detail?: string;
  };
}

/**
 * Classifies an error thrown while solving into the failure the worker
 * reports. The code says what happened; the message is safe to send (no
 * stack, no path); `detail` keeps the rest for the log.
 *
 * - `SolverError`: its own code and message (e.g. `solution_check_failed`);
 * - `WebAssembly.RuntimeError` (a trap: out-of-bounds access, unreachable):
 *   `engine_trap`, with V8's fixed trap text;
 * - an allocation failure (`RangeError` "Array buffer allocation failed",
 *   a failed `Memory.grow`): `out_of_memory`;
 * - anything else: `engine_error`.
 */
export function describeFailure(err: unknown): TaskFailure['error'] {
  const detail = err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
  if (err instanceof SolverError) {
    return { code: err.code, message: err.message, ...(err.location ? { location: err.location } : {}), ...(err.status >= 500 ? { detail } : {}) };
  }
  if (err instanceof WebAssembly.RuntimeError) {
    // V8's trap messages are fixed phrases ("memory access out of bounds", "unreachable").
    const trap = err.message.replace(/[^\w ,.()-]/g, '').slice(0, 80);
    return { code: 'engine_trap', message: `the engine trapped (${trap}); its instance was reset, retrying may succeed`, detail };
  }
  if (err instanceof RangeError && /allocation failed|out of memory|memory\.grow/i.test(err.message)) {
    return { code: 'out_of_memory', message: 'the solver ran out of memory on this position; try a smaller state budget', detail };
  }
  return { code: 'engine_error', message: 'the engine failed on this position', detail };
}

/** What the pool passes to every worker once, in `workerData`. */
export interface SolverWorkerData {
  /** The engine's compiled module (compiled once on the main thread; structured-cloned, not recompiled). */
  module?: WebAssembly.Module;
}

/** The outcome of a task that was cancelled before the search began. */
export function cancelledOutcome(): SolveOutcome {
  return {
    verdict: 'unknown',
    reason: 'cancelled',
    moves: [],
    stats: { statesExpanded: 0, statesStored: 0, elapsedMs: 0, memoryBytes: 0 },
  };
}

/**
 * The two codecs of the pool's wire format (wire.ts): deals the caller made
 * (`packDeals`, read by `packedDealReader`) and a job's answers
 * (`AnswerPacker`, read by `unpackAnswers`). Cloning a few strings and typed
 * arrays is a copy each; cloning the same data as objects is a walk, field
 * by field, on both threads (docs/engine.md, "Pool scaling").
 */
import { PACKED_MOVE_BYTES, packMovesInto } from '../../client-sdk/core/moves.js';
import type { Deal, Rules } from '../../client-sdk/core/rules.js';
import { UNKNOWN_REASONS, VERDICTS, type SolveOutcome } from '../../client-sdk/core/solve-types.js';
import type { ErrorCode, ErrorLocation } from '../../client-sdk/core/errors.js';

/** A deal's failure as the worker reports it (rebuilt as a `SolverError` by the pool). */
export interface DealFailure {
  code: ErrorCode;
  message: string;
  location?: ErrorLocation;
  /** For the server log only, never for a response body: the original error's name, message and stack. */
  detail?: string;
}

// ------------------------------------------------------------ deals

/**
 * Deals as they cross to a worker: the distinct rules as JSON text (equal
 * rules objects share one), and for each deal in turn, in `bytes`, the
 * index of its rules, the number of columns, each column's length, the
 * columns' cards (bottom first), the number of free cells, each cell's card
 * (255: empty) and the four foundations.
 */
export interface PackedDeals {
  rules: string[];
  bytes: Uint8Array;
  /** How many deals `bytes` holds. */
  count: number;
}

/** Byte of an empty free cell in `PackedDeals.bytes`. */
const EMPTY_CELL = 255;

/** True when `o` has exactly `n` enumerable keys. */
function hasKeys(o: object, n: number): boolean {
  let k = 0;
  for (const _ in o) k++;
  return k === n;
}

/** True when `a` and `b` are equal JSON values, as their JSON texts would be. */
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

/** True when every value is an integer from 0 to 254. */
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
 * rules): the caller then sends the deals as objects.
 * @throws what `JSON.stringify` throws on rules it cannot carry.
 */
export function packDeals(deals: readonly Deal[]): PackedDeals | undefined {
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
  const bytes = new Uint8Array(size);
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
  return { rules, bytes, count: deals.length };
}

/** Rules parsed from their JSON text in this thread, for the deals that share them. */
const parsedRules = new Map<string, Rules>();
/** Most entries of `parsedRules` before it starts afresh. */
const PARSED_RULES_MAX = 64;

/**
 * Reads the deals of `packed` in any order: one pass finds where each deal
 * starts, and `dealAt(i)` decodes deal i (a new object each call; deals with
 * the same rules text share one rules object, read-only for the engine).
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

// ------------------------------------------------------------ answers

/**
 * A job's answers from one task, in two typed arrays (`AnswerPacker` packs,
 * `unpackAnswers` reads):
 * - `head`: `ANSWER_FIELDS` Float64 values a deal, in the order the task ran
 *   them: how to read it (`ANSWER_PLAIN`, `ANSWER_OBJECT`, `ANSWER_FAILED`),
 *   the verdict (index in `VERDICTS`), the reason of an `unknown` (index in
 *   `UNKNOWN_REASONS`, -1: none), the four stats, and the end of its moves
 *   in `moves`, bytes (its start is the previous deal's end);
 * - `moves`: every deal's moves, `packMoves` format, one after the other;
 * - `objects`: by position in `head`, what the head cannot hold: an outcome
 *   with more than verdict, reason, moves and the four stats (a proof
 *   summary, `optimize`, `layered`; its `moves` empty), or a failure.
 */
export interface PackedAnswers {
  head: Float64Array;
  moves: Uint8Array;
  objects?: Record<number, SolveOutcome | DealFailure>;
}

/** Float64 values a deal in `PackedAnswers.head`. */
const ANSWER_FIELDS = 8;
const ANSWER_KIND = 0;
const ANSWER_VERDICT = 1;
const ANSWER_REASON = 2;
const ANSWER_EXPANDED = 3;
const ANSWER_STORED = 4;
const ANSWER_ELAPSED_MS = 5;
const ANSWER_MEMORY = 6;
const ANSWER_MOVES_END = 7;
/** `ANSWER_KIND`: the outcome is all in the head (its moves in `moves`). */
const ANSWER_PLAIN = 0;
/** `ANSWER_KIND`: the outcome is `objects[i]` (its moves in `moves`). */
const ANSWER_OBJECT = 1;
/** `ANSWER_KIND`: the deal failed, `objects[i]` is the failure. */
const ANSWER_FAILED = 2;

/** True when `o` has exactly the keys of a plain outcome (verdict, moves, stats, and reason when set) and stats of four numbers. */
function plainOutcome(o: SolveOutcome): boolean {
  let n = 0;
  for (const _ in o) n++;
  if (n !== (o.reason === undefined ? 3 : 4) || !('moves' in o) || !('stats' in o) || !('verdict' in o)) return false;
  const st = o.stats;
  let m = 0;
  for (const _ in st) m++;
  return m === 4 && typeof st.statesExpanded === 'number' && typeof st.statesStored === 'number' && typeof st.elapsedMs === 'number' && typeof st.memoryBytes === 'number';
}

/**
 * Packs a job's answers one deal at a time into buffers it keeps between
 * jobs (one packer a thread: a worker runs one job at a time); `finish`
 * copies them out.
 */
export class AnswerPacker {
  #head = new Float64Array(ANSWER_FIELDS * 32);
  #moves = new Uint8Array(PACKED_MOVE_BYTES * 256);
  #deal = 0;
  #end = 0;
  #objects: Record<number, SolveOutcome | DealFailure> | undefined;

  /** Starts a job's answers. */
  begin(): this {
    this.#deal = 0;
    this.#end = 0;
    this.#objects = undefined;
    return this;
  }

  /** Deals added since `begin`. */
  get count(): number {
    return this.#deal;
  }

  /** A deal's failure. */
  fail(failure: DealFailure): void {
    const h = this.#slot();
    this.#head[h + ANSWER_KIND] = ANSWER_FAILED;
    this.#head[h + ANSWER_MOVES_END] = this.#end;
    (this.#objects ??= {})[this.#deal - 1] = failure;
  }

  /** A deal's outcome; its moves as objects, or (`packed`) as `packMoves` bytes with `outcome.moves` not read. */
  add(outcome: SolveOutcome, packed?: Uint8Array): void {
    const h = this.#slot();
    if (packed !== undefined) {
      this.#room(packed.length);
      this.#moves.set(packed, this.#end);
      this.#end += packed.length;
    } else {
      this.#room(outcome.moves.length * PACKED_MOVE_BYTES);
      this.#end = packMovesInto(outcome.moves, this.#moves, this.#end);
    }
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

  /** The head offset of the next deal, the head grown to hold it. */
  #slot(): number {
    const h = this.#deal++ * ANSWER_FIELDS;
    if (h + ANSWER_FIELDS > this.#head.length) {
      const grown = new Float64Array(2 * this.#head.length);
      grown.set(this.#head);
      this.#head = grown;
    }
    return h;
  }

  /** Grows the moves buffer to hold `bytes` more. */
  #room(bytes: number): void {
    if (this.#end + bytes <= this.#moves.length) return;
    const grown = new Uint8Array(Math.max(2 * this.#moves.length, this.#end + bytes));
    grown.set(this.#moves.subarray(0, this.#end));
    this.#moves = grown;
  }

  /** The job's answers, copied out (the packer's buffers serve the next job). */
  finish(): PackedAnswers {
    const packed: PackedAnswers = { head: this.#head.slice(0, this.#deal * ANSWER_FIELDS), moves: this.#moves.slice(0, this.#end) };
    if (this.#objects !== undefined) packed.objects = this.#objects;
    this.#objects = undefined;
    return packed;
  }
}

/** Deals in `packed`. */
export function answerCount(packed: PackedAnswers): number {
  return packed.head.length / ANSWER_FIELDS;
}

/**
 * Reads `PackedAnswers` (pool side): `onAnswer(i, outcome, moves)` for each
 * deal `i` in order, with its outcome (`moves` empty) and its moves' bytes
 * (a view into `packed.moves`), or `onFailure(i, failure)`.
 * @throws RangeError when `packed` is malformed.
 */
export function unpackAnswers(
  packed: PackedAnswers,
  onAnswer: (i: number, outcome: SolveOutcome, moves: Uint8Array) => void,
  onFailure: (i: number, failure: DealFailure) => void,
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
      if (kind === ANSWER_FAILED) onFailure(i, object as DealFailure);
      else onAnswer(i, object as SolveOutcome, moves.subarray(start, end));
    }
    start = end;
  }
}

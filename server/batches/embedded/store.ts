/**
 * Durable storage of batches and their results: one SQLite file
 * (better-sqlite3), in WAL mode.
 *
 * Nothing is lost and nothing is counted twice. A batch is finished deal
 * by deal in one of two ways, each atomic in one SQLite transaction:
 * - `all` mode (every result kept, `addResults`): a result is keyed by
 *   (batch, deal index), so the primary key refuses a second result for a
 *   deal, and it is written in the same transaction as the batch's counters
 *   and summary; several results may share one transaction (the scheduler
 *   stores a dispatch's answers a group at a time, since a commit costs
 *   far more than a result's rows);
 * - `exceptions` mode (`recordSpan`): a sub-range [lo, hi) of deal indices
 *   is finished as a whole: its summary merged into the batch's, its
 *   exceptions (the deals not solved) inserted, and the sub-range added to
 *   the batch's done spans, in one transaction, which is refused when the
 *   sub-range overlaps a done span. So a deal is counted exactly when its
 *   span is recorded, once.
 * In both, after any crash the counters and summary equal what the results
 * and spans say. `synchronous = NORMAL` with WAL: a commit is in the WAL
 * file (the OS page cache) when the call returns, so a process killed with
 * SIGKILL keeps every committed result; only a power cut may lose the last
 * commits (never corrupt the file), and those deals are then solved again.
 *
 * `seq` numbers the stored results of a batch in commit order (1, 2, 3,
 * ...): it is the cursor of the results stream. It is `stored` after the
 * insert, taken in the same transaction, so it has no gaps and no repeats.
 *
 * Storage stays flat in `exceptions` mode: a batch is its row (spec,
 * counters, summary), its exceptions, and its done spans, which are kept
 * merged (a span that touches a done one joins it), so they number about
 * the sub-ranges in flight, whatever the size of the range.
 *
 * Deleting results (`purgeSlice`, then `vacuumSlice`) frees their pages
 * back to the file system: the file is in incremental auto-vacuum mode
 * (`PRAGMA auto_vacuum = INCREMENTAL`, set when the file is created; a
 * file made before it is rewritten once by `VACUUM` when opened), and each
 * step deletes or returns a bounded number of rows or pages, so the caller
 * can give the event loop turns in between.
 *
 * Moves are stored compactly (`encodeMoves` of ../model.ts: 8 bytes a move),
 * not as JSON. The records and results are the shared batch model (../model.ts).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { UnknownReason } from '../../../client-sdk/core/solve-types.js';
import type { BatchVerdict } from '../../../client-sdk/api/batch-schemas.js';
import { addToSummary, emptySummary, mergeSummary, parseSummary, summaryCount, type CensusSummary, type ResultsMode } from '../census.js';
import {
  decodeMoves,
  resultMoveBytes,
  type BatchRecord,
  type BatchSpec,
  type BatchState,
  type ResultInput,
  type StoredResult,
} from '../model.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS batches (
  id TEXT PRIMARY KEY,
  spec TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  finished_at INTEGER,
  total INTEGER NOT NULL,
  done INTEGER NOT NULL DEFAULT 0,
  solved INTEGER NOT NULL DEFAULT 0,
  unsolvable INTEGER NOT NULL DEFAULT 0,
  unknown INTEGER NOT NULL DEFAULT 0,
  errors INTEGER NOT NULL DEFAULT 0,
  sum_moves INTEGER NOT NULL DEFAULT 0,
  sum_elapsed_ms REAL NOT NULL DEFAULT 0,
  active_ms INTEGER NOT NULL DEFAULT 0,
  stored INTEGER NOT NULL DEFAULT 0,
  summary TEXT,
  purged_at INTEGER,
  owner TEXT
);
CREATE TABLE IF NOT EXISTS results (
  batch_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  verdict TEXT NOT NULL,
  reason TEXT,
  moves BLOB,
  states_expanded INTEGER NOT NULL,
  states_stored INTEGER NOT NULL,
  elapsed_ms REAL NOT NULL,
  error_code TEXT,
  error_message TEXT,
  PRIMARY KEY (batch_id, idx)
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS results_by_seq ON results (batch_id, seq);
CREATE INDEX IF NOT EXISTS results_exceptions ON results (batch_id, seq) WHERE verdict <> 'solved';
CREATE TABLE IF NOT EXISTS spans (
  batch_id TEXT NOT NULL,
  lo INTEGER NOT NULL,
  hi INTEGER NOT NULL,
  PRIMARY KEY (batch_id, lo)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS spans_by_hi ON spans (batch_id, hi);
`;

interface BatchRow {
  id: string;
  spec: string;
  status: BatchState;
  created_at: number;
  finished_at: number | null;
  total: number;
  done: number;
  solved: number;
  unsolvable: number;
  unknown: number;
  errors: number;
  sum_moves: number;
  sum_elapsed_ms: number;
  active_ms: number;
  stored: number;
  summary: string | null;
  purged_at: number | null;
  owner: string | null;
}

interface ResultRow {
  idx: number;
  seq: number;
  verdict: BatchVerdict;
  reason: UnknownReason | null;
  moves: Buffer | null;
  states_expanded: number;
  states_stored: number;
  elapsed_ms: number;
  error_code: string | null;
  error_message: string | null;
}

// ------------------------------------------------------------ store

function toRecord(row: BatchRow): BatchRecord {
  return {
    id: row.id,
    spec: JSON.parse(row.spec) as BatchSpec,
    status: row.status,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
    total: row.total,
    done: row.done,
    solved: row.solved,
    unsolvable: row.unsolvable,
    unknown: row.unknown,
    errors: row.errors,
    sumMoves: row.sum_moves,
    sumElapsedMs: row.sum_elapsed_ms,
    activeMs: row.active_ms,
    stored: row.stored,
    summary: parseSummary(row.summary),
    purgedAt: row.purged_at,
    owner: row.owner,
  };
}

function toResult(row: ResultRow): StoredResult {
  return {
    seq: row.seq,
    index: row.idx,
    verdict: row.verdict,
    ...(row.reason !== null ? { reason: row.reason } : {}),
    moves: decodeMoves(row.moves),
    statesExpanded: row.states_expanded,
    statesStored: row.states_stored,
    elapsedMs: row.elapsed_ms,
    ...(row.error_code !== null ? { error: { code: row.error_code, message: row.error_message ?? '' } } : {}),
  };
}

/**
 * A SQLite file that holds tables of another program: the batch store
 * leaves it as it is rather than add its own tables to it.
 * `code` is `NOT_A_BATCH_DATABASE`; `tables` the foreign tables' names.
 */
export class ForeignDatabaseError extends Error {
  readonly code = 'NOT_A_BATCH_DATABASE';
  constructor(readonly tables: string[]) {
    super(`it holds tables of another program (${tables.slice(0, 5).join(', ')}${tables.length > 5 ? ', …' : ''}); a batch database holds only the tables batches, results and spans`);
    this.name = 'ForeignDatabaseError';
  }
}

/**
 * The columns of the store's own tables, in order (SCHEMA). A table whose
 * columns are the first ones of these is the store's own from an earlier
 * version: `migrate` adds the rest.
 */
const OWN_COLUMNS: Record<string, string[]> = {
  batches: ['id', 'spec', 'status', 'created_at', 'finished_at', 'total', 'done', 'solved', 'unsolvable', 'unknown', 'errors', 'sum_moves', 'sum_elapsed_ms', 'active_ms', 'stored', 'summary', 'purged_at', 'owner'],
  results: ['batch_id', 'idx', 'seq', 'verdict', 'reason', 'moves', 'states_expanded', 'states_stored', 'elapsed_ms', 'error_code', 'error_message'],
  spans: ['batch_id', 'lo', 'hi'],
};

/** The columns of the first version of `batches`: every later column is added by `migrate`. */
const FIRST_BATCH_COLUMNS = 14;

function columnsOf(db: Database.Database, table: string): string[] {
  return db.prepare<[string], string>('SELECT name FROM pragma_table_info(?) ORDER BY cid').pluck().all(table);
}

/**
 * The tables of `db` that are not the store's own: any table but
 * `batches`, `results` and `spans` (SQLite's internal `sqlite_*` aside), and
 * those when their columns are not the store's (another program's table of
 * that name). Reads only.
 */
function foreignTables(db: Database.Database): string[] {
  const tables = db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name").pluck().all();
  return tables.filter((name) => {
    const own = OWN_COLUMNS[name];
    if (own === undefined) return true;
    const columns = columnsOf(db, name);
    const least = name === 'batches' ? FIRST_BATCH_COLUMNS : own.length;
    return columns.length < least || columns.some((c, i) => c !== own[i]);
  });
}

/**
 * Brings a file of an earlier version of the store up to SCHEMA: the
 * columns `stored` (= `done`: every result was kept), `summary` (rebuilt
 * from the stored results), `purged_at`, `owner`; and incremental
 * auto-vacuum, which needs one `VACUUM` of a file made without it.
 */
function migrate(db: Database.Database): void {
  const have = new Set(columnsOf(db, 'batches'));
  if (have.size === 0) return;
  const add = (column: string, type: string) => {
    if (!have.has(column)) db.exec(`ALTER TABLE batches ADD COLUMN ${column} ${type}`);
  };
  const hadSummary = have.has('summary');
  db.transaction(() => {
    if (!have.has('stored')) {
      add('stored', 'INTEGER NOT NULL DEFAULT 0');
      db.exec('UPDATE batches SET stored = done');
    }
    add('summary', 'TEXT');
    add('purged_at', 'INTEGER');
    add('owner', 'TEXT');
  })();
  if (!hadSummary) {
    const ids = db.prepare<[], string>('SELECT id FROM batches').pluck().all();
    const rows = db.prepare<[string], ResultRow>('SELECT * FROM results WHERE batch_id = ?');
    const set = db.prepare<[string, string]>('UPDATE batches SET summary = ? WHERE id = ?');
    for (const id of ids) {
      const summary = emptySummary();
      for (const row of rows.iterate(id)) addToSummary(summary, toResult(row));
      set.run(JSON.stringify(summary), id);
    }
  }
}

/** A result read back with the page's cursor: see `BatchStore.resultsAfter`. */
export interface ResultsSlice {
  results: StoredResult[];
  /** The seq up to which the store was read: the cursor to go on from. */
  scannedTo: number;
}

/** Seqs read per filtered query that includes `solved` (`resultsAfter`): bounds its cost whatever matches. */
const FILTER_WINDOW = 1024;

/** The batches database. One per process; every method is synchronous (better-sqlite3). */
export class BatchStore {
  readonly #db: Database.Database;
  readonly #stmt;
  readonly #addResults: (batchId: string, results: readonly ResultInput[]) => (StoredResult | null)[];
  readonly #recordSpan: (batchId: string, lo: number, hi: number, summary: CensusSummary, kept: readonly ResultInput[]) => StoredResult[] | null;

  /**
   * Opens (creating when missing) the database at `path`; `:memory:` keeps
   * everything in memory (tests, the CLI). A file of an earlier version of
   * the store is brought up to date (new columns; one `VACUUM` to turn on
   * incremental auto-vacuum).
   * @throws ForeignDatabaseError when the file holds tables other than the store's own (nothing is added to it);
   *   better-sqlite3's `SqliteError` when SQLite cannot open it (e.g. `SQLITE_NOTADB`).
   */
  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path);
    this.#db = db;
    // First, so that the statements below wait for (rather than fail on) a
    // lock held by another process on the same file, e.g. a second server.
    db.pragma('busy_timeout = 5000');
    // Before anything is written (WAL mode is kept in the file): a file of another program is left as it is.
    const foreign = foreignTables(db);
    if (foreign.length > 0) {
      db.close();
      throw new ForeignDatabaseError(foreign);
    }
    // Before the first table (a new file), or with a VACUUM (a file made without it): deleted results give their pages back.
    if (db.pragma('auto_vacuum', { simple: true }) !== 2) {
      db.pragma('auto_vacuum = INCREMENTAL');
      if (columnsOf(db, 'batches').length > 0) db.exec('VACUUM');
    }
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    migrate(db);
    db.exec(SCHEMA);
    this.#stmt = {
      insertBatch: db.prepare(
        'INSERT INTO batches (id, spec, status, created_at, total, summary, owner) VALUES (@id, @spec, @status, @createdAt, @total, @summary, @owner)',
      ),
      getBatch: db.prepare<[string], BatchRow>('SELECT * FROM batches WHERE id = ?'),
      running: db.prepare<[], BatchRow>("SELECT * FROM batches WHERE status = 'running' ORDER BY created_at, id"),
      finished: db.prepare<[], BatchRow>("SELECT * FROM batches WHERE status = 'done' ORDER BY created_at DESC, id"),
      liveForUpdate: db.prepare<[string], { stored: number; summary: string | null }>(
        "SELECT stored, summary FROM batches WHERE id = ? AND status = 'running'",
      ),
      bump: db.prepare(
        `UPDATE batches SET done = done + @done, stored = stored + @stored, solved = solved + @solved, unsolvable = unsolvable + @unsolvable,
         unknown = unknown + @unknown, errors = errors + @errors, sum_moves = sum_moves + @sumMoves, sum_elapsed_ms = sum_elapsed_ms + @sumElapsedMs,
         summary = @summary WHERE id = @batchId`,
      ),
      insertResult: db.prepare(
        `INSERT INTO results (batch_id, idx, seq, verdict, reason, moves, states_expanded, states_stored, elapsed_ms, error_code, error_message)
         VALUES (@batchId, @idx, @seq, @verdict, @reason, @moves, @statesExpanded, @statesStored, @elapsedMs, @errorCode, @errorMessage)
         ON CONFLICT (batch_id, idx) DO NOTHING`,
      ),
      setStatus: db.prepare<[BatchState, number | null, string]>('UPDATE batches SET status = ?, finished_at = ? WHERE id = ?'),
      addActive: db.prepare<[number, string]>('UPDATE batches SET active_ms = active_ms + ? WHERE id = ?'),
      doneIndices: db.prepare<[string], { idx: number }>('SELECT idx FROM results WHERE batch_id = ?'),
      resultsAfter: db.prepare<[string, number, number], ResultRow>('SELECT * FROM results WHERE batch_id = ? AND seq > ? ORDER BY seq LIMIT ?'),
      exceptionsAfter: db.prepare<[string, number, number], ResultRow>(
        "SELECT * FROM results WHERE batch_id = ? AND verdict <> 'solved' AND seq > ? ORDER BY seq LIMIT ?",
      ),
      resultsInWindow: db.prepare<[string, number, number], ResultRow>('SELECT * FROM results WHERE batch_id = ? AND seq > ? AND seq <= ? ORDER BY seq'),
      resultsByIndex: db.prepare<[string, number, number], ResultRow>('SELECT * FROM results WHERE batch_id = ? AND idx >= ? ORDER BY idx LIMIT ?'),
      spans: db.prepare<[string], { lo: number; hi: number }>('SELECT lo, hi FROM spans WHERE batch_id = ? ORDER BY lo'),
      overlap: db.prepare<[string, number, number], number>('SELECT 1 FROM spans WHERE batch_id = ? AND lo < ? AND hi > ? LIMIT 1').pluck(),
      spanEndingAt: db.prepare<[string, number], { lo: number }>('SELECT lo FROM spans WHERE batch_id = ? AND hi = ?'),
      spanStartingAt: db.prepare<[string, number], { hi: number }>('SELECT hi FROM spans WHERE batch_id = ? AND lo = ?'),
      deleteSpan: db.prepare<[string, number]>('DELETE FROM spans WHERE batch_id = ? AND lo = ?'),
      insertSpan: db.prepare<[string, number, number]>('INSERT INTO spans (batch_id, lo, hi) VALUES (?, ?, ?)'),
      purgeSeqs: db.prepare<[string, number], number>('SELECT seq FROM results WHERE batch_id = ? ORDER BY seq LIMIT ?').pluck(),
      deleteSeqs: db.prepare<[string, number, number]>('DELETE FROM results WHERE batch_id = ? AND seq >= ? AND seq <= ?'),
      deleteSpans: db.prepare<[string]>('DELETE FROM spans WHERE batch_id = ?'),
      markPurged: db.prepare<[number, string]>('UPDATE batches SET stored = 0, purged_at = ? WHERE id = ?'),
      queued: db.prepare<[string | null, string | null, ResultsMode], { deals: number | null }>(
        "SELECT SUM(total - done) AS deals FROM batches WHERE status = 'running' AND (? IS NULL OR owner = ?) AND COALESCE(json_extract(spec, '$.results'), 'all') = ?",
      ),
      endedBefore: db.prepare<[number], string>("SELECT id FROM batches WHERE status <> 'running' AND purged_at IS NULL AND finished_at < ? ORDER BY finished_at").pluck(),
    };

    const stmt = this.#stmt;
    /** The counters' bump of `summary` plus `stored` results. */
    const bumpOf = (batchId: string, summary: CensusSummary, stored: number, sumElapsedMs: number, merged: CensusSummary) => ({
      batchId,
      done: summaryCount(summary),
      stored,
      solved: summary.solved,
      unsolvable: summary.unsolvable,
      unknown: summary.unknown,
      errors: summary.errors,
      sumMoves: summary.sumMoves,
      sumElapsedMs,
      summary: JSON.stringify(merged),
    });
    const insert = (batchId: string, r: ResultInput, seq: number): boolean =>
      stmt.insertResult.run({
        batchId,
        idx: r.index,
        seq,
        verdict: r.verdict,
        reason: r.reason ?? null,
        moves: resultMoveBytes(r),
        statesExpanded: r.statesExpanded,
        statesStored: r.statesStored,
        elapsedMs: r.elapsedMs,
        errorCode: r.error?.code ?? null,
        errorMessage: r.error?.message ?? null,
      }).changes > 0;

    this.#addResults = db.transaction((batchId: string, results: readonly ResultInput[]): (StoredResult | null)[] => {
      const live = stmt.liveForUpdate.get(batchId);
      // no such batch, or it is no longer running (cancelled): nothing is written
      if (live === undefined) return results.map(() => null);
      const group = emptySummary();
      let sumElapsedMs = 0;
      const stored = results.map((r): StoredResult | null => {
        const seq = live.stored + summaryCount(group) + 1;
        // the deal already has a result: the primary key kept the first
        if (!insert(batchId, r, seq)) return null;
        addToSummary(group, r);
        sumElapsedMs += r.elapsedMs;
        return { ...r, seq };
      });
      const n = summaryCount(group);
      if (n > 0) stmt.bump.run(bumpOf(batchId, group, n, sumElapsedMs, mergeSummary(parseSummary(live.summary), group)));
      return stored;
    });

    this.#recordSpan = db.transaction(
      (batchId: string, lo: number, hi: number, summary: CensusSummary, kept: readonly ResultInput[]): StoredResult[] | null => {
        const live = stmt.liveForUpdate.get(batchId);
        if (live === undefined) return null;
        // a deal of [lo, hi) already counted: the span is refused whole
        if (stmt.overlap.get(batchId, hi, lo) !== undefined) return null;
        const stored = kept.map((r, k): StoredResult => {
          if (r.index < lo || r.index >= hi) throw new RangeError(`result of deal index ${r.index} outside its span [${lo}, ${hi})`);
          const seq = live.stored + k + 1;
          // outside every done span, so it has no row: a conflict is a bug, and throwing undoes the transaction
          if (!insert(batchId, r, seq)) throw new Error(`deal index ${r.index} of batch ${batchId} has a result outside the done spans`);
          return { ...r, seq };
        });
        stmt.bump.run(bumpOf(batchId, summary, stored.length, summary.sumElapsedUs / 1000, mergeSummary(parseSummary(live.summary), summary)));
        // the span joins the done spans it touches
        let from = lo;
        let to = hi;
        const left = stmt.spanEndingAt.get(batchId, lo);
        if (left !== undefined) {
          stmt.deleteSpan.run(batchId, left.lo);
          from = left.lo;
        }
        const right = stmt.spanStartingAt.get(batchId, hi);
        if (right !== undefined) {
          stmt.deleteSpan.run(batchId, hi);
          to = right.hi;
        }
        stmt.insertSpan.run(batchId, from, to);
        return stored;
      },
    );
  }

  /** Records a new batch (status `running`); `owner` is the API key that created it (quotas), if any. */
  create(id: string, spec: BatchSpec, total: number, createdAt = Date.now(), owner: string | null = null): BatchRecord {
    this.#stmt.insertBatch.run({ id, spec: JSON.stringify(spec), status: 'running', createdAt, total, summary: JSON.stringify(emptySummary()), owner });
    return this.get(id)!;
  }

  /** The batch, or undefined. */
  get(id: string): BatchRecord | undefined {
    const row = this.#stmt.getBatch.get(id);
    return row ? toRecord(row) : undefined;
  }

  /** Every batch still `running`, oldest first: the work to resume at start. */
  running(): BatchRecord[] {
    return this.#stmt.running.all().map(toRecord);
  }

  /** Every batch that ran to its end (`done`), newest first: what a rerun of the CLI finds already decided. */
  finished(): BatchRecord[] {
    return this.#stmt.finished.all().map(toRecord);
  }

  /**
   * Stores one deal's result (a batch in `all` mode) and updates the batch's
   * counters and summary, in one transaction. Returns the stored result
   * with its `seq`, or null when the deal already has a result or the batch
   * is not running (nothing written).
   */
  addResult(batchId: string, result: ResultInput): StoredResult | null {
    return this.#addResults(batchId, [result])[0];
  }

  /**
   * `addResult` for each of `results` in turn, in one transaction, the
   * batch's counters updated once: a commit costs ~0.1 ms on a WAL file, a
   * result's rows ~10 µs, so the scheduler stores a dispatch's answers a
   * group at a time. All or none are written.
   * @returns per result, in order: the stored result with its `seq`, or null
   *   (that deal already had a result, in the store or earlier in `results`,
   *   or the batch is not running).
   * @throws better-sqlite3's `SqliteError` when the write fails (then nothing of the group is written).
   */
  addResults(batchId: string, results: readonly ResultInput[]): (StoredResult | null)[] {
    return this.#addResults(batchId, results);
  }

  /**
   * Finishes the deal indices [lo, hi) of a batch as a whole, in one
   * transaction: merges `summary` (their census summary, census.ts) into
   * the batch's summary and counters, stores `kept` (the results to keep one
   * by one, each of an index in [lo, hi)) with their `seq`, and adds [lo,
   * hi) to the batch's done spans.
   * @returns the stored results with their `seq`; null when nothing was
   *   written: the batch is not running, or a deal of [lo, hi) was already
   *   counted (the span overlaps a done one).
   * @throws RangeError for a kept result outside [lo, hi); better-sqlite3's
   *   `SqliteError` when the write fails (nothing written).
   */
  recordSpan(batchId: string, lo: number, hi: number, summary: CensusSummary, kept: readonly ResultInput[]): StoredResult[] | null {
    return this.#recordSpan(batchId, lo, hi, summary, kept);
  }

  /** The done spans of a batch ([lo, hi) of deal indices, merged, in order). */
  doneSpans(id: string): { lo: number; hi: number }[] {
    return this.#stmt.spans.all(id);
  }

  /** Sets the status (`done` or `cancelled` set `finishedAt`). */
  setStatus(id: string, status: BatchState, finishedAt: number | null = status === 'running' ? null : Date.now()): void {
    this.#stmt.setStatus.run(status, finishedAt, id);
  }

  /** Adds wall-clock work time to a batch (ms). */
  addActiveMs(id: string, ms: number): void {
    this.#stmt.addActive.run(Math.round(ms), id);
  }

  /** A bitmap (one byte a deal) of the deals of an `all`-mode batch that have a result. */
  doneIndices(id: string, total: number): Uint8Array {
    const done = new Uint8Array(total);
    for (const { idx } of this.#stmt.doneIndices.iterate(id)) done[idx] = 1;
    return done;
  }

  /**
   * Up to `limit` stored results with `seq > after`, in seq order; with
   * `verdicts`, only those of these verdicts. Every call reads a bounded
   * number of rows however few match: a filter of exceptions only (no
   * `solved`) reads up to `limit` exceptions through their own index, one
   * with `solved` up to FILTER_WINDOW seqs. `scannedTo` is the seq up to
   * which the store was read: the next call goes on from it (it may be past
   * `after` with no result).
   */
  resultsSlice(id: string, after: number, limit: number, verdicts?: readonly BatchVerdict[]): ResultsSlice {
    return this.#db.transaction((): ResultsSlice => {
      const stored = this.#stmt.getBatch.get(id)?.stored ?? 0;
      const all = verdicts === undefined || verdicts.length === 4;
      const windowed = !all && verdicts.includes('solved');
      const page = all
        ? this.#stmt.resultsAfter.all(id, after, limit)
        : windowed
          ? this.#stmt.resultsInWindow.all(id, after, after + FILTER_WINDOW)
          : this.#stmt.exceptionsAfter.all(id, after, limit);
      const wanted = all ? null : new Set<string>(verdicts);
      const rows: ResultRow[] = [];
      // read to the end of what is stored, unless a full page stops short of it
      let scannedTo = windowed ? Math.min(stored, after + FILTER_WINDOW) : page.length < limit ? stored : after;
      for (const row of page) {
        if (!windowed && page.length >= limit) scannedTo = row.seq;
        if (wanted !== null && !wanted.has(row.verdict)) continue;
        rows.push(row);
        if (rows.length >= limit) {
          scannedTo = row.seq;
          break;
        }
      }
      return { results: rows.map(toResult), scannedTo: Math.max(after, scannedTo) };
    })();
  }

  /** Up to `limit` stored results with `seq > after`, in seq order (`resultsSlice` without a filter). */
  resultsAfter(id: string, after: number, limit: number): StoredResult[] {
    return this.resultsSlice(id, after, limit).results;
  }

  /** Every result of a batch in deal order (index), from index `from` on, read in pages. */
  *resultsByIndex(id: string, pageSize = 1000, from = 0): Generator<StoredResult> {
    for (;;) {
      const rows = this.#stmt.resultsByIndex.all(id, from, pageSize);
      for (const row of rows) yield toResult(row);
      if (rows.length < pageSize) return;
      from = rows[rows.length - 1].idx + 1;
    }
  }

  /**
   * Deletes up to `rows` stored results of a batch (the lowest seqs) in one
   * transaction; when none are left, also its spans, and marks it purged
   * (`stored` 0, `purged_at`). Returns the number deleted: call again until
   * 0, giving the event loop turns in between, then `vacuumSlice`.
   */
  purgeSlice(id: string, rows: number, now = Date.now()): number {
    return this.#db.transaction(() => {
      const seqs = this.#stmt.purgeSeqs.all(id, rows);
      if (seqs.length > 0) return this.#stmt.deleteSeqs.run(id, seqs[0], seqs[seqs.length - 1]).changes;
      this.#stmt.deleteSpans.run(id);
      this.#stmt.markPurged.run(now, id);
      return 0;
    })();
  }

  /**
   * Returns up to `pages` free pages of the file to the file system
   * (`PRAGMA incremental_vacuum`); returns the free pages left. When none
   * are left, truncates the WAL file too (`wal_checkpoint(TRUNCATE)`).
   */
  vacuumSlice(pages: number): number {
    this.#db.pragma(`incremental_vacuum(${Math.max(1, Math.floor(pages))})`);
    const left = this.#db.pragma('freelist_count', { simple: true }) as number;
    if (left === 0) this.#db.pragma('wal_checkpoint(TRUNCATE)');
    return left;
  }

  /** Pages of the file and their size in bytes (`PRAGMA page_count`, `page_size`). */
  fileStats(): { pages: number; pageSize: number; freePages: number } {
    return {
      pages: this.#db.pragma('page_count', { simple: true }) as number,
      pageSize: this.#db.pragma('page_size', { simple: true }) as number,
      freePages: this.#db.pragma('freelist_count', { simple: true }) as number,
    };
  }

  /**
   * Deals not yet finished in the running batches of `mode`, of `owner`
   * (an API key's name) or of every owner when `owner` is null: what the
   * quotas count.
   */
  queuedDeals(mode: ResultsMode, owner: string | null): number {
    return this.#stmt.queued.get(owner, owner, mode)?.deals ?? 0;
  }

  /** The ended batches (done or cancelled) whose results are kept and that ended before `ms`, oldest first: what retention purges. */
  endedBefore(ms: number): string[] {
    return this.#stmt.endedBefore.all(ms);
  }

  /** Closes the database (checkpoints the WAL). */
  close(): void {
    if (this.#db.open) this.#db.close();
  }
}


/**
 * Durable storage of batches and their results: one SQLite file
 * (better-sqlite3), in WAL mode.
 *
 * Nothing is lost and nothing is counted twice:
 * - a result is keyed by (batch, deal index): the primary key refuses a
 *   second result for the same deal;
 * - each result is written in the same transaction as the batch's counters
 *   (done, counts by verdict, sums), so after any crash the counters equal
 *   what the results table holds; several results may share one transaction
 *   (`addResults`: the scheduler stores a dispatch's answers a group at a
 *   time, since a commit costs far more than a result's rows);
 * - `synchronous = NORMAL` with WAL: a commit is in the WAL file (the OS page
 *   cache) when `addResult` returns, so a process killed with SIGKILL keeps
 *   every committed result; only a power cut may lose the last commits (never
 *   corrupt the file), and those deals are then simply solved again.
 *
 * `seq` numbers the results of a batch in commit order (1, 2, 3, ...): it is
 * the cursor of the results stream. It is `done` after the insert, taken in
 * the same transaction, so it has no gaps and no repeats.
 *
 * Moves are stored compactly (`encodeMoves` of ../model.ts: 8 bytes a move),
 * not as JSON. The records and results are the shared batch model (../model.ts).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { UnknownReason } from '../../../client-sdk/core/solve-types.js';
import type { BatchVerdict } from '../../../client-sdk/api/batch-schemas.js';
import {
  decodeMoves,
  resultMoveBytes,
  resultMoveCount,
  VERDICT_COUNTER,
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
  active_ms INTEGER NOT NULL DEFAULT 0
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
    super(`it holds tables of another program (${tables.slice(0, 5).join(', ')}${tables.length > 5 ? ', …' : ''}); a batch database holds only the tables batches and results`);
    this.name = 'ForeignDatabaseError';
  }
}

/** The columns of the store's own tables, in order (SCHEMA). */
const OWN_COLUMNS: Record<string, string> = {
  batches: 'id,spec,status,created_at,finished_at,total,done,solved,unsolvable,unknown,errors,sum_moves,sum_elapsed_ms,active_ms',
  results: 'batch_id,idx,seq,verdict,reason,moves,states_expanded,states_stored,elapsed_ms,error_code,error_message',
};

/**
 * The tables of `db` that are not the store's own: any table but `batches`
 * and `results` (SQLite's internal `sqlite_*` aside), and those two when
 * their columns are not the store's (another program's table of that name).
 * Reads only.
 */
function foreignTables(db: Database.Database): string[] {
  const tables = db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name").pluck().all();
  return tables.filter((name) => {
    const own = OWN_COLUMNS[name];
    if (own === undefined) return true;
    const columns = db.prepare<[string], string>('SELECT name FROM pragma_table_info(?) ORDER BY cid').pluck().all(name);
    return columns.join(',') !== own;
  });
}

/** The batches database. One per process; every method is synchronous (better-sqlite3). */
export class BatchStore {
  readonly #db: Database.Database;
  readonly #stmt;
  readonly #addResults: (batchId: string, results: readonly ResultInput[]) => (StoredResult | null)[];

  /**
   * Opens (creating when missing) the database at `path`; `:memory:` keeps
   * everything in memory (tests, the CLI).
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
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(SCHEMA);
    this.#stmt = {
      insertBatch: db.prepare(
        'INSERT INTO batches (id, spec, status, created_at, total) VALUES (@id, @spec, @status, @createdAt, @total)',
      ),
      getBatch: db.prepare<[string], BatchRow>('SELECT * FROM batches WHERE id = ?'),
      running: db.prepare<[], BatchRow>("SELECT * FROM batches WHERE status = 'running' ORDER BY created_at, id"),
      finished: db.prepare<[], BatchRow>("SELECT * FROM batches WHERE status = 'done' ORDER BY created_at DESC, id"),
      doneIfRunning: db.prepare<[string], { done: number }>("SELECT done FROM batches WHERE id = ? AND status = 'running'"),
      bump: db.prepare(
        `UPDATE batches SET done = done + @done, solved = solved + @solved, unsolvable = unsolvable + @unsolvable, unknown = unknown + @unknown,
         errors = errors + @errors, sum_moves = sum_moves + @sumMoves, sum_elapsed_ms = sum_elapsed_ms + @sumElapsedMs WHERE id = @batchId`,
      ),
      insertResult: db.prepare(
        `INSERT INTO results (batch_id, idx, seq, verdict, reason, moves, states_expanded, states_stored, elapsed_ms, error_code, error_message)
         VALUES (@batchId, @idx, @seq, @verdict, @reason, @moves, @statesExpanded, @statesStored, @elapsedMs, @errorCode, @errorMessage)
         ON CONFLICT (batch_id, idx) DO NOTHING`,
      ),
      setStatus: db.prepare<[BatchState, number | null, string]>('UPDATE batches SET status = ?, finished_at = ? WHERE id = ?'),
      addActive: db.prepare<[number, string]>('UPDATE batches SET active_ms = active_ms + ? WHERE id = ?'),
      doneIndices: db.prepare<[string], { idx: number }>('SELECT idx FROM results WHERE batch_id = ?'),
      resultsAfter: db.prepare<[string, number, number], ResultRow>(
        'SELECT * FROM results WHERE batch_id = ? AND seq > ? ORDER BY seq LIMIT ?',
      ),
      resultsByIndex: db.prepare<[string, number, number], ResultRow>(
        'SELECT * FROM results WHERE batch_id = ? AND idx >= ? ORDER BY idx LIMIT ?',
      ),
    };

    const stmt = this.#stmt;
    this.#addResults = db.transaction((batchId: string, results: readonly ResultInput[]): (StoredResult | null)[] => {
      const running = stmt.doneIfRunning.get(batchId);
      // no such batch, or it is no longer running (cancelled): nothing is written
      if (running === undefined) return results.map(() => null);
      // the batch's counters move once for the whole group
      const bump = { batchId, done: 0, solved: 0, unsolvable: 0, unknown: 0, errors: 0, sumMoves: 0, sumElapsedMs: 0 };
      const stored = results.map((r): StoredResult | null => {
        const seq = running.done + bump.done + 1;
        const inserted = stmt.insertResult.run({
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
        });
        // the deal already has a result: the primary key kept the first
        if (inserted.changes === 0) return null;
        bump.done++;
        bump[VERDICT_COUNTER[r.verdict]]++;
        if (r.verdict === 'solved') bump.sumMoves += resultMoveCount(r);
        bump.sumElapsedMs += r.elapsedMs;
        return { ...r, seq };
      });
      if (bump.done > 0) stmt.bump.run(bump);
      return stored;
    });
  }

  /** Records a new batch (status `running`). */
  create(id: string, spec: BatchSpec, total: number, createdAt = Date.now()): BatchRecord {
    this.#stmt.insertBatch.run({ id, spec: JSON.stringify(spec), status: 'running', createdAt, total });
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
   * Stores one deal's result and updates the batch's counters, in one
   * transaction. Returns the stored result with its `seq`, or null when the
   * deal already has a result or the batch is not running (nothing written).
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

  /** Sets the status (`done` or `cancelled` set `finishedAt`). */
  setStatus(id: string, status: BatchState, finishedAt: number | null = status === 'running' ? null : Date.now()): void {
    this.#stmt.setStatus.run(status, finishedAt, id);
  }

  /** Adds wall-clock work time to a batch (ms). */
  addActiveMs(id: string, ms: number): void {
    this.#stmt.addActive.run(Math.round(ms), id);
  }

  /** A bitmap (one byte a deal) of the deals of the batch that have a result. */
  doneIndices(id: string, total: number): Uint8Array {
    const done = new Uint8Array(total);
    for (const { idx } of this.#stmt.doneIndices.iterate(id)) done[idx] = 1;
    return done;
  }

  /** Up to `limit` results with `seq > after`, in seq order. */
  resultsAfter(id: string, after: number, limit: number): StoredResult[] {
    return this.#stmt.resultsAfter.all(id, after, limit).map(toResult);
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

  /** Closes the database (checkpoints the WAL). */
  close(): void {
    if (this.#db.open) this.#db.close();
  }
}

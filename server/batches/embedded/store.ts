/**
 * Durable storage of batches and their results: one SQLite file
 * (better-sqlite3), in WAL mode.
 *
 * Nothing is lost and nothing is counted twice:
 * - a result is keyed by (batch, deal index): the primary key refuses a
 *   second result for the same deal;
 * - each result is written in ONE transaction together with the batch's
 *   counters (done, counts by verdict, sums), so after any crash the counters
 *   equal what the results table holds;
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
  encodeMoves,
  VERDICT_COUNTER,
  VERDICT_COUNTERS,
  type BatchRecord,
  type BatchSpec,
  type BatchState,
  type ResultInput,
  type StoredResult,
  type VerdictCounter,
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
  readonly #addResult: (batchId: string, r: ResultInput) => StoredResult | null;

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
      bump: Object.fromEntries(
        VERDICT_COUNTERS.map((col) => [
          col,
          db.prepare<[number, number, string], { done: number }>(
            `UPDATE batches SET done = done + 1, ${col} = ${col} + 1, sum_moves = sum_moves + ?, sum_elapsed_ms = sum_elapsed_ms + ?
             WHERE id = ? AND status = 'running' RETURNING done`,
          ),
        ]),
      ) as Record<VerdictCounter, Database.Statement<[number, number, string], { done: number }>>,
      insertResult: db.prepare(
        `INSERT INTO results (batch_id, idx, seq, verdict, reason, moves, states_expanded, states_stored, elapsed_ms, error_code, error_message)
         VALUES (@batchId, @idx, @seq, @verdict, @reason, @moves, @statesExpanded, @statesStored, @elapsedMs, @errorCode, @errorMessage)`,
      ),
      hasResult: db.prepare<[string, number], { one: number }>('SELECT 1 AS one FROM results WHERE batch_id = ? AND idx = ?'),
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
    this.#addResult = db.transaction((batchId: string, r: ResultInput): StoredResult | null => {
      if (stmt.hasResult.get(batchId, r.index)) return null;
      const moveCount = r.verdict === 'solved' ? r.moves.length : 0;
      const bumped = stmt.bump[VERDICT_COUNTER[r.verdict]].get(moveCount, r.elapsedMs, batchId);
      if (!bumped) return null; // no such batch, or it is no longer running (cancelled)
      stmt.insertResult.run({
        batchId,
        idx: r.index,
        seq: bumped.done,
        verdict: r.verdict,
        reason: r.reason ?? null,
        moves: r.moves.length > 0 ? encodeMoves(r.moves) : null,
        statesExpanded: r.statesExpanded,
        statesStored: r.statesStored,
        elapsedMs: r.elapsedMs,
        errorCode: r.error?.code ?? null,
        errorMessage: r.error?.message ?? null,
      });
      return { ...r, seq: bumped.done };
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
    return this.#addResult(batchId, result);
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

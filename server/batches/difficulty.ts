/**
 * Difficulty over many deals (`npm run batch -- --analysis min_cells`): the
 * positions of a batch request (`planBatch`), each rated by
 * `rateDifficulty` (client-sdk/api/apps.ts) on the worker pool,
 * `parallelism` deals at once (each deal's rungs one after the other, so
 * that every thread stays busy with a whole deal), and the distribution of
 * the values.
 */
import { rateDifficulty, type AppsConfig, type DecideFn } from '../../client-sdk/api/apps.js';
import type { DifficultyResponse, Measure } from '../../client-sdk/api/apps-schemas.js';
import { requestAt } from './positions.js';
import { dealNumberAt, type BatchSpec } from './model.js';

/** One deal's difficulty, as a line of `--out`. */
export interface DifficultyRow {
  /** Place in the batch, 0-based. */
  index: number;
  /** Deal number (null for a board). */
  deal: number | string | null;
  verdict: DifficultyResponse['verdict'];
  value: number | null;
  label: string | null;
  low: number | null;
  high: number | null;
  /** With `unknown`: the budgets that ran out (`max_states`, `timeout`, ...). */
  reasons?: string[];
  /** Solution length at `value` (or `high`). */
  moveCount: number | null;
  /** The solution at `value` in standard notation (with `moves`). */
  notation?: string[];
  /** Positions and fingerprint of the complete search one rung below. */
  proof: { label: string; positions: number; fingerprint: string } | null;
  searches: number;
  elapsedMs: number;
}

/** The distribution of a difficulty batch. */
export interface DifficultyDistribution {
  measure: Measure | null;
  total: number;
  /** Deals per value (`min_cells`: free cells; `castle_ladder`: rung), decided ones only. */
  byValue: Record<string, number>;
  /** Deals lost even on the loosest rung (with proof). */
  unsolvable: number;
  /** Deals whose value a budget left open. */
  unknown: number;
  /** Engine wall time summed over the deals, ms. */
  sumElapsedMs: number;
}

/** Options of {@link runDifficultyBatch}. */
export interface DifficultyBatchOptions {
  measure?: Measure;
  /** Deals rated at once (the pool's threads). */
  parallelism: number;
  config: AppsConfig;
  /** Include each solution's notation in the rows. */
  moves?: boolean;
  /** Called after every deal (progress). */
  onRow?: (row: DifficultyRow, done: number) => void;
  /** Stops starting deals (the rows so far are returned). */
  signal?: AbortSignal;
}

/**
 * Rates deals `0..total-1` of `spec`, in deal order in the result.
 * @throws SolverError of the first deal that fails (e.g. `invalid_request`
 *   for a measure the game does not fit), after the running ones end.
 */
export async function runDifficultyBatch(
  spec: BatchSpec,
  total: number,
  decide: DecideFn,
  options: DifficultyBatchOptions,
): Promise<{ rows: DifficultyRow[]; distribution: DifficultyDistribution }> {
  const rows: DifficultyRow[] = new Array(total);
  let next = 0;
  let done = 0;
  let failed: unknown;
  const decider = { decide, parallelism: 1 };
  const worker = async () => {
    while (next < total && failed === undefined && !options.signal?.aborted) {
      const index = next++;
      try {
        const req = { ...requestAt(spec, index), limits: spec.limits, ...(options.measure ? { measure: options.measure } : {}) };
        const r = await rateDifficulty(req, decider, options.config, options.signal);
        rows[index] = {
          index,
          deal: dealNumberAt(spec, index),
          verdict: r.verdict,
          value: r.value,
          label: r.label,
          low: r.low,
          high: r.high,
          ...(r.verdict === 'unknown' ? { reasons: [...new Set(r.rungs.flatMap((x) => (x.reason ? [x.reason] : [])))] } : {}),
          moveCount: r.solution?.moveCount ?? null,
          ...(options.moves && r.solution ? { notation: r.solution.notation } : {}),
          proof: r.proof ? { label: r.proof.label, positions: r.proof.proof.positions, fingerprint: r.proof.proof.fingerprint } : null,
          searches: r.stats.searches,
          elapsedMs: r.stats.elapsedMs,
        };
        done++;
        options.onRow?.(rows[index], done);
      } catch (err) {
        failed ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.parallelism) }, worker));
  if (failed !== undefined) throw failed;
  const finished = rows.filter((r) => r !== undefined);
  const byValue: Record<string, number> = {};
  let measure: Measure | null = options.measure ?? null;
  for (const r of finished) if (r.verdict === 'decided') byValue[String(r.value)] = (byValue[String(r.value)] ?? 0) + 1;
  if (measure === null && finished.length > 0) measure = spec.rules.freeCells > 0 ? 'min_cells' : 'castle_ladder';
  return {
    rows: finished,
    distribution: {
      measure,
      total: finished.length,
      byValue,
      unsolvable: finished.filter((r) => r.verdict === 'unsolvable').length,
      unknown: finished.filter((r) => r.verdict === 'unknown').length,
      sumElapsedMs: Math.round(finished.reduce((s, r) => s + r.elapsedMs, 0)),
    },
  };
}

/** The distribution as text (the CLI's summary). */
export function formatDistribution(d: DifficultyDistribution, game: string, wallMs: number, cpuMs: number): string {
  const unit = d.measure === 'min_cells' ? 'free cells' : 'rung';
  const values = Object.keys(d.byValue).sort((a, b) => Number(a) - Number(b));
  const pct = (n: number) => (d.total === 0 ? '-' : `${((100 * n) / d.total).toFixed(2)} %`);
  return [
    `${game}: ${d.measure ?? 'difficulty'} of ${d.total} deals`,
    ...values.map((v) => `  ${unit} ${v}: ${d.byValue[v]} (${pct(d.byValue[v])})`),
    `  unsolvable with every rung: ${d.unsolvable}; unknown (a budget ran out): ${d.unknown}`,
    `  wall time ${(wallMs / 1000).toFixed(1)} s, CPU time ${(cpuMs / 1000).toFixed(1)} s (this process and its solver threads), engine time summed ${(d.sumElapsedMs / 1000).toFixed(1)} s`,
  ].join('\n');
}

/**
 * The verdict and what it rests on: for `solved` the checked solution's
 * length, for `unsolvable` the proof summary (the complete search's counts,
 * and any `proof` fields the service adds), for `unknown` the budget that ran
 * out and a retry with a larger one.
 */
import type { SolveResponse } from '../api.js';

const nf = new Intl.NumberFormat('en-US');

function ms(v: number): string {
  return v < 1000 ? `${v < 10 ? v.toFixed(1) : Math.round(v)} ms` : `${(v / 1000).toFixed(v < 10_000 ? 2 : 1)} s`;
}

function bytes(v: number): string {
  return v < 1024 * 1024 ? `${nf.format(Math.round(v / 1024))} KiB` : `${(v / 1024 / 1024).toFixed(1)} MiB`;
}

/** A larger budget for a retry: ten times the one that ran out, at most the service's cap (when known). */
export interface Retry {
  label: string;
  limits: { maxStates?: number; timeoutMs?: number };
}

/** The service's default caps (docs/api.md "Default limits"); a server configured lower answers `bad_limits`, shown as an error. */
const MAX_STATES_CAP = 50_000_000;
const TIMEOUT_MS_CAP = 120_000;

export function retryFor(response: SolveResponse): Retry | null {
  const { maxStates, timeoutMs } = response.stats.limits;
  switch (response.reason) {
    case 'max_states': {
      const next = Math.min(maxStates * 10, MAX_STATES_CAP);
      return next > maxStates ? { label: `Try again with ${nf.format(next)} positions`, limits: { maxStates: next, timeoutMs } } : null;
    }
    case 'timeout': {
      const next = Math.min(timeoutMs * 4, TIMEOUT_MS_CAP);
      return next > timeoutMs ? { label: `Try again with ${ms(next)}`, limits: { maxStates, timeoutMs: next } } : null;
    }
    case 'cancelled':
      return { label: 'Try again', limits: { maxStates, timeoutMs } };
    default:
      return null;
  }
}

function reasonText(response: SolveResponse): string {
  const { stats } = response;
  switch (response.reason) {
    case 'max_states':
      return `The state budget ran out: ${nf.format(stats.statesStored)} positions stored, the limit was ${nf.format(stats.limits.maxStates)}.`;
    case 'timeout':
      return `The time limit ran out after ${ms(stats.elapsedMs)} (limit ${ms(stats.limits.timeoutMs)}).`;
    case 'memory':
      return `The engine ran out of memory (${bytes(stats.memoryBytes)} in use).`;
    case 'cancelled':
      return 'The search was cancelled.';
    default:
      return 'The search stopped before a verdict.';
  }
}

/**
 * A field of the answer's `proof` object, whatever its shape (an
 * `unsolvable` answer's summary: positions, reductions, a fingerprint and
 * maybe a certificate): numbers formatted, long strings (an inline
 * certificate) shortened to their size, `{name, meaning}` items as a line
 * each, other objects as nested lists.
 */
function ProofValue({ value, depth = 0 }: { value: unknown; depth?: number }) {
  if (typeof value === 'number') return <>{nf.format(value)}</>;
  if (typeof value === 'boolean' || value === null || value === undefined) return <>{String(value)}</>;
  if (typeof value === 'string') {
    return value.length <= 80 ? <>{value}</> : <code title={`${value.length} characters`}>{`${value.slice(0, 24)}… (${nf.format(value.length)} characters)`}</code>;
  }
  if (Array.isArray(value)) {
    const shown = value.slice(0, 20);
    return (
      <ul class="proof-list">
        {shown.map((item, i) => (
          <li key={i}>
            <ProofValue value={item} depth={depth + 1} />
          </li>
        ))}
        {value.length > shown.length && <li>… {value.length - shown.length} more</li>}
      </ul>
    );
  }
  if (typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (typeof o.name === 'string' && typeof o.meaning === 'string') {
      return (
        <>
          <code>{o.name}</code>
          {typeof o.rule === 'string' ? ` (${o.rule})` : ''}: {o.meaning}
        </>
      );
    }
    if (depth >= 3) return <code>{JSON.stringify(value).slice(0, 120)}</code>;
    return (
      <dl class="proof-fields">
        {Object.entries(o).map(([k, v]) => (
          <div key={k}>
            <dt>{labelOf(k)}</dt>
            <dd>
              <ProofValue value={v} depth={depth + 1} />
            </dd>
          </div>
        ))}
      </dl>
    );
  }
  return <>{String(value)}</>;
}

function labelOf(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
}

interface Props {
  response: SolveResponse;
  onRetry: (limits: Retry['limits']) => void;
}

export function Verdict({ response, onRetry }: Props) {
  const { stats, verdict } = response;
  const autos = response.moves.filter((m) => m.auto).length;
  const proof = (response as { proof?: unknown }).proof;
  const retry = verdict === 'unknown' ? retryFor(response) : null;

  return (
    <section class={`verdict verdict-${verdict}`} data-testid="verdict" data-verdict={verdict} aria-live="polite">
      <div class="verdict-head">
        <span class="badge">
          <span aria-hidden="true">{verdict === 'solved' ? '✓' : verdict === 'unsolvable' ? '✗' : '?'}</span>{' '}
          {verdict === 'solved' ? 'Solved' : verdict === 'unsolvable' ? 'Unsolvable' : 'Unknown'}
        </span>
        {verdict === 'solved' && (
          <span class="verdict-line">
            {stats.moveCount} moves{autos > 0 ? `, ${autos} of them auto-moves to the foundations` : ''}
          </span>
        )}
      </div>
      {verdict === 'solved' && <p class="small">Every move was replayed by the service's independent checker, and again by this page.</p>}
      {verdict === 'unsolvable' && (
        <div class="proof" data-testid="proof">
          <p class="plain" data-testid="plain-verdict">
            There is no way to win this game: every possible line of play was tried, and none reaches the end.
          </p>
          <details class="proof-more">
            <summary>How this is known</summary>
            <p>
              <strong>No solution exists.</strong> The search was complete: it expanded every position reachable from the start (
              {nf.format(stats.statesExpanded)} expanded, {nf.format(stats.statesStored)} distinct positions stored) and none of them is won. Positions
              were merged only when equivalent (columns and free cells in another order) and only safe auto-moves were played, so nothing was pruned.
            </p>
            {proof !== undefined && (
              <div class="proof-details" data-testid="proof-details">
                <div class="proof-title">Proof</div>
                <ProofValue value={proof} />
              </div>
            )}
          </details>
        </div>
      )}
      {verdict === 'unknown' && (
        <div class="unknown" data-testid="unknown">
          <p>
            <strong>{reasonText(response)}</strong> <code>{response.reason}</code>
          </p>
          <p class="small">“Unknown” is not “unsolvable”: the search stopped before it could finish.</p>
          {retry && (
            <button type="button" class="primary" data-testid="retry" onClick={() => onRetry(retry.limits)}>
              {retry.label}
            </button>
          )}
        </div>
      )}
      <dl class="stats" data-testid="stats">
        <div>
          <dt>States expanded</dt>
          <dd>{nf.format(stats.statesExpanded)}</dd>
        </div>
        <div>
          <dt>States stored</dt>
          <dd>{nf.format(stats.statesStored)}</dd>
        </div>
        <div>
          <dt>Search time</dt>
          <dd>{ms(stats.elapsedMs)}</dd>
        </div>
        <div>
          <dt>Engine memory</dt>
          <dd>{bytes(stats.memoryBytes)}</dd>
        </div>
        <div class="wide">
          <dt>Budget</dt>
          <dd>
            {nf.format(stats.limits.maxStates)} positions, {ms(stats.limits.timeoutMs)}
          </dd>
        </div>
      </dl>
    </section>
  );
}

/**
 * The live verdict, an ARIA live region: `data-status` is `analysing`,
 * `winnable`, `lost` or `unknown`; `data-losing-move` the 0-based index of
 * the move that lost the game once it is found; `data-by` who decided
 * (`browser` or `service`); `data-analysis-ms` the browser's time for it.
 */
import type { Analysis } from '../../../client-sdk/sdk/analysis.js';
import type { Live } from './verdicts.js';

const nf = new Intl.NumberFormat('en-US');

function budgetText(a: Analysis): string {
  const { limits } = a.stats;
  if (a.verdict !== 'unknown') return '';
  switch (a.reason) {
    case 'max_states':
      return `its ${nf.format(limits.maxStates)} positions`;
    case 'timeout':
      return `its ${(limits.timeoutMs / 1000).toFixed(limits.timeoutMs % 1000 === 0 ? 0 : 1)} s`;
    case 'memory':
      return 'its memory';
    default:
      return 'its time';
  }
}

interface Props {
  live: Live;
  /** Moves played. */
  moveCount: number;
  won: boolean;
  /** Undo to the position before move `index` (0-based). */
  onBackTo: (index: number) => void;
}

export function PlayStatus({ live, moveCount, won, onBackTo }: Props) {
  const v = live.verdict;
  const status = v === null ? 'analysing' : v.analysis.verdict;
  const loss = live.loss;
  const losing = loss?.state === 'done' && loss.report.result === 'lost' ? loss.report : null;
  return (
    <section
      class={`play-status status-${status}`}
      data-testid="status"
      data-status={status}
      data-losing-move={losing ? String(losing.moveIndex) : undefined}
      data-by={v?.by}
      data-analysis-ms={v?.by === 'browser' && v.elapsedMs !== undefined ? String(v.elapsedMs) : undefined}
      data-decided-ms={v?.by === 'browser' && v.decidedMs !== undefined ? String(v.decidedMs) : undefined}
      data-final={v === null || v.shortening ? undefined : 'true'}
      role="status"
      aria-live="polite"
      aria-atomic="true"
    >
      <div class="status-head">
        <span class="badge" aria-hidden="true">
          {status === 'analysing' ? '…' : status === 'winnable' ? '✓' : status === 'lost' ? '✗' : '?'}
        </span>
        <strong class="status-word">{status === 'analysing' ? 'Analysing…' : won ? 'Won!' : status === 'winnable' ? 'Winnable' : status === 'lost' ? 'Lost' : 'Unknown'}</strong>
      </div>
      {v === null && <p class="status-line">Is this position still winnable? The engine in this browser is searching.</p>}
      {v !== null && v.analysis.verdict === 'winnable' && (
        <p class="status-line">
          {won
            ? `Every card is home, in ${moveCount} moves.`
            : `A solution of ${v.analysis.movesLeft} move${v.analysis.movesLeft === 1 ? '' : 's'} wins from here${v.shortening ? ' (shortening it…)' : '.'}`}
        </p>
      )}
      {v !== null && v.analysis.verdict === 'lost' && (
        <p class="status-line">
          No line of play wins from here: a complete search of {nf.format(v.analysis.proofPositions)} position{v.analysis.proofPositions === 1 ? '' : 's'} found none.
        </p>
      )}
      {v !== null && v.analysis.verdict === 'unknown' && (
        <p class="status-line">
          Not decided: the {v.by === 'service' ? "service's" : "browser's"} budget ran out ({budgetText(v.analysis)}) before a win or a proof was found.
          {v.browser && ` This browser's budget (${budgetText(v.browser)}) had run out first.`}
          {v.serviceProblem && ` The service was not asked: ${v.serviceProblem}.`}
        </p>
      )}
      {loss && <LossLine loss={loss} onBackTo={onBackTo} />}
      {v !== null && (
        <p class="small muted status-by">
          {v.by === 'browser'
            ? `Decided in this browser${v.decidedMs !== undefined ? ` in ${nf.format(v.decidedMs)} ms` : ''}${v.analysis.stats.statesStored > 0 ? ` (${nf.format(v.analysis.stats.statesStored)} position${v.analysis.stats.statesStored === 1 ? '' : 's'} searched)` : ''}.`
            : `Decided by the service: this browser's budget (${v.browser ? budgetText(v.browser) : ''}) ran out.`}
        </p>
      )}
    </section>
  );
}

function LossLine({ loss, onBackTo }: { loss: NonNullable<Live['loss']>; onBackTo: (index: number) => void }) {
  if (loss.state === 'searching') return <p class="loss-line">Looking for the move that lost it…</p>;
  if (loss.state === 'failed') return <p class="loss-line">The move that lost it could not be found: {loss.message}.</p>;
  const r = loss.report;
  switch (r.result) {
    case 'lost':
      return (
        <div class="loss-line" data-testid="loss">
          <p>
            Move <strong>{r.moveIndex + 1}</strong> (<code>{r.notation}</code>) lost the game: after it, a complete search of {nf.format(r.proofPositions)} position
            {r.proofPositions === 1 ? '' : 's'} finds no win. Instead, <strong><code data-testid="alternative">{r.alternative.notation}</code></strong> would have kept it winnable.
            {loss.by === 'service' ? ' (Found by the service.)' : ''}
          </p>
          <button type="button" class="small-button" onClick={() => onBackTo(r.moveIndex)}>
            Back to before move {r.moveIndex + 1}
          </button>
        </div>
      );
    case 'lost_at_start':
      return <p class="loss-line">The deal itself cannot be won: no move lost it.</p>;
    case 'unknown':
      return <p class="loss-line">Which move lost it is not known: the budget ran out deciding positions {r.from} to {r.to}.</p>;
    default:
      return <p class="loss-line">The review found the game still winnable; the two searches disagree, which should never happen.</p>;
  }
}

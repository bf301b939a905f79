/**
 * Review a played game (`POST /v1/review`, docs/apps.md): paste the moves
 * made from the position of the form (standard notation, e.g. `3a 32 a3`),
 * and the service names the first move after which the game could not be
 * won, with the proof summary of that position and a winning move at the
 * position before it; or says the game is still winnable, won, or unknown.
 */
import { useState } from 'preact/hooks';
import { ApiError, review, type ReviewResponse, type SolveRequest } from '../api.js';
import { ErrorBox } from './ErrorBox.js';

const nf = new Intl.NumberFormat('en-US');

/**
 * The review request for the form's solve request: the same position and
 * search budget, without the shortening (`optimize`, `limits.optimizeMs`),
 * which a review refuses (400): it returns no solution to shorten.
 */
export function reviewRequestOf(request: SolveRequest, moves: string) {
  const { optimize: _optimize, limits, ...position } = request;
  const { optimizeMs: _optimizeMs, ...budget } = limits ?? {};
  return { ...position, ...(limits ? { limits: budget } : {}), moves };
}

/** The panel; `request` is the form's position (game, deal or board, limits). */
export function ReviewPanel({ request }: { request: SolveRequest }) {
  const [moves, setMoves] = useState('');
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<ReviewResponse | null>(null);
  const [error, setError] = useState<{ code: string; message: string } | null>(null);

  const run = async () => {
    setBusy(true);
    setError(null);
    setAnswer(null);
    try {
      setAnswer(await review(reviewRequestOf(request, moves)));
    } catch (err) {
      setError(err instanceof ApiError ? err.body : { code: 'page_error', message: String(err) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <details class="review" data-testid="review">
      <summary>Review a played game</summary>
      <p class="small">The moves made from this position, in standard notation (e.g. <code>3a 32 a3 1h</code>), every move, foundation moves too.</p>
      <textarea rows={3} value={moves} onInput={(e) => setMoves((e.target as HTMLTextAreaElement).value)} aria-label="Moves played" data-testid="review-moves" />
      <button type="button" disabled={busy} onClick={() => void run()} data-testid="review-run">
        {busy ? 'Reviewing…' : 'Review'}
      </button>
      {error && <ErrorBox title="The service could not review this game" error={error} testId="review-error" />}
      {answer && <ReviewAnswer answer={answer} />}
    </details>
  );
}

function ReviewAnswer({ answer }: { answer: ReviewResponse }) {
  const searched = `${nf.format(answer.stats.searches)} search${answer.stats.searches === 1 ? '' : 'es'} for ${nf.format(answer.positions.length)} positions`;
  switch (answer.result) {
    case 'won':
      return <p data-testid="review-result">Won: every card is home ({searched}).</p>;
    case 'winnable':
      return (
        <p data-testid="review-result">
          Still winnable after all {answer.moves.length} moves: a checked solution goes on with <strong>{answer.continuation!.notation.slice(0, 5).join(' ')}</strong>… ({answer.continuation!.moveCount} moves; {searched}).
        </p>
      );
    case 'lost_at_start':
      return <p data-testid="review-result">This position cannot be won at all: a complete search of {nf.format(answer.lost!.proof.positions)} positions found no solution.</p>;
    case 'lost':
      return (
        <div data-testid="review-result">
          <p>
            Lost after move <strong>{answer.lost!.moveIndex! + 1}</strong> (<code>{answer.lost!.notation}</code>): from there a complete search of{' '}
            {nf.format(answer.lost!.proof.positions)} positions finds no win.
          </p>
          <p>
            A winning move instead: <strong><code>{answer.alternative!.notation}</code></strong>, then {answer.alternative!.line.notation.slice(1, 6).join(' ')}… (
            {answer.alternative!.line.moveCount} moves, checked). {searched}.
          </p>
        </div>
      );
    default:
      return (
        <p data-testid="review-result">
          Unknown between positions {answer.unknown!.from} and {answer.unknown!.to}: the budget ran out ({answer.unknown!.reasons.join(', ')}). Raise the limits and review again.
        </p>
      );
  }
}

/**
 * What to solve: the game, then a deal number (with its numbering) or a board
 * in fc-solve's text format, and optional budgets.
 */
import type { Ref } from 'preact';
import type { Numbering } from '../../../client-sdk/core/rules.js';
import type { GameInfo } from '../api.js';
import type { Form } from '../form.js';

interface Props {
  form: Form;
  games: GameInfo[];
  solving: boolean;
  /** Why the deal number cannot be solved (shown at the field; Solve then sends nothing), or null. */
  dealError: string | null;
  onChange: (patch: Partial<Form>) => void;
  onSolve: () => void;
  onCancel: () => void;
  boardRef: Ref<HTMLTextAreaElement>;
}

const NUMBERING_NAMES: Record<Numbering, string> = { ms: 'Microsoft / FreeCell Pro', pysolfc: 'PySolFC' };

const BOARD_PLACEHOLDER = `Freecells: - 2H 6H -
JD 9S JS 4D 6D
2D 5S AS 7S 8S
…  one line per column, deepest card first`;

export function DealForm({ form, games, solving, dealError, onChange, onSolve, onCancel, boardRef }: Props) {
  const game = games.find((g) => g.id === form.game);
  const numberings = game?.numberings ?? [];
  const canDeal = numberings.length > 0;

  return (
    <form
      class="deal-form"
      aria-label="Position to solve"
      onSubmit={(e) => {
        e.preventDefault();
        if (dealError !== null) {
          (e.currentTarget as HTMLFormElement).querySelector<HTMLInputElement>('input[name="deal"]')?.focus();
          return;
        }
        if (!solving) onSolve();
      }}
    >
      <div class="form-row">
        <label class="field">
          <span>Game</span>
          <select
            name="game"
            value={form.game}
            onChange={(e) => {
              const id = (e.target as HTMLSelectElement).value;
              const next = games.find((g) => g.id === id);
              const patch: Partial<Form> = { game: id };
              if (next && !next.numberings.includes(form.numbering) && next.defaultNumbering) patch.numbering = next.defaultNumbering;
              if (next && next.numberings.length === 0) patch.source = 'board';
              onChange(patch);
            }}
          >
            {games.map((g) => (
              <option value={g.id} key={g.id}>
                {g.name}
              </option>
            ))}
          </select>
        </label>

        <fieldset class="field source">
          <legend>Position</legend>
          <label>
            <input type="radio" name="source" value="deal" checked={form.source === 'deal'} disabled={!canDeal} onChange={() => onChange({ source: 'deal' })} />
            Deal number
          </label>
          <label>
            <input type="radio" name="source" value="board" checked={form.source === 'board'} onChange={() => onChange({ source: 'board' })} />
            Board text
          </label>
        </fieldset>

        {form.source === 'deal' && (
          <>
            <label class="field">
              <span>Deal</span>
              <input
                name="deal"
                class="deal-number"
                inputMode="numeric"
                autoComplete="off"
                value={form.deal}
                aria-invalid={dealError !== null}
                aria-describedby={dealError !== null ? 'deal-error' : undefined}
                onInput={(e) => onChange({ deal: (e.target as HTMLInputElement).value })}
              />
            </label>
            <label class="field">
              <span>Numbering</span>
              <select name="numbering" value={form.numbering} onChange={(e) => onChange({ numbering: (e.target as HTMLSelectElement).value as Numbering })}>
                {numberings.map((n) => (
                  <option value={n} key={n}>
                    {NUMBERING_NAMES[n]}
                  </option>
                ))}
              </select>
            </label>
          </>
        )}

        <details class="field limits">
          <summary>Limits</summary>
          <div class="limits-body">
            <label class="field">
              <span>Max positions</span>
              <input
                name="maxStates"
                inputMode="numeric"
                placeholder="5,000,000"
                value={form.maxStates}
                onInput={(e) => onChange({ maxStates: (e.target as HTMLInputElement).value })}
              />
            </label>
            <label class="field">
              <span>Time limit (ms)</span>
              <input
                name="timeoutMs"
                inputMode="numeric"
                placeholder="30,000"
                value={form.timeoutMs}
                onInput={(e) => onChange({ timeoutMs: (e.target as HTMLInputElement).value })}
              />
            </label>
          </div>
        </details>

        <div class="form-actions">
          {solving ? (
            <button type="button" class="secondary" onClick={onCancel}>
              Cancel
            </button>
          ) : null}
          <button type="submit" class="primary" disabled={solving} data-testid="solve">
            {solving ? 'Solving…' : 'Solve'}
          </button>
        </div>
      </div>

      {dealError !== null && (
        <p class="field-error" id="deal-error" role="alert" data-testid="deal-error">
          {dealError}
        </p>
      )}

      {form.source === 'board' && (
        <div class="board-text">
          <label for="board-text">
            Board in fc-solve's format: optional <code>Foundations:</code> and <code>Freecells:</code> lines, then one line per column, deepest card
            first (cards like <code>TH</code>, <code>AS</code>).
          </label>
          <textarea
            id="board-text"
            name="board"
            ref={boardRef}
            rows={11}
            spellcheck={false}
            placeholder={BOARD_PLACEHOLDER}
            value={form.board}
            onInput={(e) => onChange({ board: (e.target as HTMLTextAreaElement).value })}
          />
        </div>
      )}
    </form>
  );
}

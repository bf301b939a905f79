/**
 * The solution as a list: number, standard notation, and the move in words.
 * The current move (the one that led to the position shown) is highlighted
 * and kept in view; a click jumps to a move.
 */
import { useEffect, useRef } from 'preact/hooks';
import type { Move } from '../../../client-sdk/core/moves.js';
import type { Rules } from '../../../client-sdk/core/rules.js';
import { prettyCard, SUIT_SYMBOLS } from '../cardface.js';
import { cellSymbol, columnSymbol } from '../replay.js';

interface Props {
  rules: Rules;
  moves: Move[];
  notation: string[];
  /** Moves played: the current move is `moves[step - 1]`. */
  step: number;
  onJump: (step: number) => void;
}

function place(kind: 'column' | 'cell' | 'foundation', index: number, rules: Rules): string {
  if (kind === 'column') return `column ${columnSymbol(index, rules)}`;
  if (kind === 'cell') return `cell ${cellSymbol(index, rules)}`;
  return `foundation ${SUIT_SYMBOLS[index]}`;
}

/** A move in words, e.g. `8♦ column 3 → cell a`, `3 cards from 9♠: column 2 → column 5`. */
export function describeMove(move: Move, rules: Rules): string {
  const what = move.count > 1 ? `${move.count} cards from ${prettyCard(move.card)}` : prettyCard(move.card);
  return `${what}: ${place(move.from, move.fromIndex, rules)} → ${place(move.to, move.toIndex, rules)}`;
}

export function MoveList({ rules, moves, notation, step, onJump }: Props) {
  const list = useRef<HTMLOListElement>(null);
  useEffect(() => {
    const el = list.current;
    const row = el?.querySelector<HTMLElement>('[aria-current="step"]');
    if (!el || !row) {
      if (el && step === 0) el.scrollTop = 0;
      return;
    }
    // Keep the current row in view (with a row of context) without scrolling the page itself.
    const top = row.getBoundingClientRect().top - el.getBoundingClientRect().top + el.scrollTop;
    const margin = row.offsetHeight;
    if (top - margin < el.scrollTop) el.scrollTop = top - margin;
    else if (top + 2 * margin > el.scrollTop + el.clientHeight) el.scrollTop = top + 2 * margin - el.clientHeight;
  }, [step, moves]);

  return (
    <ol class="move-list" ref={list} aria-label="Moves" data-testid="move-list">
      {moves.map((move, i) => (
        <li key={i} aria-current={i + 1 === step ? 'step' : undefined} class={i + 1 === step ? 'current' : i + 1 < step ? 'done' : undefined}>
          <button type="button" onClick={() => onJump(i + 1)} title={`Show the position after move ${i + 1}`}>
            <span class="move-no">{i + 1}</span>
            <span class="move-sn">{notation[i]}</span>
            <span class="move-text">{describeMove(move, rules)}</span>
            {move.auto && <span class="tag">auto</span>}
          </button>
        </li>
      ))}
    </ol>
  );
}

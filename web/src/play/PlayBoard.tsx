/**
 * The board to play on: free cells and foundations on top, the tableau
 * below, as on the solver page (the same cards, the same scaling: a card is
 * as wide as the widest row of places allows, so any number of columns fits
 * the width), with every place a target.
 *
 * - Click or tap a card (in a column: that card and all above it) to pick
 *   it up, then a place to put it; a double click sends a card home.
 * - Drag a card or a run onto a place (mouse, pen or touch).
 * - Keyboard: every place is a button (Tab, or ← → between places);
 *   Enter or Space picks up its top card (↑ ↓ take more or fewer cards of a
 *   column) or puts the picked cards there (see PlayApp for the notation keys).
 *
 * Places carry `data-place="column:2"`, `"cell:0"`, `"foundation:3"`
 * (0-based), cards `data-card="TH"`; a picked card has the class
 * `selected`, a hinted one `hinted`, and the hint's target `hint-target`.
 */
import { useRef, useState } from 'preact/hooks';
import { makeCard, RANK_LETTERS, SUIT_LETTERS } from '../../../client-sdk/core/cards.js';
import type { Move } from '../../../client-sdk/core/moves.js';
import type { Place } from '../../../client-sdk/core/play.js';
import type { Layout, Rules } from '../../../client-sdk/core/rules.js';
import { face, RANK_FACES, SUIT_NAMES, SUIT_SYMBOLS } from '../cardface.js';
import { boardScale, cardHeights, cellsTitle, fanStep, tableauScale } from '../components/Board.js';
import { Card } from '../components/Card.js';
import { cellSymbol, columnSymbol } from '../replay.js';

/** Cards picked up: a place and how many cards of it (1 from a free cell). */
export interface Picked {
  from: Place<'column' | 'cell'>;
  count: number;
}

interface Props {
  rules: Rules;
  layout: Layout;
  picked: Picked | null;
  /** The move a hint shows (its cards and target outlined), if any. */
  hint: Move | null;
  /** The last move played (its cards outlined), if any. */
  last: Move | null;
  /** Moves played when the game is won (a banner says so); null otherwise. */
  won: number | null;
  /** A click, tap, Enter or Space on a place: `count` cards from the top when a card of a column was clicked. */
  onActivate: (place: Place, count?: number) => void;
  /** A double click on a card: send it home. */
  onSendHome: (from: Place<'column' | 'cell'>) => void;
  /** Cards dragged from a place and dropped on another. */
  onDrop: (picked: Picked, to: Place) => void;
}

/** The place a `data-place` value names. */
export function parsePlace(text: string | null | undefined): Place | null {
  const m = /^(column|cell|foundation):(\d+)$/.exec(text ?? '');
  return m ? { kind: m[1] as Place['kind'], index: Number(m[2]) } : null;
}

function placeAttr(place: Place): string {
  return `${place.kind}:${place.index}`;
}

/** A drag in progress: what is dragged and how far the pointer moved. */
interface Drag {
  picked: Picked;
  pointerId: number;
  x0: number;
  y0: number;
  dx: number;
  dy: number;
  moving: boolean;
}

/** Pointer travel before a press becomes a drag, px. */
const DRAG_SLOP = 6;

export function PlayBoard({ rules, layout, picked, hint, last, won, onActivate, onSendHome, onDrop }: Props) {
  const [drag, setDrag] = useState<Drag | null>(null);
  const suppressClick = useRef(false);
  const emptyColumnRank = rules.emptyColumn !== 'kings' ? null : !rules.wrap || rules.foundationBase === 1 ? 13 : rules.foundationBase - 1;

  const isPicked = (kind: Place['kind'], index: number) => picked !== null && picked.from.kind === kind && picked.from.index === index;
  const isDragged = (kind: Place['kind'], index: number) => drag !== null && drag.moving && drag.picked.from.kind === kind && drag.picked.from.index === index;
  const hintFrom = (kind: Place['kind'], index: number) => hint !== null && hint.from === kind && hint.fromIndex === index;
  const hintTo = (kind: Place['kind'], index: number) => hint !== null && hint.to === kind && hint.toIndex === index;
  const lastTo = (kind: Place['kind'], index: number) => last !== null && last.to === kind && last.toIndex === index;

  const press = (e: PointerEvent, from: Place<'column' | 'cell'>, count: number) => {
    if (e.button !== 0) return;
    setDrag({ picked: { from, count }, pointerId: e.pointerId, x0: e.clientX, y0: e.clientY, dx: 0, dy: 0, moving: false });
  };
  const move = (e: PointerEvent) => {
    if (!drag || e.pointerId !== drag.pointerId) return;
    const dx = e.clientX - drag.x0;
    const dy = e.clientY - drag.y0;
    if (!drag.moving && Math.hypot(dx, dy) < DRAG_SLOP) return;
    if (!drag.moving) (e.currentTarget as HTMLElement).setPointerCapture?.(e.pointerId);
    setDrag({ ...drag, dx, dy, moving: true });
  };
  const release = (e: PointerEvent) => {
    if (!drag || e.pointerId !== drag.pointerId) return;
    const d = drag;
    setDrag(null);
    if (!d.moving) return;
    suppressClick.current = true;
    setTimeout(() => (suppressClick.current = false), 0);
    const under = document.elementsFromPoint(e.clientX, e.clientY).find((el) => el instanceof HTMLElement && el.dataset.place !== undefined && !el.closest('.dragging'));
    const to = parsePlace((under as HTMLElement | undefined)?.dataset.place);
    if (to && !(to.kind === d.picked.from.kind && to.index === d.picked.from.index)) onDrop(d.picked, to);
  };
  const pointerHandlers = {
    onPointerMove: move,
    onPointerUp: release,
    onPointerCancel: () => setDrag(null),
  };

  /** A click or tap on a card or a place (not the end of a drag). */
  const activate = (e: Event, place: Place, count?: number) => {
    e.stopPropagation();
    if (suppressClick.current) return;
    onActivate(place, count);
  };
  const dragStyle = (kind: Place['kind'], index: number): Record<string, string> =>
    isDragged(kind, index) ? { transform: `translate(${drag!.dx}px, ${drag!.dy}px)` } : {};

  return (
    <section class={`board play-board${won != null ? ' board-won' : ''}`} aria-label="Board" style={boardScale(rules, layout.columns.length)} {...pointerHandlers}>
      <div class="board-top">
        <div class="group" role="group" aria-label={cellsTitle(rules)}>
          <div class="group-title">{cellsTitle(rules)}</div>
          <div class="slots">
            {layout.freeCells.map((card, i) => {
              const place: Place = { kind: 'cell', index: i };
              const sym = cellSymbol(i, rules);
              return (
                <div class="slot-wrap" key={i}>
                  <div class="slot-label" aria-hidden="true">
                    {sym}
                  </div>
                  <div
                    class={`slot place${hintTo('cell', i) ? ' hint-target' : ''}`}
                    data-place={placeAttr(place)}
                    data-cell={i}
                    role="button"
                    tabIndex={0}
                    aria-label={`${rules.emptyCell === 'none' ? 'Reserve' : 'Free'} cell ${sym}: ${card === null ? 'empty' : face(card).name}${isPicked('cell', i) ? ', picked up' : ''}`}
                    onClick={(e) => activate(e, place)}
                  >
                    {card !== null && (
                      <Card
                        card={card}
                        class={`${isPicked('cell', i) ? 'selected' : ''}${hintFrom('cell', i) ? ' hinted' : ''}${lastTo('cell', i) ? ' moved' : ''}${isDragged('cell', i) ? ' dragging' : ''}`}
                        style={dragStyle('cell', i)}
                        onPointerDown={(e) => press(e, { kind: 'cell', index: i }, 1)}
                        onDblClick={() => onSendHome({ kind: 'cell', index: i })}
                      />
                    )}
                  </div>
                </div>
              );
            })}
            {rules.freeCells === 0 && <div class="muted small none-label">none in this game</div>}
          </div>
        </div>
        <div class="group" role="group" aria-label="Foundations">
          <div class="group-title">Foundations (h)</div>
          <div class="slots">
            {layout.foundations.map((count, s) => {
              const top = count === 0 ? 0 : ((rules.foundationBase - 1 + count - 1) % 13) + 1;
              const place: Place = { kind: 'foundation', index: s };
              return (
                <div class="slot-wrap" key={s}>
                  <div class="slot-label" aria-hidden="true">
                    {SUIT_SYMBOLS[s]}
                  </div>
                  <div
                    class={`slot foundation place${hintTo('foundation', s) ? ' hint-target' : ''}`}
                    data-place={placeAttr(place)}
                    data-foundation={SUIT_LETTERS[s]}
                    data-top={top === 0 ? '0' : RANK_LETTERS[top]}
                    data-count={count}
                    role="button"
                    tabIndex={0}
                    aria-label={`${SUIT_NAMES[s]} foundation: ${count === 0 ? 'empty' : `up to ${face(makeCard(top, s)).name}`}`}
                    onClick={(e) => activate(e, place)}
                  >
                    {top === 0 ? (
                      <span class={`slot-hint suit-${SUIT_LETTERS[s]}`}>{SUIT_SYMBOLS[s]}</span>
                    ) : (
                      <Card card={makeCard(top, s)} class={lastTo('foundation', s) ? 'moved' : undefined} />
                    )}
                  </div>
                </div>
              );
            })}
          </div>
        </div>
      </div>

      <div class="tableau" style={tableauScale(layout.columns.length)}>
        {layout.columns.map((column, c) => {
          const place: Place = { kind: 'column', index: c };
          const step = fanStep(column.length);
          const pickedFrom = isPicked('column', c) ? column.length - picked!.count : column.length;
          const hintedFrom = hintFrom('column', c) ? column.length - hint!.count : column.length;
          const lastFrom = lastTo('column', c) ? column.length - last!.count : column.length;
          const draggedFrom = isDragged('column', c) ? column.length - drag!.picked.count : column.length;
          const sym = columnSymbol(c, rules);
          const topName = column.length === 0 ? 'empty' : `${column.length} card${column.length === 1 ? '' : 's'}, top ${face(column[column.length - 1]).name}`;
          return (
            <div
              class={`column place${hintTo('column', c) ? ' hint-target' : ''}`}
              key={c}
              data-place={placeAttr(place)}
              data-column={c}
              role="button"
              tabIndex={0}
              aria-label={`Column ${sym}: ${topName}${pickedFrom < column.length ? `, ${column.length - pickedFrom} picked up` : ''}`}
              onClick={(e) => activate(e, place)}
            >
              <div class="slot-label" aria-hidden="true">
                {sym}
              </div>
              <div class="stack" style={{ height: cardHeights(1 + Math.max(0, column.length - 1) * step) }}>
                {column.length === 0 && <div class="slot empty-column">{emptyColumnRank !== null && <span class="slot-hint">{RANK_FACES[emptyColumnRank]}</span>}</div>}
                {column.map((card, i) => {
                  const cls = [i >= pickedFrom ? 'selected' : '', i >= hintedFrom ? 'hinted' : '', i >= lastFrom ? 'moved' : '', i >= draggedFrom ? 'dragging' : ''].filter(Boolean).join(' ');
                  return (
                    <Card
                      key={card}
                      card={card}
                      covered={i < column.length - 1 && i < draggedFrom - 1}
                      class={cls || undefined}
                      style={{ top: cardHeights(i * step), ...(i >= draggedFrom ? dragStyle('column', c) : {}) }}
                      onClick={(e) => activate(e, place, column.length - i)}
                      onPointerDown={(e) => press(e, place as Place<'column'>, column.length - i)}
                      onDblClick={i === column.length - 1 ? () => onSendHome({ kind: 'column', index: c }) : undefined}
                    />
                  );
                })}
              </div>
            </div>
          );
        })}
      </div>
      {won != null && (
        <div class="won-banner" role="status" data-testid="won">
          <span class="won-title">Won!</span> Every card is home, in {won} moves.
        </div>
      )}
    </section>
  );
}

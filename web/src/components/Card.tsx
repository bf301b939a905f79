import type { Card as CardCode } from '../../../client-sdk/core/cards.js';
import { face } from '../cardface.js';

interface Props {
  card: CardCode;
  /** Extra classes: `moved` (the current move's card), `source`. */
  class?: string;
  style?: Record<string, string>;
  /** Handlers of the play page (PlayBoard): picking up, dragging, sending home. */
  onClick?: (e: MouseEvent) => void;
  onPointerDown?: (e: PointerEvent) => void;
  onDblClick?: (e: MouseEvent) => void;
  /**
   * A card another card covers below its top corner (fanned in a column):
   * only the corner is drawn (the pip and the bottom corner would be hidden),
   * half the elements and text to lay out.
   */
  covered?: boolean;
}

/** One card face: rank and suit symbol in the corner (readable when fanned), a large pip in the middle. */
export function Card({ card, class: cls, style, onClick, onPointerDown, onDblClick, covered }: Props) {
  const f = face(card);
  return (
    <div class={`card suit-${f.suit}${cls ? ` ${cls}` : ''}`} style={style} data-card={f.rank.replace('10', 'T') + f.suit} role="img" aria-label={f.name} onClick={onClick} onPointerDown={onPointerDown} onDblClick={onDblClick}>
      <span class="corner" aria-hidden="true">
        <span class="rank">{f.rank}</span>
        <span class="sym">{f.symbol}</span>
      </span>
      {!covered && (
        <>
          <span class="pip" aria-hidden="true">
            {f.symbol}
          </span>
          <span class="corner corner-bottom" aria-hidden="true">
            <span class="rank">{f.rank}</span>
            <span class="sym">{f.symbol}</span>
          </span>
        </>
      )}
    </div>
  );
}

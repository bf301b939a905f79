/**
 * The position drawn as cards: free cells (or King Albert's reserve) and
 * foundations on top, the tableau below (in two rows on a phone when it has
 * more than 10 columns), each place labelled with its standard-notation
 * symbol (columns 1..9, 0 and j…, cells a b c d …, foundations h) so the
 * move list can be read against the board. The current move's cards are outlined where
 * they landed, and the place they came from is marked.
 */
import { makeCard, RANK_LETTERS, SUIT_LETTERS } from '../../../client-sdk/core/cards.js';
import type { Move } from '../../../client-sdk/core/moves.js';
import type { Layout, Rules } from '../../../client-sdk/core/rules.js';
import { RANK_FACES, SUIT_NAMES, SUIT_SYMBOLS } from '../cardface.js';
import { cellSymbol, columnSymbol } from '../replay.js';
import { Card } from './Card.js';

interface Props {
  rules: Rules;
  layout: Layout;
  /** The move that led to `layout` (highlighted), if any. */
  move?: Move | null;
  /** The solution's length when `layout` is its end (the game won): a banner says so. Null or absent otherwise. */
  won?: number | null;
}

/**
 * Vertical offset between fanned cards, as a share of the card's height
 * (26/92 at full size); long columns are squeezed. A share, not pixels, so
 * the fan scales with the cards on a narrow screen.
 */
export function fanStep(cards: number): number {
  const px = cards <= 13 ? 26 : Math.max(14, Math.floor((26 * 12) / (cards - 1)));
  return px / 92;
}

/** A length in multiples of the card's height (`--card-h`). */
export function cardHeights(n: number): string {
  return `calc(var(--card-h) * ${n.toFixed(4)})`;
}

/**
 * Columns a row of the tableau holds on a narrow board (styles.css: a board
 * under 720 px, a phone): every column up to 10 (Seahaven Towers, Fortress
 * and Good Measure keep one row), else about half of them, so that a card
 * stays wide enough to read: Fan's 18 in two rows of 9, Baker's Dozen's 13
 * in rows of 7 and 6.
 */
export function narrowRowColumns(columns: number): number {
  return columns <= 10 ? columns : Math.ceil(columns / Math.ceil(columns / 9));
}

/**
 * The board's scale (styles.css, "board"): the widest row of places decides
 * the card width, on a wide board (`--places`: the columns, the free cells,
 * or the 4 foundations) and on a narrow one (`--places-narrow`, with the
 * tableau in rows of `narrowRowColumns`).
 */
export function boardScale(rules: Rules, columns: number): Record<string, string> {
  return {
    '--places': String(Math.max(columns, rules.freeCells, 4)),
    '--places-narrow': String(Math.max(narrowRowColumns(columns), rules.freeCells, 4)),
  };
}

/** The tableau's columns, a row's worth on a wide board (`--columns`) and on a narrow one (`--columns-narrow`). */
export function tableauScale(columns: number): Record<string, string> {
  return { '--columns': String(columns), '--columns-narrow': String(narrowRowColumns(columns)) };
}

/** The title of the cells' group: a reserve (`emptyCell: 'none'`, King Albert) takes no card, free cells any. */
export function cellsTitle(rules: Rules): string {
  return rules.emptyCell === 'none' ? 'Reserve' : 'Free cells';
}

export function Board({ rules, layout, move, won }: Props) {
  const isDest = (kind: Move['to'], i: number) => move != null && move.to === kind && move.toIndex === i;
  const isSource = (kind: Move['from'], i: number) => move != null && move.from === kind && move.fromIndex === i;
  // The hint in an empty column under `emptyColumn: 'kings'`: the top rank, with
  // wrapping ranks the one below the foundation base (docs/rules.md, "Rule parameters").
  const emptyColumnRank =
    rules.emptyColumn !== 'kings' ? null : !rules.wrap || rules.foundationBase === 1 ? 13 : rules.foundationBase - 1;

  // Cards scale to the felt's width: the widest row of places (columns, or free cells) decides.
  return (
    <section class={`board${won != null ? ' board-won' : ''}`} aria-label="Board" style={boardScale(rules, layout.columns.length)}>
      <div class="board-top">
        <div class="group" aria-label={cellsTitle(rules)}>
          <div class="group-title">{cellsTitle(rules)}</div>
          <div class="slots">
            {layout.freeCells.map((card, i) => (
              <div class={`slot-wrap${isSource('cell', i) ? ' move-source' : ''}`} key={i}>
                <div class="slot-label">{cellSymbol(i, rules)}</div>
                <div class="slot" data-cell={i}>
                  {card !== null && <Card card={card} class={isDest('cell', i) ? 'moved' : undefined} />}
                </div>
              </div>
            ))}
            {rules.freeCells === 0 && <div class="muted small">none in this game</div>}
          </div>
        </div>
        <div class="group" aria-label="Foundations">
          <div class="group-title">Foundations (h)</div>
          <div class="slots">
            {layout.foundations.map((count, s) => {
              const top = count === 0 ? 0 : ((rules.foundationBase - 1 + count - 1) % 13) + 1;
              return (
                <div class="slot-wrap" key={s}>
                  <div class="slot-label">{SUIT_SYMBOLS[s]}</div>
                  <div
                    class="slot foundation"
                    data-foundation={SUIT_LETTERS[s]}
                    data-top={top === 0 ? '0' : RANK_LETTERS[top]}
                    data-count={count}
                    aria-label={`${SUIT_NAMES[s]} foundation: ${count} card${count === 1 ? '' : 's'}`}
                  >
                    {top === 0 ? (
                      <span class={`slot-hint suit-${SUIT_LETTERS[s]}`}>{SUIT_SYMBOLS[s]}</span>
                    ) : (
                      <Card card={makeCard(top, s)} class={isDest('foundation', s) ? 'moved' : undefined} />
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
          const source = isSource('column', c);
          // A source column shows a dashed outline where the moved card(s) were.
          const shown = column.length + (source ? 1 : 0);
          const step = fanStep(shown);
          const movedFrom = isDest('column', c) ? column.length - (move?.count ?? 0) : column.length;
          return (
            <div class={`column${source ? ' move-source' : ''}`} key={c} data-column={c}>
              <div class="slot-label">{columnSymbol(c, rules)}</div>
              <div class="stack" style={{ height: cardHeights(1 + Math.max(0, shown - 1) * step) }}>
                {column.length === 0 && <div class="slot empty-column">{emptyColumnRank !== null && <span class="slot-hint">{RANK_FACES[emptyColumnRank]}</span>}</div>}
                {column.map((card, i) => (
                  <Card key={card} card={card} class={i >= movedFrom ? 'moved' : undefined} style={{ top: cardHeights(i * step) }} />
                ))}
                {source && <div class="ghost" style={{ top: cardHeights(column.length * step) }} aria-hidden="true" />}
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

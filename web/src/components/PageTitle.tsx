import type { ComponentChildren } from 'preact';

/**
 * A page's heading: the four suit symbols (decoration, hidden from screen
 * readers) and the page's name. Used by the solver page and the play page.
 */
export function PageTitle({ children }: { children: ComponentChildren }) {
  return (
    <h1>
      <span class="logo" aria-hidden="true">
        <span class="suit-S">♠</span>
        <span class="suit-H">♥</span>
        <span class="suit-D">♦</span>
        <span class="suit-C">♣</span>
      </span>
      {children}
    </h1>
  );
}

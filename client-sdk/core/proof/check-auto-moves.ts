/**
 * Safe auto-moves, the proof checker's own implementation of the rule the
 * certificate declares (docs/proofs.md, "Why each reduction is sound").
 */
import { suitOf } from '../cards.js';
import type { Layout } from '../rules.js';
import { relRank } from './check-keys.js';
import type { AutoMoveRule } from './format.js';

function isRedSuit(suit: number): boolean {
  return suit === 1 || suit === 2;
}

/**
 * True when a card of relative rank `rel` (the foundation base is 1) and
 * suit `suit` (0..3: C, D, H, S), which fits its foundation, may go there
 * under `rule` (`foundations`: each suit's relative count). Also the play
 * module's test of a safe auto-move (client-sdk/core/play.ts).
 */
export function isSafe(rule: AutoMoveRule, rel: number, suit: number, foundations: readonly number[]): boolean {
  switch (rule) {
    case 'suit_always':
      return true;
    case 'suit_wrap_not_base':
      return rel !== 1;
    case 'none':
      return false;
    case 'alternate_color_horne':
      if (rel <= 2) return true;
      for (let t = 0; t < 4; t++) if (isRedSuit(t) !== isRedSuit(suit) && foundations[t] < rel - 1) return false;
      return true;
    case 'rank_other_within_2':
      for (let t = 0; t < 4; t++) if (t !== suit && foundations[t] < rel - 2) return false;
      return true;
    case 'rank_other_within_2_unpooled':
      return false; // pooled certificates only, whose closure is check-pooled.ts `closePooled`
  }
}

/**
 * Plays every safe auto-move on `layout` (mutated) until none is left. The
 * result does not depend on the order: foundations only grow, so a card
 * that may go home stays allowed to, and stays exposed until it moves.
 */
export function closeUnderAutoMoves(layout: Layout, rule: AutoMoveRule, base: number): void {
  if (rule === 'none') return;
  const f = layout.foundations;
  let moved = true;
  while (moved) {
    moved = false;
    for (let i = 0; i < layout.freeCells.length; i++) {
      const card = layout.freeCells[i];
      if (card === null) continue;
      const rel = relRank(card, base);
      const suit = suitOf(card);
      if (f[suit] + 1 === rel && isSafe(rule, rel, suit, f)) {
        layout.freeCells[i] = null;
        f[suit] = rel;
        moved = true;
      }
    }
    for (const col of layout.columns) {
      while (col.length > 0) {
        const card = col[col.length - 1];
        const rel = relRank(card, base);
        const suit = suitOf(card);
        if (f[suit] + 1 !== rel || !isSafe(rule, rel, suit, f)) break;
        col.pop();
        f[suit] = rel;
        moved = true;
      }
    }
  }
}

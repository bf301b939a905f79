/**
 * How each game lays out a shuffled deck, as data plus a few small steps.
 *
 * Input is always the 52 cards in dealing order (first element = first card
 * dealt = top of PySolFC's talon), from `ms.ts` or `pysolfc.ts`. Each game's
 * steps were read off its PySolFC class (`_shuffleHook` and `startGame`):
 * - `pysollib/games/freecell.py`: FreeCell, Relaxed FreeCell, ForeCell;
 * - `pysollib/games/bakersgame.py`: Baker's Game, King Only Baker's Game,
 *   Eight Off, Seahaven Towers, Relaxed Seahaven Towers, Penguin;
 * - `pysollib/games/beleagueredcastle.py`: Streets and Alleys, Beleaguered
 *   Castle, Citadel, Fortress, Siegecraft, Stronghold;
 * - `pysollib/games/bakersdozen.py`: Baker's Dozen, Good Measure;
 * - `pysollib/games/fan.py`: Fan;
 * - `pysollib/games/klondike.py`: King Albert;
 * cross-checked with pysol_cards `deal_game.py` where it covers the game.
 * Presets and cell counts: `docs/rules.md`, "Presets".
 */
import { rankOf, suitOf, type Card } from '../cards.js';
import type { Layout, Numbering } from '../rules.js';

/** A generated starting position. `foundationBase` is set only when it is not the Ace (Penguin). */
export interface GeneratedDeal {
  layout: Layout;
  /** Rank 1..13 the foundations start from, when the deal chooses it (Penguin's beak). */
  foundationBase?: number;
}

/** PySolFC's suit order C, S, H, D as a sort key for our suit index (C, D, H, S). */
const PYSOL_SUIT_ORDER = [0, 3, 2, 1] as const;

/** A selection of cards and their sort key, as in PySolFC's `_shuffleHookMoveTo*`. */
type Selector = (card: Card) => { select: boolean; key: number };

/**
 * PySolFC's `_shuffleHookMoveToTop` / `_shuffleHookMoveToBottom`
 * (`pysollib/game/__init__.py`), on a dealing-order list: the selected cards
 * are taken out and put first (`top`) or last (`bottom`) in the dealing order,
 * sorted by (key, original position); the others keep their order.
 */
function moveSelected(order: readonly Card[], selector: Selector, where: 'top' | 'bottom'): Card[] {
  const picked: { key: number; pos: number; card: Card }[] = [];
  const rest: Card[] = [];
  order.forEach((card, pos) => {
    const { select, key } = selector(card);
    if (select) picked.push({ key, pos, card });
    else rest.push(card);
  });
  picked.sort((a, b) => a.key - b.key || a.pos - b.pos);
  const moved = picked.map((p) => p.card);
  return where === 'top' ? [...moved, ...rest] : [...rest, ...moved];
}

/** Aces, sorted by PySolFC suit order. */
const ACES: Selector = (card) => ({ select: rankOf(card) === 1, key: PYSOL_SUIT_ORDER[suitOf(card)] });

/** A layout being dealt: cards are taken from the front of `order`. */
class Table {
  readonly layout: Layout;
  private next = 0;

  constructor(
    private readonly order: readonly Card[],
    columns: number,
    cells: number,
  ) {
    this.layout = {
      columns: Array.from({ length: columns }, () => []),
      freeCells: new Array<Card | null>(cells).fill(null),
      foundations: [0, 0, 0, 0],
    };
  }

  get left(): number {
    return this.order.length - this.next;
  }

  take(): Card {
    if (this.next >= this.order.length) throw new Error('deal ran out of cards');
    return this.order[this.next++];
  }

  /** `count` cards round-robin from column 0 (PySolFC `dealRow` / `dealRowAvail` repeated). */
  roundRobin(count: number): void {
    const cols = this.layout.columns;
    for (let k = 0; k < count; k++) cols[k % cols.length].push(this.take());
  }

  /** One card to each listed column, in order (PySolFC `dealRow(rows=…)`). */
  toColumns(columns: readonly number[]): void {
    for (const c of columns) this.layout.columns[c].push(this.take());
  }

  /** One card to each listed free cell, in order (PySolFC `dealRow(rows=reserves…)`). */
  toCells(cells: readonly number[]): void {
    for (const c of cells) this.layout.freeCells[c] = this.take();
  }

  /** Next `count` cards onto their foundations (the caller guarantees they fit). */
  toFoundations(count: number): void {
    for (let k = 0; k < count; k++) this.layout.foundations[suitOf(this.take())]++;
  }
}

/** Everything needed to deal one game. */
export interface GameDealer {
  /** Tableau columns. */
  columns: number;
  /** Free cells (the layout's `freeCells` length). */
  cells: number;
  /** Accepted numberings: `ms` only for the FreeCell family (same deal as Microsoft's). */
  numberings: readonly Numbering[];
  /** Lays out the 52 cards given in dealing order. */
  deal(order: readonly Card[]): GeneratedDeal;
}

/**
 * Plain round-robin games: `cells` free cells, all cards round-robin to the
 * columns except the last `cellsFilled.length`, which go to those cells.
 */
function roundRobinGame(columns: number, cells: number, cellsFilled: readonly number[], numberings: readonly Numbering[]): GameDealer {
  return {
    columns,
    cells,
    numberings,
    deal(order) {
      const t = new Table(order, columns, cells);
      t.roundRobin(order.length - cellsFilled.length);
      t.toCells(cellsFilled);
      return { layout: t.layout };
    },
  };
}

/**
 * FreeCell family (`FreeCell.startGame`, `BakersGame.startGame`): 52 cards
 * round-robin to 8 columns (7,7,7,7,6,6,6,6), 4 empty cells. Microsoft
 * numbering gives the Microsoft deal, PySolFC numbering PySolFC's.
 */
const FREECELL_FAMILY = roundRobinGame(8, 4, [], ['ms', 'pysolfc']);

/**
 * Seahaven Towers (`SeahavenTowers.startGame`): 50 cards round-robin to 10
 * columns of 5, the last 2 to cells 1 and 2 of 4. The 3-cell variant keeps
 * the same deal in cells 1 and 2 of 3 (so its board text is identical).
 */
const SEAHAVEN = roundRobinGame(10, 4, [1, 2], ['pysolfc']);

/**
 * Beleaguered Castle (`BeleagueredCastle`): aces moved to the end and dealt
 * to the foundations; 48 cards to 8 columns of 6; `cells` empty free cells
 * (Siegecraft: 1).
 */
function beleagueredCastle(cells: number): GameDealer {
  return {
    columns: 8,
    cells,
    numberings: ['pysolfc'],
    deal(order) {
      const t = new Table(moveSelected(order, ACES, 'bottom'), 8, cells);
      t.roundRobin(48);
      t.toFoundations(4);
      return { layout: t.layout };
    },
  };
}
const BELEAGUERED_CASTLE = beleagueredCastle(0);

/**
 * Citadel (`Citadel`): aces moved to the front and dealt to the foundations;
 * then round-robin over the 8 columns, where a card that fits its foundation
 * at that moment goes there and that column gets nothing this round
 * (docs/rules.md "Deals", Citadel).
 */
const CITADEL: GameDealer = {
  columns: 8,
  cells: 0,
  numberings: ['pysolfc'],
  deal(order) {
    const t = new Table(moveSelected(order, ACES, 'top'), 8, 0);
    t.toFoundations(4);
    const { columns, foundations } = t.layout;
    while (t.left > 0) {
      for (let c = 0; c < columns.length && t.left > 0; c++) {
        const card = t.take();
        const s = suitOf(card);
        if (foundations[s] + 1 === rankOf(card)) foundations[s]++;
        else columns[c].push(card);
      }
    }
    return { layout: t.layout };
  },
};

/**
 * Penguin (`Penguin` in `bakersgame.py`): the first card dealt fixes the beak
 * rank; the four cards of that rank are moved to the front, keeping their
 * order. PySolFC then deals the first three of them to the foundations and
 * the fourth (`talon.cards[-4]`, PySolFC's `base_card`) starts column 1, so
 * the beak in column 1 is the last of the four in the shuffled order. The
 * other 48 cards follow round-robin: 7 columns of 7, 7 empty cells.
 */
const PENGUIN: GameDealer = {
  columns: 7,
  cells: 7,
  numberings: ['pysolfc'],
  deal(order) {
    const beakRank = rankOf(order[0]);
    const t = new Table(moveSelected(order, (c) => ({ select: rankOf(c) === beakRank, key: 0 }), 'top'), 7, 7);
    t.toFoundations(3);
    t.roundRobin(49);
    return { layout: t.layout, foundationBase: beakRank };
  },
};

/**
 * PySolFC's `BakersDozen._shuffleHook` (`pysollib/games/bakersdozen.py`) for
 * `columns` columns; returns the new dealing order (docs/rules.md "Baker's
 * Dozen's kings"). The hook gets the shuffled list, whose first card PySolFC
 * would deal last, and reverses it when done, so the list it works on is
 * `order` reversed, and its place i is the i-th card dealt: column
 * i mod `columns`. Each king, from the first place to the last, is swapped
 * with the first non-king among places i mod `columns`, i mod `columns` +
 * `columns`, … before its own: the deepest non-king of its column.
 */
function kingsToBottom(order: readonly Card[], columns: number): Card[] {
  const cards = order.slice().reverse();
  const kings: number[] = [];
  cards.forEach((card, i) => {
    if (rankOf(card) === 13) kings.push(i);
  });
  for (const i of kings) {
    for (let j = i % columns; j < i; j += columns) {
      if (rankOf(cards[j]) !== 13) {
        [cards[i], cards[j]] = [cards[j], cards[i]];
        break;
      }
    }
  }
  return cards;
}

/**
 * Baker's Dozen (`BakersDozen`): the kings moved under their columns
 * ({@link kingsToBottom}), then all 52 round-robin to 13 columns of 4.
 */
const BAKERS_DOZEN: GameDealer = {
  columns: 13,
  cells: 0,
  numberings: ['pysolfc'],
  deal(order) {
    const t = new Table(kingsToBottom(order, 13), 13, 0);
    t.roundRobin(52);
    return { layout: t.layout };
  },
};

/**
 * Good Measure (`GoodMeasure`): Baker's Dozen's hook for 10 columns, then
 * the last two aces of that order are taken out and go to the foundations
 * (`_shuffleHookMoveToBottom` with 2 cards scans from the card dealt last);
 * the other 50 go round-robin to 10 columns of 5. Taking the aces out after
 * the kings were placed shifts the cards dealt after them, so a king can end
 * up above other cards of its column (16 of deals 1..1000; docs/rules.md
 * "Deals").
 */
const GOOD_MEASURE: GameDealer = {
  columns: 10,
  cells: 0,
  numberings: ['pysolfc'],
  deal(order) {
    const cards = kingsToBottom(order, 10);
    const aces: number[] = [];
    for (let i = cards.length - 1; i >= 0 && aces.length < 2; i--) if (rankOf(cards[i]) === 1) aces.push(i);
    const rest = cards.filter((_, i) => !aces.includes(i));
    const t = new Table([...rest, ...aces.map((i) => cards[i])], 10, 0);
    t.roundRobin(50);
    t.toFoundations(2);
    return { layout: t.layout };
  },
};

/** Column indices from..to-1. */
const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

/**
 * Fan (`Fan.startGame`): two rounds to the first 17 columns, then one round
 * to all 18: 17 columns of 3 and the last of 1.
 */
const FAN: GameDealer = {
  columns: 18,
  cells: 0,
  numberings: ['pysolfc'],
  deal(order) {
    const t = new Table(order, 18, 0);
    for (let round = 0; round < 2; round++) t.toColumns(range(0, 17));
    t.toColumns(range(0, 18));
    return { layout: t.layout };
  },
};

/**
 * King Albert (`KingAlbert.startGame`, Klondike's dealing without reversal):
 * for k = 1..8 one card to each of columns k..8, then one to each of the 9
 * columns (column k ends with k + 1 cards, 45 in all), then the last 7 to the
 * reserve (cells 0..6).
 */
const KING_ALBERT: GameDealer = {
  columns: 9,
  cells: 7,
  numberings: ['pysolfc'],
  deal(order) {
    const t = new Table(order, 9, 7);
    for (let k = 1; k < 9; k++) t.toColumns(range(k, 9));
    t.toColumns(range(0, 9));
    t.toCells(range(0, 7));
    return { layout: t.layout };
  },
};

/** Every game id with a dealer. `sham_battle` is PySolFC's and Wikipedia's other name for Beleaguered Castle (docs/rules.md "Presets"). */
export const GAME_DEALERS: Readonly<Record<string, GameDealer>> = {
  freecell: FREECELL_FAMILY,
  relaxed_freecell: FREECELL_FAMILY,
  bakers_game: FREECELL_FAMILY,
  kings_only_bakers_game: FREECELL_FAMILY,
  // ForeCell (`ForeCell.startGame`): 48 cards to 8 columns of 6, the last 4 to the 4 cells.
  forecell: roundRobinGame(8, 4, [0, 1, 2, 3], ['pysolfc']),
  // Eight Off (`EightOff.startGame`): 48 cards to 8 columns of 6, the last 4 to cells 0, 2, 4, 6 of 8.
  eight_off: roundRobinGame(8, 8, [0, 2, 4, 6], ['pysolfc']),
  seahaven_towers: SEAHAVEN,
  seahaven_towers_relaxed: SEAHAVEN,
  seahaven_towers_unlimited: SEAHAVEN,
  seahaven_towers_3cells: roundRobinGame(10, 3, [1, 2], ['pysolfc']),
  beleaguered_castle: BELEAGUERED_CASTLE,
  sham_battle: BELEAGUERED_CASTLE,
  // Streets and Alleys (`StreetsAndAlleys.startGame`): all 52 round-robin to 8 columns (7,7,7,7,6,6,6,6).
  streets_and_alleys: roundRobinGame(8, 0, [], ['pysolfc']),
  citadel: CITADEL,
  // Fortress (`Fortress.startGame`): all 52 round-robin to 10 columns (6,6,5,5,5,5,5,5,5,5).
  fortress: roundRobinGame(10, 0, [], ['pysolfc']),
  penguin: PENGUIN,
  bakers_dozen: BAKERS_DOZEN,
  good_measure: GOOD_MEASURE,
  fan: FAN,
  king_albert: KING_ALBERT,
  // Siegecraft (`Siegecraft`): Beleaguered Castle's deal, one empty free cell.
  siegecraft: beleagueredCastle(1),
  // Stronghold (`Stronghold`): Streets and Alleys' deal, one empty free cell.
  stronghold: roundRobinGame(8, 1, [], ['pysolfc']),
};

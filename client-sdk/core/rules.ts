/**
 * Rules as data: the parameters that one engine needs to play every game, the
 * game presets, and the position ("layout") type.
 *
 * Source of every rule: `docs/rules.md` ("Rule parameters" and "Presets"),
 * which cites the seed rule pages, PySolFC and fc-solve.
 */
import type { Card } from './cards.js';

/**
 * The rule vocabularies, each written out once. The types, the wire schemas
 * (client-sdk/api/schemas.ts), the request check, the checker and the engine
 * codes are all derived from these tuples. The engine's numeric code of a
 * word is the module's export of that name (`BUILD_SUIT_UP_OR_DOWN`,
 * `EMPTY_KINGS`, `SEQ_CELLS_PLUS_ONE` in assembly/rules.ts), read by the glue
 * when the module is instantiated (client-sdk/core/engine/abi.ts), so the order
 * of a tuple is free.
 */

/**
 * How tableau cards build on each other (docs/rules.md, "tableau build"):
 * - `alternate_color`: down in alternate colours (FreeCell);
 * - `suit`: down in suit (Baker's Game, Seahaven Towers, Penguin);
 * - `rank`: down regardless of suit (Beleaguered Castle);
 * - `suit_up_or_down`: up or down in suit (Fortress).
 */
export const BUILD_RULES = ['alternate_color', 'suit', 'rank', 'suit_up_or_down'] as const;
/** One of {@link BUILD_RULES}. */
export type BuildRule = (typeof BUILD_RULES)[number];

/**
 * Which cards an empty column accepts (docs/rules.md, "Rule parameters"): `any`
 * card; `kings`: the top rank (King, or with a wrapping deck the rank below
 * the foundation base); `none`.
 */
export const EMPTY_COLUMN_RULES = ['any', 'kings', 'none'] as const;
/** One of {@link EMPTY_COLUMN_RULES}. */
export type EmptyColumnRule = (typeof EMPTY_COLUMN_RULES)[number];

/**
 * What an empty free cell accepts (docs/rules.md, "Rule parameters"): `any`
 * card (FreeCell and every game with free cells); `none`: the cells are a
 * reserve, filled by the deal and played from, never filled again (King
 * Albert). {@link Rules.emptyCell} absent means `any`.
 */
export const EMPTY_CELL_RULES = ['any', 'none'] as const;
/** One of {@link EMPTY_CELL_RULES}. */
export type EmptyCellRule = (typeof EMPTY_CELL_RULES)[number];

/**
 * How many cards move at once from column to column (docs/rules.md, "Rule parameters"):
 * - `none`: single cards only;
 * - `supermove`: at most (f + 1) * 2^e, f = empty free cells, e = empty columns not counting the destination;
 * - `cells_plus_one`: at most f + 1;
 * - `unlimited`: any valid sequence (a real rule change, e.g. Relaxed FreeCell).
 */
export const SEQUENCE_MOVE_RULES = ['none', 'supermove', 'cells_plus_one', 'unlimited'] as const;
/** One of {@link SEQUENCE_MOVE_RULES}. */
export type SequenceMoveRule = (typeof SEQUENCE_MOVE_RULES)[number];

/**
 * How a preset's deals may be numbered (docs/rules.md, "Deals"): `ms`,
 * Microsoft FreeCell / FreeCell Pro numbers; `pysolfc`, PySolFC game numbers.
 */
export const NUMBERINGS = ['ms', 'pysolfc'] as const;
/** One of {@link NUMBERINGS}. */
export type Numbering = (typeof NUMBERINGS)[number];

/** Every rule parameter of a game. */
export interface Rules {
  /** Number of tableau columns, 1..{@link MAX_COLUMNS}. */
  columns: number;
  /** Number of free cells (or reserve cells, see {@link emptyCell}), 0..8. */
  freeCells: number;
  /**
   * What an empty free cell accepts; absent means `any`. `none` makes the
   * cells a reserve: cards leave them (to a column or a foundation) and
   * none ever enters, so an emptied cell stays empty and counts for no
   * sequence move (King Albert; docs/rules.md "Rule parameters").
   */
  emptyCell?: EmptyCellRule;
  /** Tableau build rule. */
  build: BuildRule;
  /** What an empty column accepts. */
  emptyColumn: EmptyColumnRule;
  /** Sequence-move capacity rule. */
  sequenceMove: SequenceMoveRule;
  /** Rank the foundations start from, 1..13 (1 = Ace; Penguin: the beak's rank). */
  foundationBase: number;
  /** Ranks wrap K→A on the foundations and A→K on the tableau (Penguin). */
  wrap: boolean;
}

/**
 * A position: the tableau, the free cells and the foundations.
 * - `columns[i]` lists column i's cards from the deepest (index 0) to the exposed one (last).
 * - `freeCells[i]` is the card in cell i or `null`; its length equals `rules.freeCells`.
 * - `foundations[s]` is the number of cards on suit s's foundation (suits C, D, H, S), 0..13.
 */
export interface Layout {
  columns: Card[][];
  freeCells: (Card | null)[];
  foundations: [number, number, number, number];
}

/** A game to solve: rules plus a starting layout. */
export interface Deal {
  rules: Rules;
  layout: Layout;
}

/** A named game: its rules and how its deals are made. */
export interface GamePreset {
  /** Stable identifier used by the API, e.g. `"seahaven_towers"`. */
  id: string;
  /** Human-readable name. */
  name: string;
  /** One-line description, including where the rule comes from. */
  description: string;
  /** The game's rules. */
  rules: Rules;
  /** Deal numberings this game accepts; empty when a layout is required. */
  numberings: Numbering[];
  /**
   * Budgets this game's solves get when the request names none, instead of
   * the service defaults (still within the service caps). The Castle games'
   * spaces are larger: their hard deals need tens of millions of positions.
   */
  defaultLimits?: { maxStates: number; timeoutMs: number };
  /**
   * True when each numbered deal fixes its own foundation base (Penguin: the
   * rank of the beak, the first card dealt; docs/rules.md "Penguin's beak"):
   * `rules.foundationBase` is then only the base of a board or layout given
   * without an override, and a deal answers with its own. Absent: false.
   */
  foundationBaseFromDeal?: boolean;
}

/**
 * Default budgets of the games whose hard deals need tens of millions of
 * positions: the Castle games, Baker's Dozen, Good Measure and King Albert
 * (about 2.2 GB of engine memory at most, and a minute).
 */
const LARGE_SPACE_LIMITS = { maxStates: 30_000_000, timeoutMs: 60_000 };

const FREECELL: Rules = {
  columns: 8,
  freeCells: 4,
  build: 'alternate_color',
  emptyColumn: 'any',
  sequenceMove: 'supermove',
  foundationBase: 1,
  wrap: false,
};

const SEAHAVEN: Rules = {
  columns: 10,
  freeCells: 4,
  build: 'suit',
  emptyColumn: 'kings',
  sequenceMove: 'cells_plus_one',
  foundationBase: 1,
  wrap: false,
};

const BELEAGUERED_CASTLE: Rules = {
  columns: 8,
  freeCells: 0,
  build: 'rank',
  emptyColumn: 'any',
  sequenceMove: 'none',
  foundationBase: 1,
  wrap: false,
};

/** Baker's Dozen (PySolFC `BakersDozen`: `RK_RowStack`, `max_move=1`, `base_rank=NO_RANK`; fc-solve preset `bakers_dozen`). */
const BAKERS_DOZEN: Rules = {
  columns: 13,
  freeCells: 0,
  build: 'rank',
  emptyColumn: 'none',
  sequenceMove: 'none',
  foundationBase: 1,
  wrap: false,
};

/** Every preset, in the order `GET /v1/games` lists them. */
export const PRESETS: readonly GamePreset[] = [
  {
    id: 'freecell',
    name: 'FreeCell',
    description: '8 columns, 4 free cells, build down in alternate colours, any card to an empty column, supermoves (Microsoft/FreeCell Pro numbers or PySolFC numbers).',
    rules: FREECELL,
    numberings: ['ms', 'pysolfc'],
  },
  {
    id: 'relaxed_freecell',
    name: 'Relaxed FreeCell',
    description: 'FreeCell with unlimited sequence moves (PySolFC "Relaxed FreeCell").',
    rules: { ...FREECELL, sequenceMove: 'unlimited' },
    numberings: ['ms', 'pysolfc'],
  },
  {
    id: 'forecell',
    name: 'ForeCell',
    description: '8 columns of 6, the last 4 cards dealt to the free cells, alternate colours, kings only to empty columns, (free cells + 1) cards per move (PySolFC).',
    rules: { ...FREECELL, emptyColumn: 'kings', sequenceMove: 'cells_plus_one' },
    numberings: ['pysolfc'],
  },
  {
    id: 'bakers_game',
    name: "Baker's Game",
    description: 'FreeCell building down in suit instead of alternate colours.',
    rules: { ...FREECELL, build: 'suit' },
    numberings: ['ms', 'pysolfc'],
  },
  {
    id: 'kings_only_bakers_game',
    name: "King's Only Baker's Game",
    description: "Baker's Game where only kings fill empty columns; (free cells + 1) cards per move (PySolFC, fc-solve).",
    rules: { ...FREECELL, build: 'suit', emptyColumn: 'kings', sequenceMove: 'cells_plus_one' },
    numberings: ['ms', 'pysolfc'],
  },
  {
    id: 'eight_off',
    name: 'Eight Off',
    description: '8 columns of 6, 8 free cells with 4 filled by the deal, build down in suit, kings only to empty columns (PySolFC).',
    rules: { ...SEAHAVEN, columns: 8, freeCells: 8 },
    numberings: ['pysolfc'],
  },
  {
    id: 'seahaven_towers',
    name: 'Seahaven Towers',
    description: '10 columns of 5, 4 free cells with 2 filled by the deal, build down in suit, kings only to empty columns, (free cells + 1) cards per move.',
    rules: SEAHAVEN,
    numberings: ['pysolfc'],
  },
  {
    id: 'seahaven_towers_relaxed',
    name: 'Seahaven Towers (relaxed, seed rule)',
    description: "The seed page's relaxed rule: any card may fill an empty column; supermoves.",
    rules: { ...SEAHAVEN, emptyColumn: 'any', sequenceMove: 'supermove' },
    numberings: ['pysolfc'],
  },
  {
    id: 'seahaven_towers_unlimited',
    name: 'Relaxed Seahaven Towers (PySolFC / fc-solve)',
    description: 'What PySolFC and fc-solve call "Relaxed Seahaven Towers": kings only to empty columns, unlimited sequence moves.',
    rules: { ...SEAHAVEN, sequenceMove: 'unlimited' },
    numberings: ['pysolfc'],
  },
  {
    id: 'seahaven_towers_3cells',
    name: 'Seahaven Towers (3 cells)',
    description: "The seed page's variant with 3 free cells, 2 of them filled by the deal.",
    rules: { ...SEAHAVEN, freeCells: 3 },
    numberings: ['pysolfc'],
  },
  {
    id: 'penguin',
    name: 'Penguin',
    description: '7 columns of 7, 7 free cells; the first card dealt (the beak) fixes the foundation base, the other three of its rank start on the foundations; build down in suit wrapping A→K; empty columns take only the rank below the beak; unlimited sequence moves (PySolFC).',
    rules: { columns: 7, freeCells: 7, build: 'suit', emptyColumn: 'kings', sequenceMove: 'unlimited', foundationBase: 1, wrap: true },
    foundationBaseFromDeal: true,
    numberings: ['pysolfc'],
  },
  {
    id: 'beleaguered_castle',
    name: 'Beleaguered Castle',
    description: '8 columns of 6 with the aces on the foundations, build down regardless of suit, any card to an empty column, single cards only.',
    rules: BELEAGUERED_CASTLE,
    numberings: ['pysolfc'],
    defaultLimits: LARGE_SPACE_LIMITS,
  },
  {
    id: 'sham_battle',
    name: 'Sham Battle',
    description: 'Another name of Beleaguered Castle (PySolFC, Wikipedia); the seed page\'s 42-card description cannot hold a deck (see docs/rules.md).',
    rules: BELEAGUERED_CASTLE,
    numberings: ['pysolfc'],
    defaultLimits: LARGE_SPACE_LIMITS,
  },
  {
    id: 'streets_and_alleys',
    name: 'Streets and Alleys',
    description: 'Beleaguered Castle with all 52 cards dealt to 8 columns (7,7,7,7,6,6,6,6); no aces start on the foundations.',
    rules: BELEAGUERED_CASTLE,
    numberings: ['pysolfc'],
    defaultLimits: LARGE_SPACE_LIMITS,
  },
  {
    id: 'citadel',
    name: 'Citadel',
    description: 'Beleaguered Castle where a card that fits a foundation while the deal is made goes there (PySolFC).',
    rules: BELEAGUERED_CASTLE,
    numberings: ['pysolfc'],
    defaultLimits: LARGE_SPACE_LIMITS,
  },
  {
    id: 'selective_castle',
    name: 'Selective Castle',
    description: "Beleaguered Castle rules on a layout the player arranged (the seed page); a board or layout is required. PySolFC's game of this name is a different one.",
    rules: BELEAGUERED_CASTLE,
    numberings: [],
    defaultLimits: LARGE_SPACE_LIMITS,
  },
  {
    id: 'fortress',
    name: 'Fortress',
    description: '10 columns (6,6,5,5,5,5,5,5,5,5), no free cells, build up or down in suit, any card to an empty column, single cards only (PySolFC).',
    rules: { columns: 10, freeCells: 0, build: 'suit_up_or_down', emptyColumn: 'any', sequenceMove: 'none', foundationBase: 1, wrap: false },
    numberings: ['pysolfc'],
  },
  {
    id: 'bakers_dozen',
    name: "Baker's Dozen",
    description: '13 columns of 4, every king dealt under the other cards of its column, no free cells, build down regardless of suit, single cards only, an emptied column is never filled (PySolFC, fc-solve).',
    rules: BAKERS_DOZEN,
    numberings: ['pysolfc'],
    defaultLimits: LARGE_SPACE_LIMITS,
  },
  {
    id: 'good_measure',
    name: 'Good Measure',
    description: "Baker's Dozen on 10 columns of 5, with two aces dealt to the foundations (PySolFC, fc-solve).",
    rules: { ...BAKERS_DOZEN, columns: 10 },
    numberings: ['pysolfc'],
    defaultLimits: LARGE_SPACE_LIMITS,
  },
  {
    id: 'fan',
    name: 'Fan',
    description: '18 columns, 17 of 3 cards and one of 1, no free cells, build down in suit, single cards only, kings only to empty columns (PySolFC, fc-solve).',
    rules: { columns: 18, freeCells: 0, build: 'suit', emptyColumn: 'kings', sequenceMove: 'none', foundationBase: 1, wrap: false },
    numberings: ['pysolfc'],
  },
  {
    id: 'king_albert',
    name: 'King Albert',
    description: '9 columns of 1 to 9 cards and a reserve of 7 that is played from and never filled, build down in alternate colours, single cards only, any card to an empty column (PySolFC).',
    rules: { columns: 9, freeCells: 7, emptyCell: 'none', build: 'alternate_color', emptyColumn: 'any', sequenceMove: 'none', foundationBase: 1, wrap: false },
    numberings: ['pysolfc'],
    defaultLimits: LARGE_SPACE_LIMITS,
  },
  {
    id: 'siegecraft',
    name: 'Siegecraft',
    description: 'Beleaguered Castle with one free cell (PySolFC).',
    rules: { ...BELEAGUERED_CASTLE, freeCells: 1 },
    numberings: ['pysolfc'],
    defaultLimits: LARGE_SPACE_LIMITS,
  },
  {
    id: 'stronghold',
    name: 'Stronghold',
    description: 'Streets and Alleys with one free cell (PySolFC).',
    rules: { ...BELEAGUERED_CASTLE, freeCells: 1 },
    numberings: ['pysolfc'],
    defaultLimits: LARGE_SPACE_LIMITS,
  },
];

/** Looks up a preset ({@link PRESETS}) by id; `undefined` when there is none. */
export function findPreset(id: string): GamePreset | undefined {
  return PRESETS.find((p) => p.id === id);
}

/**
 * Most tableau columns of the model: the rules, the board text, the JSON
 * layout, the notation and the checker (Fan has 18).
 */
export const MAX_COLUMNS = 18;
/**
 * Most tableau columns the engine plays (assembly/position.ts MAX_COLUMNS):
 * what the service's request check and wire schemas accept; the model's
 * {@link MAX_COLUMNS}.
 */
export const ENGINE_MAX_COLUMNS = MAX_COLUMNS;
/**
 * Most columns whose canonical key fits 48 bytes: a key holds 53 + columns
 * six-bit symbols, at most 64 in 48 bytes (docs/proofs.md "Key encoding";
 * `keyBytesFor` in client-sdk/core/proof/format.ts). Pooled and layered
 * certificates have 48-byte keys, so the pooled and layered passes run only
 * in games of at most this many columns (Good Measure's 10, not Baker's
 * Dozen's 13).
 */
export const NARROW_KEY_MAX_COLUMNS = 11;
/** Most free cells (or reserve cells) of the model and the engine. */
export const MAX_FREE_CELLS = 8;

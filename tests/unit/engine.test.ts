/**
 * The engine against the reference verdicts and the independent checker.
 *
 * Every verdict of `tests/fixtures/data/verdicts/` for the FreeCell family must be
 * matched, and every solution must replay under `checkSolution` (written from
 * the rules, sharing no code with the engine). Budget cuts must answer
 * `unknown`, never `unsolvable`.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseBoard } from '../../client-sdk/core/board.js';
import { generateDeal } from '../../client-sdk/core/deals/index.js';
import { Engine, requireCheckedPackedSolution, type PackedSolutionSink } from '../../client-sdk/core/engine/index.js';
import { EngineMemory } from '../../client-sdk/core/engine/memory.js';
import { ENGINE_COUNTERS, ENGINE_FUNCTIONS } from '../../client-sdk/core/engine/abi.js';
import { createTuningEngine, tuningHooks } from '../helpers/tuning-engine.js';
import { packMoves } from '../../client-sdk/core/moves.js';
import { findPreset, type Deal, type Rules } from '../../client-sdk/core/rules.js';
import type { SolveLimits, SolveOutcome } from '../../client-sdk/core/solve-types.js';
import { checkSolution } from '../../client-sdk/core/verify.js';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REFERENCE_DEALS, ROOT } from '../helpers/paths.js';

const DATA = pathToFileURL(join(REFERENCE_DEALS, '..') + '/');
const LIMITS: SolveLimits = { maxStates: 5_000_000, timeoutMs: 60_000 };

function rulesOf(game: string): Rules {
  const preset = findPreset(game);
  if (!preset) throw new Error(`no preset ${game}`);
  return { ...preset.rules };
}

function readDeals(file: string): { deal: string; board: string }[] {
  return readFileSync(new URL(`deals/${file}.jsonl`, DATA), 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const parsed = JSON.parse(line) as { board: string };
      // deal numbers beyond 2^53 lose digits in JSON.parse: read them raw
      const deal = /"deal":\s*(\d+)/.exec(line)![1];
      return { deal, board: parsed.board };
    });
}

function readVerdicts(game: string): Map<string, string> {
  const rows = readFileSync(new URL(`verdicts/${game}.tsv`, DATA), 'utf8').trim().split('\n').slice(1);
  return new Map(rows.map((row) => row.split('\t') as [string, string]));
}

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.create();
});

/** Solves and, for a solution, replays it with the checker here too (not only inside Engine.solve). */
function solveChecked(deal: Deal, limits: SolveLimits = LIMITS): SolveOutcome {
  const outcome = engine.solve(deal, { limits });
  if (outcome.verdict === 'solved') {
    const check = checkSolution(deal.rules, deal.layout, outcome.moves);
    expect(check, JSON.stringify(check)).toMatchObject({ ok: true });
  } else {
    expect(outcome.moves).toEqual([]);
  }
  return outcome;
}

describe.each([
  ['seahaven_towers', 'seahaven_towers'],
  ['seahaven_towers_3cells', 'seahaven_towers'],
  ['bakers_game', 'bakers_game'],
  ['eight_off', 'eight_off'],
])('reference verdicts: %s (PySolFC deals 1..200)', (game, dealFile) => {
  it('matches every decided row with a checked solution or a complete search', () => {
    const rules = rulesOf(game);
    const expected = readVerdicts(game);
    const mismatches: string[] = [];
    let decided = 0;
    for (const { deal, board } of readDeals(dealFile)) {
      const want = expected.get(deal);
      if (!want) continue;
      const outcome = solveChecked({ rules, layout: parseBoard(board, rules) });
      const got = outcome.verdict === 'solved' ? 'solvable' : outcome.verdict;
      if (want !== 'unknown' && got !== want) mismatches.push(`${deal}: want ${want}, got ${got} ${outcome.reason ?? ''}`);
      if (got !== 'unknown') decided++;
    }
    expect(mismatches).toEqual([]);
    expect(decided).toBe(expected.size);
  });
});

describe('Microsoft FreeCell', () => {
  it('solves every deal of freecell_ms.jsonl but the known unsolvable 11982 and 146692 (deals 1..200 and the FreeCell Pro range)', () => {
    const rules = rulesOf('freecell');
    const verdicts: Record<string, string> = {};
    for (const { deal, board } of readDeals('freecell_ms')) {
      verdicts[deal] = solveChecked({ rules, layout: parseBoard(board, rules) }).verdict;
    }
    const notSolved = Object.entries(verdicts).filter(([, v]) => v !== 'solved');
    expect(notSolved).toEqual([
      ['11982', 'unsolvable'],
      ['146692', 'unsolvable'],
    ]);
  });

  it('solves MS deals 201..1000 with checked solutions', () => {
    const rules = rulesOf('freecell');
    const notSolved: string[] = [];
    for (let n = 201; n <= 1000; n++) {
      const outcome = solveChecked({ rules, layout: generateDeal('freecell', 'ms', n).layout });
      if (outcome.verdict !== 'solved') notSolved.push(`${n}: ${outcome.verdict}`);
    }
    expect(notSolved).toEqual([]);
  });

  it('proves the eight known unsolvable deals of 1..1,000,000 unsolvable (tests/fixtures/data/README.md)', () => {
    const rules = rulesOf('freecell');
    for (const n of [11982, 146692, 186216, 455889, 495505, 512118, 517776, 781948]) {
      const outcome = solveChecked({ rules, layout: generateDeal('freecell', 'ms', n).layout });
      expect([n, outcome.verdict]).toEqual([n, 'unsolvable']);
      // a complete search expands every position it stores
      expect(outcome.stats.statesExpanded).toBe(outcome.stats.statesStored);
    }
  });
});

describe('every preset of the FreeCell family gives checked solutions', () => {
  it.each([
    ['relaxed_freecell', 'ms'],
    ['kings_only_bakers_game', 'ms'],
    ['forecell', 'pysolfc'],
    ['seahaven_towers_relaxed', 'pysolfc'],
    ['seahaven_towers_unlimited', 'pysolfc'],
  ] as const)('%s deals 1..30', (game, numbering) => {
    const rules = rulesOf(game);
    let solved = 0;
    for (let n = 1; n <= 30; n++) {
      const outcome = solveChecked({ rules, layout: generateDeal(game, numbering, n).layout });
      expect(outcome.verdict).not.toBe('unknown');
      if (outcome.verdict === 'solved') solved++;
    }
    expect(solved).toBeGreaterThan(0);
  });

  it('honours a mixed rule override (kings-only empty columns with the supermove formula)', () => {
    const rules: Rules = { ...rulesOf('freecell'), emptyColumn: 'kings' };
    for (let n = 1; n <= 20; n++) solveChecked({ rules, layout: generateDeal('freecell', 'ms', n).layout });
  });
});

describe('a solution left packed (Engine.solve with a PackedSolutionSink, as the pool\'s workers solve)', () => {
  it.each([
    ['freecell', 'ms'],
    ['bakers_game', 'ms'],
    ['seahaven_towers', 'pysolfc'],
    ['penguin', 'pysolfc'],
  ] as const)('%s deals 1..12: the same verdicts, stats and moves as move objects, byte for byte', (game, numbering) => {
    const rules = rulesOf(game);
    const sink: PackedSolutionSink = { moves: undefined };
    for (let n = 1; n <= 12; n++) {
      const deal = { rules, layout: generateDeal(game, numbering, n).layout };
      const objects = engine.solve(deal, { limits: LIMITS });
      sink.moves = undefined;
      const packed = engine.solve(deal, { limits: LIMITS, packedSolution: sink });
      expect(packed.verdict).toBe(objects.verdict);
      expect(packed.stats.statesStored).toBe(objects.stats.statesStored);
      expect(packed.moves).toEqual([]);
      if (objects.verdict === 'solved') {
        expect(sink.moves, `deal ${n}`).toEqual(packMoves(objects.moves));
        // checked again here, on bytes of its own (the sink's are the engine's to reuse)
        requireCheckedPackedSolution(deal, sink.moves!.slice());
      } else {
        expect(sink.moves).toBeUndefined();
      }
    }
  });

  it('Engine.solve refuses an engine output the checker rejects, packed or as move objects (the output read back with one move changed)', () => {
    const deal = { rules: rulesOf('freecell'), layout: generateDeal('freecell', 'ms', 1).layout };
    // the engine's solution readers (client-sdk/core/engine/memory.ts), patched to read one move wrong
    const proto = EngineMemory.prototype as unknown as { readSolutionPacked(base: number): Uint8Array; readSolution(base: number): { toIndex: number }[] };
    const { readSolutionPacked, readSolution } = proto;
    try {
      proto.readSolutionPacked = function (this: unknown, base: number) {
        const bytes = readSolutionPacked.call(this, base);
        bytes[8 * 3 + 3] = (bytes[8 * 3 + 3] + 1) % 8; // move 4's target index
        return bytes;
      };
      proto.readSolution = function (this: unknown, base: number) {
        const moves = readSolution.call(this, base);
        moves[3].toIndex = (moves[3].toIndex + 1) % 8;
        return moves;
      };
      expect(() => engine.solve(deal, { limits: LIMITS, packedSolution: { moves: undefined } })).toThrow(/failed the independent check at move 4:/);
      expect(() => engine.solve(deal, { limits: LIMITS })).toThrow(/failed the independent check at move 4:/);
    } finally {
      proto.readSolutionPacked = readSolutionPacked;
      proto.readSolution = readSolution;
    }
    expect(engine.solve(deal, { limits: LIMITS }).verdict).toBe('solved');
  });

  it('a packed solution with one move changed fails the check at that move', () => {
    const deal = { rules: rulesOf('freecell'), layout: generateDeal('freecell', 'ms', 1).layout };
    const sink: PackedSolutionSink = { moves: undefined };
    engine.solve(deal, { limits: LIMITS, packedSolution: sink });
    const bytes = sink.moves!.slice();
    bytes[8 * 3 + 3] = (bytes[8 * 3 + 3] + 1) % 8; // move 4's target index
    expect(() => requireCheckedPackedSolution(deal, bytes)).toThrow(/at move 4:/);
  });
});

describe('verdicts are never stronger than the search', () => {
  it('a state budget cut on an unsolvable deal answers unknown, not unsolvable', () => {
    const rules = rulesOf('freecell');
    const deal = { rules, layout: generateDeal('freecell', 'ms', 11982).layout };
    const full = solveChecked(deal);
    expect(full.verdict).toBe('unsolvable');
    for (const maxStates of [1, 100, full.stats.statesStored - 1]) {
      const cut = solveChecked(deal, { maxStates, timeoutMs: 60_000 });
      expect(cut).toMatchObject({ verdict: 'unknown', reason: 'max_states' });
    }
    // exactly enough room for the whole space: the proof goes through
    expect(solveChecked(deal, { maxStates: full.stats.statesStored, timeoutMs: 60_000 }).verdict).toBe('unsolvable');
  });

  it('a deadline cut answers unknown with reason timeout', () => {
    const rules = rulesOf('freecell');
    const outcome = solveChecked({ rules, layout: generateDeal('freecell', 'ms', 11982).layout }, { maxStates: 5_000_000, timeoutMs: 0 });
    expect(outcome).toMatchObject({ verdict: 'unknown', reason: 'timeout' });
  });

  it('a memory cut answers unknown with reason memory', () => {
    const rules = rulesOf('freecell');
    const deal = { rules, layout: generateDeal('freecell', 'ms', 11982).layout };
    const full = engine.solve(deal, { limits: LIMITS });
    expect(full.verdict).toBe('unsolvable');
    // Below the memory the complete search used, the engine either falls back
    // to its leaner eager phase and proves the same set, or answers unknown:
    // never another verdict, and a small enough cap must cut it.
    let cuts = 0;
    for (let cap = full.stats.memoryBytes - 1; cap > 1 << 20; cap = Math.floor(cap / 2)) {
      const outcome = engine.solve(deal, { limits: LIMITS, memoryLimitBytes: cap });
      if (outcome.verdict === 'unsolvable') {
        expect(outcome.stats.statesStored).toBe(full.stats.statesStored);
      } else {
        expect(outcome).toMatchObject({ verdict: 'unknown', reason: 'memory' });
        cuts++;
      }
      expect(outcome.stats.memoryBytes).toBeLessThanOrEqual(cap);
    }
    expect(cuts).toBeGreaterThan(0);
  });

  it('uses a memory cap to the end: old hash slots hold records, and slots that cannot double fill fuller', () => {
    // Streets and Alleys runs in the compact layout (assembly/castle-key.ts:
    // 25-byte records, 4-byte slots): under 64 MiB it stores about 1.97
    // million positions, the old slot blocks reused for records and the slots
    // grown only as far as the records that fit need (compact-table.ts
    // `compactSlotTarget`), filled up to 15/16. The bound is above what the
    // 56-byte layout stores under this cap (806,911), so the test fails if
    // the compact layout or its slot reuse is lost.
    const deal = { rules: rulesOf('streets_and_alleys'), layout: generateDeal('streets_and_alleys', 'pysolfc', 77).layout };
    const outcome = engine.solve(deal, { limits: { maxStates: 30_000_000, timeoutMs: 60_000 }, memoryLimitBytes: 64 * 2 ** 20 });
    expect(outcome).toMatchObject({ verdict: 'unknown', reason: 'memory' });
    expect(outcome.stats.statesStored).toBeGreaterThan(1_900_000);
    expect(outcome.stats.memoryBytes).toBeLessThanOrEqual(64 * 2 ** 20);
  });

  it('a set stop flag answers unknown with reason cancelled', () => {
    const rules = rulesOf('freecell');
    const stop = new Int32Array(new SharedArrayBuffer(4));
    stop[0] = 1;
    const outcome = engine.solve({ rules, layout: generateDeal('freecell', 'ms', 11982).layout }, { limits: LIMITS, stop });
    expect(outcome).toMatchObject({ verdict: 'unknown', reason: 'cancelled' });
  });
});

describe('canonical positions', () => {
  it('stores the same positions whatever the order of the columns and cells', () => {
    const rules = rulesOf('seahaven_towers');
    const layout = parseBoard(readDeals('seahaven_towers')[20].board, rules); // deal 21: unsolvable
    const a = solveChecked({ rules, layout });
    const shuffled = {
      columns: [...layout.columns].reverse(),
      freeCells: [...layout.freeCells].reverse(),
      foundations: layout.foundations,
    };
    const b = solveChecked({ rules, layout: shuffled });
    expect(a.verdict).toBe('unsolvable');
    expect(b.verdict).toBe('unsolvable');
    expect(b.stats.statesStored).toBe(a.stats.statesStored);
  });

  it('reports a solution on the real column and cell numbers of a permuted position', () => {
    const rules = rulesOf('freecell');
    const layout = generateDeal('freecell', 'ms', 1).layout;
    const permuted = { ...layout, columns: [5, 2, 7, 0, 1, 6, 3, 4].map((i) => layout.columns[i]) };
    expect(solveChecked({ rules, layout: permuted }).verdict).toBe('solved');
  });

  it('answers an already won position with an empty solution', () => {
    const rules = rulesOf('freecell');
    const won = { columns: Array.from({ length: 8 }, () => []), freeCells: [null, null, null, null], foundations: [13, 13, 13, 13] as [number, number, number, number] };
    expect(solveChecked({ rules, layout: won })).toMatchObject({ verdict: 'solved', moves: [] });
  });
});

describe('per-game default budgets', () => {
  it('gives the Castle games their larger defaults, the others the service defaults, requests and caps first', async () => {
    const { resolveLimits } = await import('../../client-sdk/api/request.js');
    const { DEFAULT_LIMITS_CONFIG } = await import('../../server/limits.js');
    expect(resolveLimits(undefined, DEFAULT_LIMITS_CONFIG, 'streets_and_alleys')).toEqual({ maxStates: 30_000_000, timeoutMs: 60_000 });
    expect(resolveLimits(undefined, DEFAULT_LIMITS_CONFIG, 'freecell')).toEqual({ maxStates: 5_000_000, timeoutMs: 30_000 });
    expect(resolveLimits({ maxStates: 1000 }, DEFAULT_LIMITS_CONFIG, 'citadel')).toEqual({ maxStates: 1000, timeoutMs: 60_000 });
    const tight = { ...DEFAULT_LIMITS_CONFIG, maxStatesCap: 10_000_000, timeoutMsCap: 20_000 };
    expect(resolveLimits(undefined, tight, 'beleaguered_castle')).toEqual({ maxStates: 10_000_000, timeoutMs: 20_000 });
  });
});

describe('auto-move safety under rule overrides', () => {
  it('does not auto-move under up-or-down building with unlimited sequence moves (a run parked on the card may need it)', async () => {
    const { resolveDeal } = await import('../../client-sdk/api/request.js');
    // 5H home first would strand the run 6H 7H; the position is solvable by
    // putting 6H-7H on 5H, 7H on 8H, 6H on 7H, then every heart home.
    const deal = resolveDeal({
      game: 'fortress',
      rules: { sequenceMove: 'unlimited', emptyColumn: 'none' },
      layout: {
        columns: [['5H'], ['8H', '6H', '7H'], ['KH', 'QH', 'JH', 'TH', '9H'], [], [], [], [], [], [], []],
        foundations: { C: 13, D: 13, S: 13, H: 4 },
      },
    });
    expect(solveChecked(deal).verdict).toBe('solved');
  });
});

describe('the engine interface is read from the module', () => {
  it('refuses a module that lacks an export the glue needs, at instantiation', async () => {
    // the smallest valid Wasm module: no exports at all
    const empty = await WebAssembly.compile(new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]));
    expect(() => Engine.instantiate(empty)).toThrow(/does not export the function inputAddress/);
  });

  it('the built module exports its interface constants and passes the check of the glue (present, distinct codes)', async () => {
    const module = await WebAssembly.compile(readFileSync(new URL('../../build/engine.wasm', import.meta.url)));
    const exports = WebAssembly.Module.exports(module).map((e) => e.name);
    for (const name of ['BUILD_SUIT_UP_OR_DOWN', 'EMPTY_KINGS', 'SEQ_CELLS_PLUS_ONE', 'REASON_MAX_STATES', 'INPUT_BYTES', 'IN_CARDS', 'OUT_AUTO']) {
      expect(exports).toContain(name);
    }
    expect(() => Engine.instantiate(module)).not.toThrow();
  });

  it('the release build exports the functions the glue calls and nothing else; the tuning build those and its hooks', async () => {
    const namesOf = (file: string, kind: string) =>
      WebAssembly.Module.exports(new WebAssembly.Module(readFileSync(join(ROOT, file)))).filter((e) => e.kind === kind).map((e) => e.name).sort();
    const release = namesOf('build/engine.wasm', 'function');
    expect(release).toEqual([...ENGINE_FUNCTIONS].sort());
    // every exported global is an interface constant (upper case) or a counter the glue reads
    const counters: readonly string[] = ENGINE_COUNTERS;
    for (const name of namesOf('build/engine.wasm', 'global')) expect(/^[A-Z][A-Z0-9_]*$/.test(name) || counters.includes(name), name).toBe(true);
    const tuning = namesOf('build/engine.tuning.wasm', 'function');
    for (const name of release) expect(tuning).toContain(name);
    for (const hook of ['setHeuristicWeights', 'setScanCount', 'setLazyQuota', 'setSeenHashMask', 'setLazyFilter', 'setBeamSelfCheck', 'setCompactLayoutAllowed', 'openItemsTaken', 'pendingMovesSkipped']) {
      expect(tuning).toContain(hook);
      expect(release).not.toContain(hook);
    }
    const engine = await createTuningEngine();
    expect(() => tuningHooks(engine)).not.toThrow();
    expect(() => tuningHooks(Engine.instantiate(new WebAssembly.Module(readFileSync(join(ROOT, 'build/engine.wasm')))))).toThrow(/not the tuning build/);
  });
});

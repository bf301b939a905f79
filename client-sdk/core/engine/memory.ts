/**
 * The engine's memory as the glue writes and reads it: the deal into the
 * input block (its layout in assembly/input.ts), the solution out of the
 * output buffer (assembly/output.ts), as move objects or packed bytes. The
 * offsets and codes come from the module (abi.ts `readInterface`).
 */
import { cardToString, rankOf, suitOf, makeCard, type Card } from '../cards.js';
import type { Deal } from '../rules.js';
import { MOVE_SOURCES, MOVE_TARGETS, PACKED_MOVE_BYTES, type Move } from '../moves.js';
import { SolverError } from '../errors.js';
import type { EngineExports, EngineInterface } from './abi.js';

/** `EngineMemory.packedKinds` entry of a kind code the engine's interface does not name. */
const UNKNOWN_KIND = 255;

/** Relative rank used inside the engine: the foundation base becomes 1 (assembly/rules.ts). */
function toEngineCard(card: Card, base: number): number {
  return makeCard(((rankOf(card) - base + 13) % 13) + 1, suitOf(card));
}

/** The card of engine code `code` (relative rank, assembly/rules.ts) under foundation base `base`. */
function fromEngineCard(code: number, base: number): Card {
  return makeCard(((rankOf(code) - 1 + base - 1) % 13) + 1, suitOf(code));
}

/**
 * The input block and the solution buffer of one engine instance. Keeps the
 * tables and the scratch bytes its readers reuse from solve to solve, so a
 * solve read packed allocates nothing here once the scratch is large enough.
 */
export class EngineMemory {
  constructor(
    private readonly exports: EngineExports,
    private readonly abi: EngineInterface,
  ) {}

  /**
   * Writes `deal` (rules and start position) into the input block.
   * @param pools lowest suit of each suit's pool for a pooled solve
   *   (client-sdk/core/pools.ts), undefined for the real game.
   */
  writeInput(deal: Deal, pools: readonly [number, number, number, number] | undefined): void {
    const { rules, layout } = deal;
    const base = rules.foundationBase;
    const at = this.abi.input;
    const input = new Uint8Array(this.exports.memory.buffer, this.exports.inputAddress(), at.bytes);
    input.fill(0);
    input[at.columns] = rules.columns;
    input[at.cells] = rules.freeCells;
    input[at.build] = this.abi.build[rules.build];
    input[at.empty] = this.abi.empty[rules.emptyColumn];
    input[at.emptyCell] = this.abi.emptyCell[rules.emptyCell ?? 'any'];
    input[at.sequence] = this.abi.sequence[rules.sequenceMove];
    input[at.wrap] = rules.wrap ? 1 : 0;
    if (pools !== undefined) {
      input[at.pooled] = 1;
      for (let s = 0; s < 4; s++) input[at.pools + s] = pools[s];
    }
    for (let s = 0; s < 4; s++) input[at.foundations + s] = layout.foundations[s];
    // plain loops: a closure a column would be garbage of every solve
    const { freeCells, columns } = layout;
    for (let i = 0; i < freeCells.length; i++) {
      const card = freeCells[i];
      input[at.freeCells + i] = card === null ? 0 : toEngineCard(card, base);
    }
    for (let c = 0; c < columns.length; c++) {
      const column = columns[c];
      input[at.lengths + c] = column.length;
      for (let i = 0; i < column.length; i++) input[at.cards + c * at.columnStride + i] = toEngineCard(column[i], base);
    }
  }

  /**
   * The solution in the output buffer as moves (cards named under
   * foundation base `base`).
   * @throws SolverError `engine_error` for a move kind the interface does not name.
   */
  readSolution(base: number): Move[] {
    const e = this.exports;
    const count = e.outputMoveCount();
    const out = this.abi.output;
    const bytes = new Uint8Array(e.memory.buffer, e.outputAddress(), count * out.moveBytes);
    const moves: Move[] = [];
    for (let i = 0; i < count; i++) {
      const o = i * out.moveBytes;
      const from = this.abi.sources.get(bytes[o + out.sourceKind]);
      const to = this.abi.targets.get(bytes[o + out.targetKind]);
      if (from === undefined || to === undefined) throw new SolverError('engine_error', `the engine wrote an unknown move kind at move ${i + 1}`);
      moves.push({
        from,
        fromIndex: bytes[o + out.sourceIndex],
        to,
        toIndex: bytes[o + out.targetIndex],
        count: bytes[o + out.count],
        card: cardToString(fromEngineCard(bytes[o + out.card], base)),
        auto: bytes[o + out.auto] === 1,
      });
    }
    return moves;
  }

  /** Bytes reused by `readSolutionPacked` (grown as needed). */
  private packedScratch = new Uint8Array(PACKED_MOVE_BYTES * 256);

  /**
   * The solution in the output buffer in the form of `packMoves`
   * (client-sdk/core/moves.ts, PACKED_MOVE_BYTES a move): what
   * `readSolution` reads, without a move object. A view of a scratch
   * buffer, valid until the next call.
   * @throws SolverError `engine_error` for a move kind the interface does not name.
   */
  readSolutionPacked(base: number): Uint8Array {
    const e = this.exports;
    const count = e.outputMoveCount();
    const out = this.abi.output;
    const bytes = new Uint8Array(e.memory.buffer, e.outputAddress(), count * out.moveBytes);
    if (this.packedScratch.length < count * PACKED_MOVE_BYTES) this.packedScratch = new Uint8Array(2 * count * PACKED_MOVE_BYTES);
    const packed = this.packedScratch;
    const kinds = this.packedKinds();
    const cards = this.packedCardText(base);
    for (let i = 0, p = 0; i < count; i++, p += PACKED_MOVE_BYTES) {
      const o = i * out.moveBytes;
      const from = kinds[bytes[o + out.sourceKind]];
      const to = kinds[256 + bytes[o + out.targetKind]];
      if (from === UNKNOWN_KIND || to === UNKNOWN_KIND) throw new SolverError('engine_error', `the engine wrote an unknown move kind at move ${i + 1}`);
      const card = cards[bytes[o + out.card] & 63];
      packed[p] = from;
      packed[p + 1] = bytes[o + out.sourceIndex];
      packed[p + 2] = to;
      packed[p + 3] = bytes[o + out.targetIndex];
      packed[p + 4] = bytes[o + out.count];
      packed[p + 5] = bytes[o + out.auto] === 1 ? 1 : 0;
      packed[p + 6] = card >> 8;
      packed[p + 7] = card & 255;
    }
    return packed.subarray(0, count * PACKED_MOVE_BYTES);
  }

  /** The engine's source kind codes (0..255) → index in MOVE_SOURCES, then (256 on) target kind codes → index in MOVE_TARGETS; `UNKNOWN_KIND` for a code that names none. */
  private kindTable: Uint8Array | undefined;

  private packedKinds(): Uint8Array {
    if (this.kindTable !== undefined) return this.kindTable;
    const table = new Uint8Array(512).fill(UNKNOWN_KIND);
    for (const [code, word] of this.abi.sources) table[code & 255] = MOVE_SOURCES.indexOf(word);
    for (const [code, word] of this.abi.targets) table[256 + (code & 255)] = MOVE_TARGETS.indexOf(word);
    this.kindTable = table;
    return table;
  }

  /** `readSolutionPacked`'s card bytes by foundation base: engine card code (0..63) → the two ASCII characters of its text, first in the high byte. */
  private readonly cardTextTables = new Map<number, Uint16Array>();

  private packedCardText(base: number): Uint16Array {
    let table = this.cardTextTables.get(base);
    if (table === undefined) {
      table = new Uint16Array(64);
      for (let code = 4; code < 56; code++) {
        const text = cardToString(fromEngineCard(code, base));
        table[code] = (text.charCodeAt(0) << 8) | (text.length > 1 ? text.charCodeAt(1) : 32);
      }
      this.cardTextTables.set(base, table);
    }
    return table;
  }
}

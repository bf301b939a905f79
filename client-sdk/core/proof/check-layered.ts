/**
 * The independent checker of layered certificates (format v2,
 * layered-format.ts; docs/proofs.md "Layered certificates"), layer by layer
 * with bounded memory: the layer being checked, and the *pending* set, the
 * children of checked layers that a later layer must hold.
 *
 * Independence, as check.ts: the keys are decoded and re-encoded by
 * check-keys.ts, the moves are verify.ts's (`checkMove`/`applyMove`, through
 * check-moves.ts), the auto-move closure is check-auto-moves.ts's, and the
 * measure and class of a position (below) are computed here from the
 * position and the header's start board alone; nothing of the engine.
 *
 * The class of a position: its four foundations and, for each column d of
 * the start position (after its auto-moves), how many of d's incompatible
 * dealt links are broken (a link j, j+1 of d is incompatible when card j+1
 * is not one rank below card j; it is intact while the column whose deepest
 * card is d's deepest card still starts with d's cards 0..j+1). Its measure
 * M is the sum of those numbers.
 *
 * What is checked (the first failure is reported):
 *  1. the file is gzip (every member), the header a v2 header (no carriage
 *     return in its line; another version is named with the versions the
 *     checkers read, 1 and 2), the reductions those the checker vouches for (check-reductions.ts), the
 *     start board valid and, when the header names a deal, that deal;
 *  2. the blocks come in strictly ascending layer number, each is sorted
 *     ascending with no key twice, every key decodes to a valid position in
 *     canonical form, none is won (`bad_layer`, `not_sorted`,
 *     `duplicate_position`, `bad_position`, `won_position`);
 *  3. the positions of a block share one M, the blocks' M never falls
 *     (`bad_layer`, `layer_order`), and a class is in one block only
 *     (`bad_layer`): so a position's block is the only one of its class;
 *  4. every legal move of every position, followed by the closure, leads to
 *     a position Y that is in the same block, or, when Y's class differs
 *     from its parent's, has a higher M (`layer_order` otherwise) and is held
 *     pending until a later block of that M holds it; a Y of the parent's
 *     class that is not in the block is in no block (3.): `not_closed`;
 *  5. when the blocks pass an M, nothing is pending at it (`not_closed`:
 *     a child that no block holds); the start (after its closure) is pending
 *     from the outset, so it must be in a block (`start_missing`);
 *  6. the end block and the trailer line end the file (`truncated` when the
 *     file stops before, or the trailer comes where the end block is due),
 *     and the trailer's positions, layers and fingerprint are those counted
 *     (`bad_trailer`, `fingerprint_mismatch`).
 * A fault in a block names its place: `layer` (its number), `measure` (M,
 * once the block's is known) and `positionIndex` in file order.
 * So the union S of the blocks holds the start, no won position, and every
 * child of each of its positions: docs/proofs.md's theorem, as for v1.
 */
import { createReadStream } from 'node:fs';
import { createGunzip, gunzipSync } from 'node:zlib';
import type { z } from 'zod';
import { formatBoard } from '../board.js';
import { rankOf, type Card } from '../cards.js';
import { issueMessage } from '../issue-messages.js';
import type { Layout, Rules } from '../rules.js';
import { isWon } from '../verify.js';
import { closeUnderAutoMoves } from './check-auto-moves.js';
import { checkMoves, describeMove, type SetLookup } from './check-moves.js';
import { decodeKey, encodeKey, hex } from './check-keys.js';
import { checkDealOrigin, parseStart, refuseCarriageReturn, refuseUnknownVersion, rulesChangedFromPreset } from './check-prepare.js';
import { checkReductions } from './check-reductions.js';
import { Rejection, type ProofCheckFail, type ProofCheckOptions } from './check-result.js';
import { compareAt, contains, toWords, WORDS } from './check-set.js';
import { fingerprintKeys } from './fingerprint.js';
import { KEY_BYTES, keyBytesFor, type AutoMoveRule, type CertificateHeader } from './format.js';
import { BLOCK_HEAD_BYTES, LAYER_END, LAYERED_CERTIFICATE_VERSION, LayeredHeaderSchema, LayeredTrailerSchema, type LayeredHeader } from './layered-format.js';

/** Most keys one block may announce (3.2 GB of keys): a bound on the checker's memory for one layer. */
export const MAX_LAYER_KEYS = 2 ** 26;
/** Longest header or trailer line, bytes. */
const MAX_LINE_BYTES = 1 << 20;
const MASK64 = (1n << 64n) - 1n;

/** A layered certificate that proves its start position unsolvable. */
export interface LayeredCheckPass {
  ok: true;
  kind: 'layered';
  header: LayeredHeader;
  /** Positions in all blocks (every one checked). */
  positions: number;
  /** Blocks (layers). */
  layers: number;
  /** The recomputed fingerprint (equal to the trailer's). */
  fingerprint: string;
  /** As ProofCheckPass. */
  movesTried: number;
  movesChecked: number;
  /** Most keys pending at once, and the largest block: the checker's memory, in keys. */
  peakPending: number;
  largestLayer: number;
  elapsedMs: number;
  threads: 1;
  rulesChanged: string[];
}

/**
 * A rejected layered certificate (as ProofCheckFail, with the layered header
 * when it was read). The place of a fault in a block: `layer` (the block's
 * layer number, as the file has it) and `measure` (the checker's M of its
 * positions, docs/proofs.md "The layer order"); `positionIndex` counts
 * positions in file order over all blocks, as v1 counts them.
 */
export type LayeredCheckFail = Omit<ProofCheckFail, 'header'> & { header?: LayeredHeader; layer?: number; measure?: number };

/** The fields of a Rejection's place in a layered certificate. */
type LayeredPlace = Partial<ProofCheckFail> & { layer?: number; measure?: number };

/** The layered checker's answer. */
export type LayeredCheckResult = LayeredCheckPass | LayeredCheckFail;

/** A position's class (docs/proofs.md "Layered certificates"): its text as a map key, and its measure. */
export interface PositionClass {
  key: string;
  m: number;
}

/**
 * The class function of one start position (see the module comment):
 * `start` is the start *after* its auto-move closure, as the checker takes
 * it; the function gives a position's class (its text, a map key) and its
 * measure M. Exported for the tests that compare it with the engine's layer
 * numbers (docs/proofs.md "The layer order").
 */
export function classFunction(start: Layout): (layout: Layout) => PositionClass {
  const startColumns = start.columns.filter((c) => c.length > 0);
  const columnOfBottom = new Int16Array(64).fill(-1);
  startColumns.forEach((col, d) => {
    columnOfBottom[col[0]] = d;
  });
  // brokenAt[d][p]: incompatible links j of start column d with j + 2 > p (broken when d's prefix is p cards)
  const brokenAt = startColumns.map((col) => {
    const out = new Int8Array(col.length + 1);
    for (let p = 0; p <= col.length; p++) {
      let broken = 0;
      for (let j = 0; j + 1 < col.length; j++) if (j + 2 > p && rankOf(col[j + 1]) !== rankOf(col[j]) - 1) broken++;
      out[p] = broken;
    }
    return out;
  });
  const parts = new Int8Array(4 + startColumns.length);
  return (layout: Layout): PositionClass => {
    for (let s = 0; s < 4; s++) parts[s] = layout.foundations[s];
    for (let d = 0; d < startColumns.length; d++) parts[4 + d] = brokenAt[d][0];
    for (const col of layout.columns) {
      if (col.length === 0) continue;
      const d = columnOfBottom[col[0]];
      if (d < 0) continue;
      const dealt = startColumns[d];
      let p = 0;
      while (p < col.length && p < dealt.length && col[p] === dealt[p]) p++;
      parts[4 + d] = brokenAt[d][p];
    }
    let m = 0;
    for (let i = 0; i < parts.length; i++) m += parts[i];
    return { key: String.fromCharCode(...parts), m };
  };
}

/**
 * One JSON line of the file (its header or its trailer), checked against
 * `schema`.
 * @throws Rejection `bad_header` / `bad_trailer` when the line is not JSON
 *   or does not fit the schema (naming the first field at fault; a header
 *   `version` other than 2 names the versions the checkers read).
 */
function parseLine<T>(text: string, schema: z.ZodType<T>, what: 'header' | 'trailer'): T {
  const code = what === 'header' ? 'bad_header' : 'bad_trailer';
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Rejection(code, `the ${what} line is not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (what === 'header') refuseUnknownVersion(json, LAYERED_CERTIFICATE_VERSION);
  const parsed = schema.safeParse(json, { error: issueMessage });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Rejection(code, `${what} field ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}

const latin1 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');

/**
 * The push parser and checker of one layered certificate's uncompressed
 * bytes: `feed` them in any slices, then `end`. Throws `Rejection` at the
 * first fault (the drivers below turn it into a `LayeredCheckFail`).
 */
export class LayeredChecker {
  private state: 'header' | 'head' | 'keys' | 'trailer' | 'done' = 'header';
  private line: Uint8Array[] = [];
  private lineBytes = 0;
  private head = new Uint8Array(BLOCK_HEAD_BYTES);
  private headFill = 0;
  private block = new Uint8Array(0);
  private blockFill = 0;
  private blockLayer = 0;
  header?: LayeredHeader;
  private rules!: Rules;
  private rule!: AutoMoveRule;
  private classOf!: (layout: Layout) => PositionClass;
  private startKey = '';
  private rulesChanged: string[] = [];
  /** Pending children by measure: keys (latin1 strings) a later block must hold. */
  private pending = new Map<number, Set<string>>();
  private pendingCount = 0;
  private peakPending = 0;
  private largestLayer = 0;
  /** The measure of the blocks being read, and each class's block within it. */
  private currentM = -1;
  private classBlock = new Map<string, number>();
  private lastLayer = -1;
  private positions = 0;
  private layers = 0;
  private sum = 0n;
  private movesTried = 0;
  private movesChecked = 0;

  constructor(private readonly options: ProofCheckOptions = {}) {}

  /** Takes the next bytes of the uncompressed certificate. @throws Rejection */
  feed(bytes: Uint8Array): void {
    let at = 0;
    while (at < bytes.length) {
      switch (this.state) {
        case 'header':
        case 'trailer': {
          const nl = bytes.indexOf(0x0a, at);
          const piece = bytes.subarray(at, nl < 0 ? bytes.length : nl);
          this.lineBytes += piece.length;
          if (this.lineBytes > MAX_LINE_BYTES) throw new Rejection(this.state === 'header' ? 'bad_header' : 'bad_trailer', `the ${this.state} line is longer than ${MAX_LINE_BYTES} bytes`);
          this.line.push(piece.slice());
          if (nl < 0) return;
          at = nl + 1;
          const lineBytes = Buffer.concat(this.line);
          refuseCarriageReturn(lineBytes, this.state);
          const text = lineBytes.toString('utf8');
          this.line = [];
          this.lineBytes = 0;
          if (this.state === 'header') {
            this.readHeader(text);
            this.state = 'head';
          } else {
            this.readTrailer(text);
            this.state = 'done';
          }
          break;
        }
        case 'head': {
          const take = Math.min(BLOCK_HEAD_BYTES - this.headFill, bytes.length - at);
          this.head.set(bytes.subarray(at, at + take), this.headFill);
          this.headFill += take;
          at += take;
          if (this.headFill < BLOCK_HEAD_BYTES) return;
          this.headFill = 0;
          const view = new DataView(this.head.buffer);
          const layer = view.getUint32(0, true);
          const count = view.getUint32(4, true);
          if (layer === LAYER_END) {
            if (count !== 0) throw new Rejection('bad_layer', `the end block announces ${count} keys (it holds none)`);
            this.state = 'trailer';
            break;
          }
          if (count < 1 || count > MAX_LAYER_KEYS) {
            // a JSON line where a block head is due: the trailer, with the end block missing before it
            if (this.head[0] === 0x7b && this.head[1] === 0x22) {
              throw new Rejection('truncated', `after ${this.afterLastBlock()} the file holds a JSON line ("${latin1(this.head)}...") where the end block (layer 0xffffffff, count 0) or the next layer's head is due: the end block is missing`);
            }
            throw new Rejection('bad_layer', `layer ${layer} announces ${count} keys (1 to ${MAX_LAYER_KEYS})`, { layer } as Partial<ProofCheckFail>);
          }
          if (layer <= this.lastLayer) throw new Rejection('bad_layer', `layer ${layer} follows layer ${this.lastLayer}: the layers must come in strictly ascending order`, { layer } as Partial<ProofCheckFail>);
          this.blockLayer = layer;
          this.block = new Uint8Array(count * KEY_BYTES);
          this.blockFill = 0;
          this.state = 'keys';
          break;
        }
        case 'keys': {
          const take = Math.min(this.block.length - this.blockFill, bytes.length - at);
          this.block.set(bytes.subarray(at, at + take), this.blockFill);
          this.blockFill += take;
          at += take;
          if (this.blockFill < this.block.length) return;
          this.checkBlock(this.blockLayer, this.block);
          this.block = new Uint8Array(0);
          this.state = 'head';
          break;
        }
        case 'done':
          throw new Rejection('bad_trailer', 'bytes follow the trailer line');
      }
    }
  }

  /** After the last byte: the pass. @throws Rejection */
  end(elapsedMs: number): LayeredCheckPass {
    if (this.state !== 'done') throw new Rejection('truncated', this.truncation());
    return {
      ok: true,
      kind: 'layered',
      header: this.header!,
      positions: this.positions,
      layers: this.layers,
      fingerprint: this.fingerprint(),
      movesTried: this.movesTried,
      movesChecked: this.movesChecked,
      peakPending: this.peakPending,
      largestLayer: this.largestLayer,
      elapsedMs,
      threads: 1,
      rulesChanged: this.rulesChanged,
    };
  }

  /** Where the file stopped before its trailer line ended, in words (the `truncated` reason). */
  private truncation(): string {
    const missing = 'the file ends without its end block and trailer line: truncated';
    switch (this.state) {
      case 'header':
        return `the certificate ends inside its header line (${this.lineBytes} bytes, no \\n): truncated`;
      case 'head':
        return this.headFill === 0
          ? `the certificate ends after ${this.afterLastBlock()}: ${missing}`
          : `the certificate ends ${this.headFill} bytes into the 8-byte head of the block after ${this.afterLastBlock()}: ${missing}`;
      case 'keys':
        return `the certificate ends inside layer ${this.blockLayer} (${Math.floor(this.blockFill / KEY_BYTES)} of its ${this.block.length / KEY_BYTES} keys): ${missing}`;
      default:
        return `the certificate ends inside its trailer line (after the end block; ${this.lineBytes} bytes, no \\n): truncated`;
    }
  }

  /** The last block read, in words ("layer 37 (block 12)"), or "the header line". */
  private afterLastBlock(): string {
    return this.layers === 0 ? 'the header line' : `layer ${this.lastLayer} (block ${this.layers})`;
  }

  private fingerprint(): string {
    return this.sum.toString(16).padStart(16, '0');
  }

  private readHeader(text: string): void {
    const header = parseLine(text, LayeredHeaderSchema, 'header');
    this.header = header;
    this.rules = header.rules;
    if (keyBytesFor(header.rules) !== KEY_BYTES) {
      throw new Rejection('bad_header', `header field rules: layered certificates have ${KEY_BYTES}-byte keys, for games of at most 11 columns (this one has ${header.rules.columns})`);
    }
    // the v1 steps on the header, with the v1 checker's own code
    const asV1 = header as unknown as CertificateHeader;
    this.rule = checkReductions(asV1);
    const start = parseStart(asV1, this.rules);
    const dealtBase = checkDealOrigin(asV1, start);
    this.rulesChanged = rulesChangedFromPreset(asV1, dealtBase);
    closeUnderAutoMoves(start, this.rule, this.rules.foundationBase);
    this.classOf = classFunction(start);
    const scratch = new Uint8Array(KEY_BYTES);
    encodeKey(start, this.rules.foundationBase, scratch);
    this.startKey = latin1(scratch);
    this.addPending(this.classOf(start).m, this.startKey);
  }

  private readTrailer(text: string): void {
    const parsed = parseLine(text, LayeredTrailerSchema, 'trailer');
    // every M is passed: nothing may be pending (the start included)
    this.passMeasure(Number.POSITIVE_INFINITY);
    const t = parsed;
    if (t.positions !== this.positions || t.layers !== this.layers) {
      throw new Rejection('bad_trailer', `the trailer counts ${t.positions} positions in ${t.layers} layers, the file holds ${this.positions} in ${this.layers}`);
    }
    if (t.fingerprint !== this.fingerprint()) throw new Rejection('fingerprint_mismatch', `the keys' fingerprint is ${this.fingerprint()}, the trailer says ${t.fingerprint}`);
  }

  private addPending(m: number, key: string): void {
    let set = this.pending.get(m);
    if (set === undefined) {
      set = new Set();
      this.pending.set(m, set);
    }
    if (set.has(key)) return;
    set.add(key);
    this.pendingCount++;
    if (this.pendingCount > this.peakPending) this.peakPending = this.pendingCount;
  }

  /** The blocks moved to measure `m`: whatever is pending below it is in no block. */
  private passMeasure(m: number): void {
    for (const [pm, set] of this.pending) {
      if (pm >= m || set.size === 0) continue;
      if (set.has(this.startKey)) {
        throw new Rejection('start_missing', `the start position (after the auto-move closure, measure ${pm}) is in no layer`, { resultKey: hex(Buffer.from(this.startKey, 'latin1')) });
      }
      const key = Buffer.from(set.values().next().value as string, 'latin1');
      const layout = decodeKey(key, this.rules, -1);
      throw new Rejection('not_closed', `${set.size} position${set.size === 1 ? '' : 's'} of measure ${pm} that a legal move leads to (after auto-moves) ${set.size === 1 ? 'is' : 'are'} in no layer, the first of them:`, {
        measure: pm,
        result: formatBoard(layout, this.rules),
        resultKey: hex(key),
      } as LayeredPlace);
    }
    for (const pm of [...this.pending.keys()]) if (pm < m) this.pending.delete(pm);
  }

  private checkBlock(layer: number, keys: Uint8Array): void {
    const rules = this.rules;
    const base = rules.foundationBase;
    const n = keys.length / KEY_BYTES;
    const first = this.positions;
    const where = { layer } as Partial<ProofCheckFail>;
    const set = toWords(keys, n);
    for (let i = 1; i < n; i++) {
      const c = compareAt(set, (i - 1) * WORDS, set, i * WORDS);
      if (c === 0) throw new Rejection('duplicate_position', `layer ${layer}: its keys ${i - 1} and ${i} are the same`, { ...where, positionIndex: first + i });
      if (c > 0) throw new Rejection('not_sorted', `layer ${layer}: its key ${i} sorts before key ${i - 1} (a layer's keys ascend bytewise)`, { ...where, positionIndex: first + i });
    }
    this.sum = (this.sum + BigInt(`0x${fingerprintKeys(keys)}`)) & MASK64;
    // 2-3: positions, one measure for the block (checked before anything pending is judged by it)
    const scratch = new Uint8Array(KEY_BYTES);
    const classes: string[] = new Array<string>(n);
    let m = -1;
    for (let i = 0; i < n; i++) {
      const key = keys.subarray(i * KEY_BYTES, (i + 1) * KEY_BYTES);
      const layout = decodeKey(key, rules, first + i);
      encodeKey(layout, base, scratch);
      if (Buffer.compare(scratch, key) !== 0) {
        throw new Rejection('bad_position', `position ${first + i} (layer ${layer}, key ${hex(key)}) is not in canonical form; canonical: ${hex(scratch)}`, { ...where, positionIndex: first + i, position: formatBoard(layout, rules) });
      }
      if (isWon(layout)) {
        throw new Rejection('won_position', `position ${first + i} (layer ${layer}) is won (every card on the foundations): a set with a won position proves nothing`, { ...where, positionIndex: first + i, position: formatBoard(layout, rules) });
      }
      const cls = this.classOf(layout);
      if (i === 0) m = cls.m;
      else if (cls.m !== m) {
        throw new Rejection('bad_layer', `position ${first + i} of layer ${layer} has measure ${cls.m}, the layer's first position ${m}: a layer's positions share one measure`, { ...where, positionIndex: first + i, position: formatBoard(layout, rules) });
      }
      classes[i] = cls.key;
    }
    const place: LayeredPlace = { layer, measure: m };
    if (m < this.currentM) {
      throw new Rejection('layer_order', `layer ${layer} has measure ${m}, below the measure ${this.currentM} of the layer before it: the measure never falls along the layers`, { ...place, positionIndex: first });
    }
    if (m > this.currentM) {
      this.passMeasure(m);
      this.currentM = m;
      this.classBlock.clear();
    }
    // a class in one layer only; the block's keys leave the pending set
    const pendingHere = this.pending.get(m);
    for (let i = 0; i < n; i++) {
      const seenIn = this.classBlock.get(classes[i]);
      if (seenIn !== undefined && seenIn !== layer) {
        const layout = decodeKey(keys.subarray(i * KEY_BYTES, (i + 1) * KEY_BYTES), rules, first + i);
        throw new Rejection('bad_layer', `position ${first + i} of layer ${layer} is of a class that layer ${seenIn} holds already: a class is in one layer only`, { ...place, positionIndex: first + i, position: formatBoard(layout, rules) });
      }
      this.classBlock.set(classes[i], layer);
      if (pendingHere !== undefined && pendingHere.delete(latin1(keys.subarray(i * KEY_BYTES, (i + 1) * KEY_BYTES)))) this.pendingCount--;
    }
    // 4: every legal move leads into this layer, or to a higher measure (pending)
    const probe = new Uint32Array(WORDS);
    const probeView = new DataView(scratch.buffer);
    let lastParent: Layout | undefined;
    let parentClass: PositionClass = { key: '', m: 0 };
    const lookup: SetLookup = {
      has: (next: Layout, parent: Layout, parentIndex: number): boolean => {
        encodeKey(next, base, scratch);
        for (let w = 0; w < WORDS; w++) probe[w] = probeView.getUint32(w * 4, false);
        if (contains(set, n, probe)) return true;
        if (parent !== lastParent) {
          lastParent = parent;
          parentClass = this.classOf(parent);
        }
        const cls = this.classOf(next);
        // the parent's class is in this layer only (step 3): the child is in no layer
        if (cls.key === parentClass.key) return false;
        if (cls.m <= parentClass.m) {
          throw new Rejection('layer_order', `a legal move of position ${first + parentIndex} (layer ${layer}, measure ${parentClass.m}) leads to a position of another class with measure ${cls.m}, not above it: no later layer may hold it`, {
            ...place,
            positionIndex: first + parentIndex,
            position: formatBoard(parent, rules),
            result: formatBoard(next, rules),
            resultKey: hex(scratch),
          });
        }
        this.addPending(cls.m, latin1(scratch));
        return true;
      },
      lastKeyHex: () => hex(scratch),
    };
    const prepared = { header: { rules, positions: n } as unknown as CertificateHeader, rule: this.rule, body: keys, set, keyBytes: KEY_BYTES, rulesChanged: [] };
    let counts;
    try {
      counts = checkMoves(prepared, 0, n, this.options, lookup);
    } catch (err) {
      // checkMoves counts positions within the block and knows no layer: give the fault its place in the file
      if (!(err instanceof Rejection) || err.code !== 'not_closed' || err.extra.move === undefined) throw err;
      const at = first + (err.extra.positionIndex ?? 0);
      throw new Rejection(
        'not_closed',
        `position ${at} (layer ${layer}, measure ${m}): the legal move ${describeMove(err.extra.move)} leads (after auto-moves) to a position of its own class that this layer does not hold, so no layer holds it (a class is in one layer only)`,
        { ...err.extra, ...place, positionIndex: at },
      );
    }
    this.movesTried += counts.movesTried;
    this.movesChecked += counts.movesChecked;
    this.positions += n;
    this.layers++;
    this.lastLayer = layer;
    if (n > this.largestLayer) this.largestLayer = n;
  }
}

function failure(err: unknown, header: LayeredHeader | undefined, elapsedMs: number): LayeredCheckFail {
  if (err instanceof Rejection) {
    const { header: _h, ...extra } = err.extra;
    return { ok: false, code: err.code, reason: err.message, ...extra, ...(header ? { header } : {}), elapsedMs };
  }
  throw err;
}

/**
 * Checks a layered certificate held in memory (the whole gzip file). Never
 * throws for bad input: every fault is a `{ok: false}` answer.
 */
export function checkLayeredCertificate(file: Uint8Array, options: ProofCheckOptions = {}): LayeredCheckResult {
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
  const checker = new LayeredChecker(options);
  try {
    let raw: Buffer;
    try {
      raw = gunzipSync(file);
    } catch (err) {
      throw new Rejection('not_gzip', `the file is not a complete gzip stream (${err instanceof Error ? err.message : String(err)}): truncated or corrupted`);
    }
    checker.feed(raw);
    return checker.end(elapsed());
  } catch (err) {
    return failure(err, checker.header, elapsed());
  }
}

/**
 * Checks the layered certificate in file `path`, streamed (gunzip as it
 * reads): memory is one layer and the pending set, never the whole file.
 * Never rejects for bad input (an unreadable file is `not_gzip`).
 */
export async function checkLayeredCertificateFile(path: string, options: ProofCheckOptions = {}): Promise<LayeredCheckResult> {
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
  const checker = new LayeredChecker(options);
  const source = createReadStream(path);
  const stream = source.pipe(createGunzip());
  // a read error (no such file, a directory) ends the gunzip stream with it: pipe does not forward it
  source.on('error', (err) => stream.destroy(err));
  try {
    try {
      for await (const chunk of stream) checker.feed(chunk as Buffer);
    } catch (err) {
      if (err instanceof Rejection) throw err;
      throw new Rejection('not_gzip', `the file is not a complete gzip stream (${err instanceof Error ? err.message : String(err)}): truncated or corrupted`);
    }
    return checker.end(elapsed());
  } catch (err) {
    return failure(err, checker.header, elapsed());
  } finally {
    // destroying the gunzip end of a pipe leaves its source open: close both
    stream.destroy();
    source.destroy();
  }
}

/**
 * The `version` in the header line of certificate file `path` (its first
 * line, read through gunzip), or undefined when it cannot be read as one
 * (the v1 checker then gives the reason). check-proof picks the checker by it.
 */
export async function certificateVersionOfFile(path: string): Promise<number | undefined> {
  const source = createReadStream(path);
  const stream = source.pipe(createGunzip());
  // a read error (no such file, a directory) ends the gunzip stream with it: pipe does not forward it
  source.on('error', (err) => stream.destroy(err));
  const parts: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const chunk of stream) {
      const b = chunk as Buffer;
      const nl = b.indexOf(0x0a);
      parts.push(nl < 0 ? b : b.subarray(0, nl));
      bytes += b.length;
      if (nl >= 0 || bytes > MAX_LINE_BYTES) break;
    }
    return versionOfLine(Buffer.concat(parts));
  } catch {
    return undefined;
  } finally {
    stream.destroy();
    source.destroy();
  }
}

/** The `version` of an in-memory certificate (gzip), as {@link certificateVersionOfFile}. */
export function certificateVersionOf(file: Uint8Array): number | undefined {
  try {
    const raw = gunzipSync(file);
    const nl = raw.indexOf(0x0a);
    return versionOfLine(raw.subarray(0, nl < 0 ? Math.min(raw.length, MAX_LINE_BYTES) : nl));
  } catch {
    return undefined;
  }
}

function versionOfLine(line: Buffer): number | undefined {
  try {
    const json = JSON.parse(line.toString('utf8')) as { version?: unknown };
    return typeof json.version === 'number' ? json.version : undefined;
  } catch {
    return undefined;
  }
}

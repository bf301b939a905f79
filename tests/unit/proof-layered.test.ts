/**
 * The streamed certificate of the layered pass (format v2,
 * client-sdk/core/proof/layered-writer.ts and check-layered.ts; docs/proofs.md
 * "Layered certificates"): on small unsolvable Castle deals with K = 1 and 2
 * engines it passes the independent checker with the full search's positions
 * and fingerprint (the fingerprint is a sum, so it does not depend on the
 * order the layers wrote the keys in), and tampered certificates are refused
 * with their reason.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../client-sdk/core/engine/index.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { solveWithProof } from '../../client-sdk/core/proof/writer.js';
import { checkLayeredCertificate, certificateVersionOf, classFunction, type LayeredCheckResult } from '../../client-sdk/core/proof/check-layered.js';
import { parseStart } from '../../client-sdk/core/proof/check-prepare.js';
import { closeUnderAutoMoves } from '../../client-sdk/core/proof/check-auto-moves.js';
import { checkReductions } from '../../client-sdk/core/proof/check-reductions.js';
import { decodeKey } from '../../client-sdk/core/proof/check-keys.js';
import { layeredBody, parseLayeredBody, type LayerBlock } from '../../client-sdk/core/proof/layered-format.js';
import { fingerprintKeys } from '../../client-sdk/core/proof/fingerprint.js';
import { KEY_BYTES, type CertificateHeader } from '../../client-sdk/core/proof/format.js';
import type { Deal } from '../../client-sdk/core/rules.js';
import { SMALL_UNSOLVABLE_CASTLE_DEALS } from '../helpers/positions.js';

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.create();
});

const LIMITS = { maxStates: 3_000_000, timeoutMs: 120_000 };

/** The layered pass of `deal` over `shards` engines with its certificate streamed: the outcome and the file. */
function certify(deal: Deal, shards: number) {
  const members: Uint8Array[] = [];
  const outcome = solveWithProof(engine, deal, { ...LIMITS, layered: true }, { layeredCertificate: { sink: (m) => members.push(m), shards, game: 'g' } });
  return { outcome, file: Buffer.concat(members) };
}

describe('layered certificates', () => {
  it.each(SMALL_UNSOLVABLE_CASTLE_DEALS)('%s: K = 1 and 2 pass the checker with the full search\'s positions and fingerprint', (game, deals) => {
    for (const n of deals) {
      const deal = resolveDeal({ game, deal: n, numbering: 'pysolfc' });
      const full = solveWithProof(engine, deal, LIMITS);
      expect(full.verdict).toBe('unsolvable');
      for (const shards of [1, 2]) {
        const { outcome, file } = certify(deal, shards);
        expect([n, shards, outcome.verdict]).toEqual([n, shards, 'unsolvable']);
        expect(outcome.proof?.positions).toBe(full.proof?.positions);
        expect(outcome.proof?.fingerprint).toBe(full.proof?.fingerprint);
        expect(certificateVersionOf(file)).toBe(2);
        const r = checkLayeredCertificate(file);
        expect(r.ok ? r.positions : r.reason).toBe(full.proof?.positions);
        if (r.ok) expect(r.fingerprint).toBe(full.proof?.fingerprint);
      }
    }
  }, 240_000);

  it('a full search\'s unsolvable past v1MaxPositions gets the layered certificate from a second, layered pass: the same positions and fingerprint', () => {
    const deal = resolveDeal({ game: 'streets_and_alleys', deal: 5, numbering: 'pysolfc' });
    const members: Uint8Array[] = [];
    const request = { certificate: true, maxPositions: 10_000_000, maxBytes: 2 ** 30 };
    const v1 = solveWithProof(engine, deal, LIMITS, { proof: request });
    expect(v1.proof?.certificate).toMatchObject({ included: true });
    const big = solveWithProof(engine, deal, { ...LIMITS, layered: 'after_memory' }, { proof: request, layeredCertificate: { sink: (m) => members.push(m), v1MaxPositions: 1000 } });
    expect(big.verdict).toBe('unsolvable');
    expect(big.proof?.certificate).toMatchObject({ included: false, reason: 'streamed' });
    expect(big.proof).toMatchObject({ positions: v1.proof?.positions, fingerprint: v1.proof?.fingerprint });
    expect(big.stats.statesStored).toBe(v1.stats.statesStored);
    const r = checkLayeredCertificate(Buffer.concat(members));
    expect(r.ok ? r.fingerprint : r.reason).toBe(v1.proof?.fingerprint);
    // within v1MaxPositions: the v1 certificate, nothing streamed
    const small: Uint8Array[] = [];
    const kept = solveWithProof(engine, deal, { ...LIMITS, layered: 'after_memory' }, { proof: request, layeredCertificate: { sink: (m) => small.push(m) } });
    expect(kept.proof?.certificate).toMatchObject({ included: true });
    expect(small).toHaveLength(0);
  }, 120_000);

  it('the engine\'s layer number >> 5 is the checker\'s measure plus a constant of the deal: the links the start\'s auto-moves break (docs/proofs.md "The layer order")', () => {
    // Streets and Alleys 1: no card goes home at the start (0); Beleaguered Castle 3 and Streets and Alleys 5: one (1)
    for (const [game, n, c] of [['streets_and_alleys', 1, 0], ['beleaguered_castle', 3, 1], ['streets_and_alleys', 5, 1]] as const) {
      const deal = resolveDeal({ game, deal: n, numbering: 'pysolfc' });
      const parts = parseLayeredBody(gunzipSync(certify(deal, 1).file));
      const header = parts.header as unknown as CertificateHeader;
      const start = parseStart(header, header.rules);
      closeUnderAutoMoves(start, checkReductions(header), header.rules.foundationBase);
      const classOf = classFunction(start);
      const offsets = new Set<number>();
      for (const b of parts.blocks) {
        for (let i = 0; i < b.keys.length / KEY_BYTES; i++) offsets.add((b.layer >> 5) - classOf(decodeKey(b.keys.subarray(i * KEY_BYTES, (i + 1) * KEY_BYTES), header.rules, i)).m);
      }
      expect([game, n, [...offsets]]).toEqual([game, n, [c]]);
    }
  }, 60_000);

  describe('tampered certificates are refused with their reason', () => {
    // Beleaguered Castle 3 (unsolvable, a few thousand positions in many layers), K = 2
    let parts: ReturnType<typeof parseLayeredBody>;
    let file: Uint8Array;
    beforeAll(() => {
      ({ file } = certify(resolveDeal({ game: 'beleaguered_castle', deal: 3, numbering: 'pysolfc' }), 2));
      parts = parseLayeredBody(gunzipSync(file));
    });
    /** The certificate rebuilt from `blocks` (and `header`), its trailer recounted so that only the tampering is wrong. */
    const rebuild = (blocks: LayerBlock[], header: object = parts.header): LayeredCheckResult => {
      const positions = blocks.reduce((n, b) => n + b.keys.length / KEY_BYTES, 0);
      const sum = blocks.reduce((n, b) => (n + BigInt(`0x${fingerprintKeys(b.keys)}`)) & ((1n << 64n) - 1n), 0n);
      const trailer = { positions, layers: blocks.length, fingerprint: sum.toString(16).padStart(16, '0') };
      return checkLayeredCertificate(gzipSync(layeredBody(header, blocks, trailer)));
    };
    const keyAt = (b: LayerBlock, i: number) => b.keys.subarray(i * KEY_BYTES, (i + 1) * KEY_BYTES);
    const without = (b: LayerBlock, i: number): LayerBlock => ({ layer: b.layer, keys: Buffer.concat([b.keys.subarray(0, i * KEY_BYTES), b.keys.subarray((i + 1) * KEY_BYTES)]) });
    /** `b` with `key` added in its sorted place. */
    const withKey = (b: LayerBlock, key: Uint8Array): LayerBlock => {
      let i = 0;
      while (i < b.keys.length / KEY_BYTES && Buffer.compare(keyAt(b, i), key) < 0) i++;
      return { layer: b.layer, keys: Buffer.concat([b.keys.subarray(0, i * KEY_BYTES), key, b.keys.subarray(i * KEY_BYTES)]) };
    };
    const code = (r: LayeredCheckResult) => (r.ok ? 'pass' : r.code);

    it('the untouched certificate, rebuilt the same way, passes', () => {
      expect(parts.blocks.length).toBeGreaterThan(10);
      const r = rebuild(parts.blocks);
      expect(r.ok ? r.layers : r.reason).toBe(parts.blocks.length);
      if (r.ok) expect(r.movesChecked).toBeGreaterThan(r.positions);
    });

    it('a dropped position: not_closed (a legal move leads to a position no layer holds)', () => {
      // from a middle layer and from the last one
      for (const at of [Math.floor(parts.blocks.length / 2), parts.blocks.length - 1]) {
        const b = parts.blocks[at];
        const blocks = parts.blocks.map((x, i) => (i === at ? without(b, Math.floor(b.keys.length / KEY_BYTES / 2)) : x)).filter((x) => x.keys.length > 0);
        const r = rebuild(blocks);
        expect([at, code(r)]).toEqual([at, 'not_closed']);
        if (!r.ok) expect(r.resultKey).toMatch(/^[0-9a-f]{96}$/);
      }
    });

    it('the start position dropped: start_missing', () => {
      const first = parts.blocks[0];
      // the start is the lowest position: the only one of the first layer when the deal opens with one move class
      const blocks = parts.blocks.map((x, i) => (i === 0 ? without(first, 0) : x)).filter((x) => x.keys.length > 0);
      expect(['start_missing', 'not_closed']).toContain(code(rebuild(blocks)));
      if (first.keys.length === KEY_BYTES) expect(code(rebuild(blocks))).toBe('start_missing');
    });

    it('a position moved to an earlier layer: bad_layer (its measure is not that layer\'s)', () => {
      const last = parts.blocks.length - 1;
      const moved = keyAt(parts.blocks[last], 0).slice();
      const blocks = parts.blocks.map((x, i) => (i === 0 ? withKey(x, moved) : i === last ? without(x, 0) : x)).filter((x) => x.keys.length > 0);
      const r = rebuild(blocks);
      expect(code(r)).toBe('bad_layer');
      if (!r.ok) expect(r.reason).toMatch(/measure/);
    });

    it('a layer of a lower measure after a higher one: layer_order; written before it: refused for what it leaves pending', () => {
      const last = parts.blocks.length - 1;
      // the first layer's keys again, after the last layer (its number above the last's)
      expect(code(rebuild([...parts.blocks, { layer: parts.blocks[last].layer + 1, keys: parts.blocks[0].keys }]))).toBe('layer_order');
      // the first and the last layer's keys swapped: reading the higher measure first leaves the start pending below it
      const swapped = parts.blocks.map((x, i) => (i === 0 ? { layer: x.layer, keys: parts.blocks[last].keys } : i === last ? { layer: x.layer, keys: parts.blocks[0].keys } : x));
      expect(code(rebuild(swapped))).toBe('start_missing');
    });

    it('a won position: won_position', () => {
      const blocks = parts.blocks.map((x, i) => (i === 0 ? withKey(x, new Uint8Array(KEY_BYTES)) : x));
      expect(code(rebuild(blocks))).toBe('won_position');
    });

    it('the same position in two layers: bad_layer (a class is in one layer only)', () => {
      const at = parts.blocks.findIndex((b, i) => i > 0 && b.keys.length > KEY_BYTES);
      const twin = keyAt(parts.blocks[at], 0).slice();
      // into the next layer of the same measure, when there is one: else the measure check refuses it first
      const blocks = parts.blocks.map((x, i) => (i === at + 1 ? withKey(x, twin) : x));
      expect(code(rebuild(blocks))).toBe('bad_layer');
    });

    it('a wrong header: bad_header (version, order), deal_mismatch (another deal)', () => {
      expect(code(rebuild(parts.blocks, { ...parts.header, version: 3 }))).toBe('bad_header');
      expect(code(rebuild(parts.blocks, { ...parts.header, order: 'something-else' }))).toBe('bad_header');
      expect(code(rebuild(parts.blocks, { ...parts.header, game: 'beleaguered_castle', deal: { number: '4', numbering: 'pysolfc' } }))).toBe('deal_mismatch');
      expect(code(rebuild(parts.blocks, { ...parts.header, game: 'beleaguered_castle', deal: { number: '3', numbering: 'pysolfc' } }))).toBe('pass');
    });

    it('a not_closed found by a move names its place: layer number, measure and the position\'s index in the file', () => {
      // drop positions until one's parent, in the same layer and class, names it (checkMoves' not_closed, with a move)
      let offset = 0;
      for (const [at, b] of parts.blocks.entries()) {
        const n = b.keys.length / KEY_BYTES;
        for (let i = 0; i < n && n > 1; i++) {
          const r = rebuild(parts.blocks.map((x, j) => (j === at ? without(b, i) : x)));
          if (r.ok || r.code !== 'not_closed' || r.move === undefined) continue;
          expect(r.layer).toBe(b.layer);
          expect(r.measure).toEqual(expect.any(Number));
          expect(r.reason).toMatch(new RegExp(`^position ${r.positionIndex} \\(layer ${b.layer}, measure ${r.measure}\\): the legal move `));
          // in file order over all blocks: within this block (one position fewer now)
          expect(r.positionIndex).toBeGreaterThanOrEqual(offset);
          expect(r.positionIndex).toBeLessThan(offset + n - 1);
          return;
        }
        offset += n;
      }
      throw new Error('no dropped position was named by a move of its own layer');
    });

    it('a not_closed of a pending child names its measure', () => {
      for (const [at, b] of parts.blocks.entries()) {
        if (at === 0) continue;
        const r = rebuild(parts.blocks.map((x, j) => (j === at ? without(b, 0) : x)).filter((x) => x.keys.length > 0));
        if (r.ok || r.code !== 'not_closed' || r.move !== undefined) continue;
        expect(r.measure).toEqual(expect.any(Number));
        expect(r.reason).toContain(`of measure ${r.measure} `);
        return;
      }
      throw new Error('no dropped first position was left pending');
    });

    it('a missing end block, or a file cut after a layer: truncated, naming the last layer', () => {
      const raw = Buffer.from(gunzipSync(file));
      const end = raw.lastIndexOf(Buffer.from('{"positions"'));
      // the trailer line right after the last layer, its end block (8 bytes) gone
      const noEnd = checkLayeredCertificate(gzipSync(Buffer.concat([raw.subarray(0, end - 8), raw.subarray(end)])));
      const last = parts.blocks[parts.blocks.length - 1].layer;
      expect(code(noEnd)).toBe('truncated');
      if (!noEnd.ok) expect(noEnd.reason).toMatch(new RegExp(`after layer ${last} \\(block ${parts.blocks.length}\\) .*the end block is missing`));
      // cut right after the last layer: no end block, no trailer
      const cut = checkLayeredCertificate(gzipSync(raw.subarray(0, end - 8)));
      expect(code(cut)).toBe('truncated');
      if (!cut.ok) expect(cut.reason).toMatch(new RegExp(`ends after layer ${last} \\(block ${parts.blocks.length}\\): the file ends without its end block and trailer line`));
      // cut inside the last layer's keys
      const inside = checkLayeredCertificate(gzipSync(raw.subarray(0, end - 8 - 100)));
      expect(code(inside)).toBe('truncated');
      if (!inside.ok) expect(inside.reason).toMatch(new RegExp(`ends inside layer ${last} `));
    });

    it('a header version no checker reads names the versions read (1 and 2); a v1 header names the v1 checker', () => {
      const v3 = rebuild(parts.blocks, { ...parts.header, version: 3 });
      expect(code(v3)).toBe('bad_header');
      if (!v3.ok) expect(v3.reason).toMatch(/version: 3 is not a certificate version this checker reads \(it reads versions 1 and 2/);
      const v1 = rebuild(parts.blocks, { ...parts.header, version: 1 });
      if (!v1.ok) expect(v1.reason).toMatch(/version: 1 is checked by checkCertificate/);
      expect(code(v1)).toBe('bad_header');
    });

    it('a header or trailer line ended by \\r\\n is refused (as the v1 checker refuses it): bad_header, bad_trailer', () => {
      const raw = Buffer.from(gunzipSync(file));
      const nl = raw.indexOf(0x0a);
      const crlfHeader = checkLayeredCertificate(gzipSync(Buffer.concat([raw.subarray(0, nl), Buffer.from('\r'), raw.subarray(nl)])));
      expect(code(crlfHeader)).toBe('bad_header');
      if (!crlfHeader.ok) expect(crlfHeader.reason).toMatch(/carriage return .*\\r\\n line end/);
      const crlfTrailer = checkLayeredCertificate(gzipSync(Buffer.concat([raw.subarray(0, raw.length - 1), Buffer.from('\r\n')])));
      expect(code(crlfTrailer)).toBe('bad_trailer');
      expect(checkLayeredCertificate(gzipSync(raw)).ok).toBe(true);
    });

    it('a wrong trailer, a truncated file, a broken gzip: bad_trailer, fingerprint_mismatch, truncated, not_gzip', () => {
      const positions = parts.blocks.reduce((n, b) => n + b.keys.length / KEY_BYTES, 0);
      const fp = String(parts.trailer.fingerprint);
      const withTrailer = (t: object) => checkLayeredCertificate(gzipSync(layeredBody(parts.header, parts.blocks, t)));
      expect(code(withTrailer({ positions: positions + 1, layers: parts.blocks.length, fingerprint: fp }))).toBe('bad_trailer');
      expect(code(withTrailer({ positions, layers: parts.blocks.length, fingerprint: fp.replace(/.$/, (c) => (c === '0' ? '1' : '0')) }))).toBe('fingerprint_mismatch');
      const raw = gunzipSync(file);
      expect(code(checkLayeredCertificate(gzipSync(raw.subarray(0, raw.length - 200))))).toBe('truncated');
      expect(code(checkLayeredCertificate(file.subarray(0, file.length - 30)))).toBe('not_gzip');
    });
  });
});

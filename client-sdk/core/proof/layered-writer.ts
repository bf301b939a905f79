/**
 * The writing side of the layered certificate (format v2,
 * layered-format.ts, docs/proofs.md "Layered certificates"): the header
 * first, then each layer of the layered pass as it closes (the keys the
 * sharded driver hands over, `ShardedOptions.onLayerKeys`), each sorted and
 * compressed on its own (one gzip member a write), then the end block and the
 * trailer. Memory: one layer's keys and their sort, never the whole set.
 *
 * Node only (node:zlib, synchronous: the layered pass runs on the CLI's
 * thread or a worker thread); the sink decides where the bytes go (the CLI:
 * the `--proof` file, server/cli/solve.ts).
 */
import { gzipSync } from 'node:zlib';
import { formatBoard } from '../board.js';
import type { Deal } from '../rules.js';
import { sortKeys } from './certificate.js';
import { fingerprintKeys } from './fingerprint.js';
import { CERTIFICATE_FORMAT, FINGERPRINT_ALGORITHM, KEY_BYTES, KEY_ENCODING, reductionsFor } from './format.js';
import { blockHead, LAYER_END, LAYER_ORDER, LAYERED_CERTIFICATE_VERSION, type LayeredHeader, type LayeredTrailer } from './layered-format.js';

/** gzip level of each member: 6 (zlib's default) writes BC 954's 3.7 GB of keys several times faster than 9, for a few per cent more bytes. */
const GZIP_LEVEL = 6;
const MASK64 = (1n << 64n) - 1n;

/** What the writer counted, once `finish` wrote the trailer. */
export interface LayeredCertificateSummary extends LayeredTrailer {
  /** Bytes written (the compressed file). */
  bytes: number;
}

/** Informational fields of the header, as `ProofRequest` has them. */
export interface LayeredCertificateOrigin {
  game?: string;
  deal?: { number: string; numbering: 'ms' | 'pysolfc' } | null;
}

/**
 * Writes one layered certificate through `sink` (each call one complete gzip
 * member): `new`, then `addLayer` for every layer in ascending layer order,
 * then `finish`.
 */
export class LayeredCertificateWriter {
  private positions = 0;
  private layers = 0;
  private lastLayer = -1;
  private sum = 0n;
  private bytes = 0;
  private finished = false;

  /**
   * Writes the header line of the certificate of `deal`'s layered pass.
   * @param sink takes each compressed member; whatever it throws ends the writing.
   */
  constructor(
    private readonly sink: (member: Uint8Array) => void,
    deal: Deal,
    origin: LayeredCertificateOrigin = {},
  ) {
    const header: LayeredHeader = {
      format: CERTIFICATE_FORMAT,
      version: LAYERED_CERTIFICATE_VERSION,
      game: origin.game ?? '',
      deal: origin.deal ?? null,
      rules: { ...deal.rules },
      start: formatBoard(deal.layout, deal.rules),
      keyBytes: KEY_BYTES,
      keyEncoding: KEY_ENCODING,
      order: LAYER_ORDER,
      reductions: reductionsFor(deal.rules).map((r) => (r.rule !== undefined ? { name: r.name, rule: r.rule } : { name: r.name })),
      fingerprintAlgorithm: FINGERPRINT_ALGORITHM,
    };
    this.emit(new TextEncoder().encode(`${JSON.stringify(header)}\n`));
  }

  /**
   * Writes layer `layer`'s block: `keys` (`positions` canonical 48-byte
   * keys, any order; the parts of several shards concatenated) sorted.
   * @throws RangeError when the layer is not above the last one written, is
   *   out of 0 .. 2^32 − 2, the keys are not `positions` whole keys, or after `finish`;
   *   SolverError `engine_error` when a key repeats (`sortKeys`).
   */
  addLayer(layer: number, keys: Uint8Array, positions: number): void {
    if (this.finished) throw new RangeError('the certificate is finished');
    if (!Number.isInteger(layer) || layer <= this.lastLayer || layer >= LAYER_END) throw new RangeError(`layer ${layer} does not follow layer ${this.lastLayer}`);
    if (positions < 1 || keys.length !== positions * KEY_BYTES) throw new RangeError(`layer ${layer}: ${keys.length} bytes are not ${positions} keys`);
    const sorted = sortKeys(keys);
    this.sum = (this.sum + BigInt(`0x${fingerprintKeys(sorted)}`)) & MASK64;
    const block = new Uint8Array(8 + sorted.length);
    block.set(blockHead(layer, positions), 0);
    block.set(sorted, 8);
    this.emit(block);
    this.positions += positions;
    this.layers++;
    this.lastLayer = layer;
  }

  /**
   * Writes the end block and the trailer (positions, layers, fingerprint).
   * @throws RangeError when no layer was written or it was finished already.
   */
  finish(): LayeredCertificateSummary {
    if (this.finished) throw new RangeError('the certificate is finished');
    if (this.layers === 0) throw new RangeError('a layered certificate needs at least one layer');
    this.finished = true;
    const trailer: LayeredTrailer = { positions: this.positions, layers: this.layers, fingerprint: this.sum.toString(16).padStart(16, '0') };
    const line = new TextEncoder().encode(`${JSON.stringify(trailer)}\n`);
    const tail = new Uint8Array(8 + line.length);
    tail.set(blockHead(LAYER_END, 0), 0);
    tail.set(line, 8);
    this.emit(tail);
    return { ...trailer, bytes: this.bytes };
  }

  private emit(raw: Uint8Array): void {
    const gz = gzipSync(raw, { level: GZIP_LEVEL });
    this.bytes += gz.length;
    this.sink(new Uint8Array(gz.buffer, gz.byteOffset, gz.byteLength));
  }
}

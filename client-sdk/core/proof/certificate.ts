/**
 * Unsolvability certificates, the browser-safe part of the writing side: the
 * caps, the sorted key set, the uncompressed file body (format v1,
 * docs/proofs.md) and the gzip step through the Compression Streams API,
 * which Node 20 and browsers both have. `writer.ts` (Node, node:zlib) builds
 * the same files synchronously for the service's worker threads; the
 * in-process solver (`sdk/local.ts`) uses this module.
 */
import { formatBoard } from '../board.js';
import type { Engine } from '../engine/index.js';
import { SolverError } from '../errors.js';
import {
  CERTIFICATE_FORMAT,
  CERTIFICATE_VERSION,
  FINGERPRINT_ALGORITHM,
  KEY_BYTES,
  keyBytesFor,
  KEY_ENCODING,
  POOLED_KEY_ENCODING,
  pooledReductions,
  reductionsFor,
  type CertificateHeader,
  type CertificateResult,
  type ProofRequest,
} from './format.js';
import { defaultNumbering } from '../../api/request.js';
import { findPreset, type Deal, type Layout, type Rules } from '../rules.js';

/**
 * Default caps of certificates: at most 2,000,000 positions (96 MB of keys
 * before compression) are exported at all, and an inline certificate
 * (`"proof": true` in POST /v1/solve) is at most 8 MiB of gzip (about 11 MB
 * of base64). A caller may choose others (server configuration).
 */
export const DEFAULT_PROOF_CAPS = Object.freeze({ maxPositions: 2_000_000, inlineMaxBytes: 8 * 1024 * 1024 });

/** Caps of certificates (see {@link DEFAULT_PROOF_CAPS}). */
export interface ProofCaps {
  /** Most positions a certificate may hold. */
  maxPositions: number;
  /** Largest certificate, bytes of gzip, returned inline in a solve response. */
  inlineMaxBytes: number;
}

/**
 * Sorts keys ascending bytewise (a new array; `keys` is left as it is).
 * @param keys `count` keys of `keyBytes` bytes each, in any order.
 * @throws SolverError `engine_error` when two keys are equal: the engine
 *   stores each position once, so a repeat means its table is inconsistent,
 *   and such a set must never be shipped as a proof.
 */
export function sortKeys(keys: Uint8Array, keyBytes = KEY_BYTES): Uint8Array {
  if (keys.length % keyBytes !== 0 || keyBytes % 4 !== 0) throw new RangeError(`keys must be whole ${keyBytes}-byte keys`);
  const count = keys.length / keyBytes;
  const wordsPerKey = keyBytes / 4;
  // Big-endian 32-bit words compare like the bytes they are made of.
  const words = new Uint32Array(keys.length / 4);
  const view = new DataView(keys.buffer, keys.byteOffset, keys.byteLength);
  for (let i = 0; i < words.length; i++) words[i] = view.getUint32(i * 4, false);
  const order = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  order.sort((a, b) => {
    const x = a * wordsPerKey;
    const y = b * wordsPerKey;
    for (let w = 0; w < wordsPerKey; w++) {
      const u = words[x + w];
      const v = words[y + w];
      if (u !== v) return u < v ? -1 : 1;
    }
    return 0;
  });
  const out = new Uint8Array(keys.length);
  for (let i = 0; i < count; i++) {
    const from = order[i] * keyBytes;
    out.set(keys.subarray(from, from + keyBytes), i * keyBytes);
    if (i > 0 && sameKey(out, (i - 1) * keyBytes, i * keyBytes, keyBytes)) {
      throw new SolverError('engine_error', `the engine's state table holds the same position twice (key ${i}); no certificate can be made`);
    }
  }
  return out;
}

/** What a certificate is made of. */
export interface CertificateInput {
  rules: Rules;
  /** The start position as posed (before auto-moves). */
  start: Layout;
  /** The explored set's keys, any order (sorted here). */
  keys: Uint8Array;
  /** The engine's fingerprint of the set (the checker recomputes it). */
  fingerprint: string;
  /** Preset id (informational). */
  game: string;
  /** Deal number and numbering, when the start came from one (informational). */
  deal?: { number: string; numbering: 'ms' | 'pysolfc' } | null;
  /** The pools, when `keys` are of the pooled game (client-sdk/core/pools.ts; keyEncoding `pooled-6bit-le-v1`). */
  pools?: readonly string[];
}

function sameKey(keys: Uint8Array, a: number, b: number, keyBytes: number): boolean {
  for (let i = 0; i < keyBytes; i++) if (keys[a + i] !== keys[b + i]) return false;
  return true;
}

/**
 * The body of a certificate file before compression: the header line and
 * the sorted keys (docs/proofs.md, format v1).
 * @throws SolverError `engine_error` on a repeated key (see {@link sortKeys}).
 */
export function certificateBody(input: CertificateInput): Uint8Array {
  const keyBytes = keyBytesFor(input.rules);
  const sorted = sortKeys(input.keys, keyBytes);
  const header: CertificateHeader = {
    format: CERTIFICATE_FORMAT,
    version: CERTIFICATE_VERSION,
    game: input.game,
    deal: input.deal ?? null,
    rules: { ...input.rules },
    start: formatBoard(input.start, input.rules),
    positions: sorted.length / keyBytes,
    keyBytes,
    keyEncoding: input.pools !== undefined ? POOLED_KEY_ENCODING : KEY_ENCODING,
    ...(input.pools !== undefined ? { pools: [...input.pools] } : {}),
    reductions: (input.pools !== undefined ? pooledReductions(input.pools) : reductionsFor(input.rules)).map((r) => (r.rule !== undefined ? { name: r.name, rule: r.rule } : { name: r.name })),
    fingerprint: input.fingerprint,
    fingerprintAlgorithm: FINGERPRINT_ALGORITHM,
  };
  const line = new TextEncoder().encode(`${JSON.stringify(header)}\n`);
  const raw = new Uint8Array(line.length + sorted.length);
  raw.set(line, 0);
  raw.set(sorted, line.length);
  return raw;
}

/**
 * The uncompressed certificate of the engine's last solve (which must have
 * answered `unsolvable` on `deal`; with `pools`, a pooled solve of those
 * pools), or why there is none: over the request's position cap.
 * @throws SolverError `engine_error` when the engine's export is inconsistent.
 */
export function certificateBodyFromEngine(
  engine: Engine,
  deal: Deal,
  positions: number,
  fingerprint: string,
  request: ProofRequest,
  pools?: readonly string[],
): { body: Uint8Array } | CertificateResult {
  // the engine's keys must be as wide as the format says for these rules (format.ts keyBytesFor)
  const keyBytes = keyBytesFor(deal.rules);
  if (positions > request.maxPositions) {
    return { included: false, reason: 'over_position_cap', positions, maxPositions: request.maxPositions, estimatedRawBytes: positions * keyBytes };
  }
  const keys = engine.storedKeys(request.maxPositions);
  if (keys === null || keys.length !== positions * keyBytes) {
    throw new SolverError('engine_error', `the engine exported ${keys === null ? 'no' : keys.length / keyBytes} keys of ${keyBytes} bytes for ${positions} stored positions`);
  }
  return { body: certificateBody({ rules: deal.rules, start: deal.layout, keys, fingerprint, game: request.game ?? '', deal: request.deal ?? null, ...(pools !== undefined ? { pools } : {}) }) };
}

/** A compressed certificate within the request's byte cap, or why not. */
export function certificateWithinCap(certificate: Uint8Array, request: ProofRequest): CertificateResult {
  if (certificate.length > request.maxBytes) {
    return { included: false, reason: 'over_size_cap', bytes: certificate.length, maxBytes: request.maxBytes };
  }
  return { included: true, bytes: certificate.length, certificate };
}

/** gzip (RFC 1952) through the Compression Streams API (Node 18+, browsers). */
export async function gzipWithStreams(data: Uint8Array): Promise<Uint8Array> {
  // a certificate body is built in an ordinary ArrayBuffer (certificateBody), never a shared one
  const stream = new Blob([data as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * The proof request of a solve request: the certificate within `caps`, inline
 * (`maxBytes` = `caps.inlineMaxBytes`) or as a download (no byte cap beyond
 * the position cap), with the header's informational game and deal number.
 */
export function proofRequestFor(
  req: { game: string; deal?: number | string; numbering?: 'ms' | 'pysolfc' },
  caps: ProofCaps,
  kind: 'inline' | 'download',
): ProofRequest {
  const preset = findPreset(req.game);
  const numbering = req.numbering ?? (preset ? defaultNumbering(preset) : null);
  return {
    certificate: true,
    maxPositions: caps.maxPositions,
    maxBytes: kind === 'inline' ? caps.inlineMaxBytes : Number.MAX_SAFE_INTEGER,
    game: req.game,
    deal: req.deal !== undefined && numbering !== null ? { number: String(req.deal), numbering } : null,
  };
}

/**
 * The layered certificate, format version 2 (docs/proofs.md, "Layered
 * certificates"): the explored set of the layered pass of the no-cell Castle
 * games, written layer by layer as the pass closes its layers, so that
 * neither the writer nor the checker ever holds the whole set.
 *
 * The file is gzip (RFC 1952; one or more members, concatenated, as RFC 1952
 * §2.2 allows: the writer compresses each layer on its own) of:
 *  1. a header line: one JSON object (`LayeredHeaderSchema`) and `\n`;
 *  2. layer blocks, in strictly ascending layer number: 8 bytes (u32
 *     little-endian layer number 0 .. 2^32 − 2, u32 little-endian count ≥ 1),
 *     then `count` keys of 48 bytes (`canonical-6bit-le-v1`, the v1
 *     certificate's encoding), sorted ascending bytewise, no two equal;
 *  3. the end block: layer number 0xffffffff, count 0;
 *  4. a trailer line: one JSON object (`LayeredTrailerSchema`: positions,
 *     layers, fingerprint of every key) and `\n`, and nothing after it.
 * The positions and the fingerprint are in the trailer because the writer
 * knows them only when the pass ends.
 *
 * Shared by the writer (layered-writer.ts) and the checker (check-layered.ts):
 * names and shapes only, nothing of either side's logic. Browser-safe.
 */
import { z } from 'zod';
import { CERTIFICATE_FORMAT, FINGERPRINT_ALGORITHM, KEY_BYTES, KEY_ENCODING, AUTO_MOVE_RULES, CertificateHeaderSchema } from './format.js';

/** `version` of a layered certificate's header. */
export const LAYERED_CERTIFICATE_VERSION = 2;
/** `order` of a layered certificate: the layer of docs/proofs.md "Layered certificates" (cards home plus incompatible dealt links broken, and its class). */
export const LAYER_ORDER = 'castle-dealt-links-v1';
/** Layer number of the end block. */
export const LAYER_END = 0xffffffff;
/** Bytes of a block's head (layer number, count). */
export const BLOCK_HEAD_BYTES = 8;

/** The header line of a layered certificate (docs/proofs.md, "Layered certificates"). */
export const LayeredHeaderSchema = z.strictObject({
  format: z.literal(CERTIFICATE_FORMAT),
  version: z.literal(LAYERED_CERTIFICATE_VERSION),
  /** Preset id the deal was posed in (informational). */
  game: CertificateHeaderSchema.shape.game,
  /** The deal number and numbering, or null (the checker deals it again, as for v1). */
  deal: CertificateHeaderSchema.shape.deal,
  rules: CertificateHeaderSchema.shape.rules,
  /** The start position, fc-solve board text, as given (before auto-moves). */
  start: CertificateHeaderSchema.shape.start,
  keyBytes: z.literal(KEY_BYTES),
  keyEncoding: z.literal(KEY_ENCODING),
  /** How the blocks are ordered: {@link LAYER_ORDER}. */
  order: z.literal(LAYER_ORDER),
  reductions: z.array(z.strictObject({ name: z.string().max(64), rule: z.enum(AUTO_MOVE_RULES).optional() })),
  fingerprintAlgorithm: z.literal(FINGERPRINT_ALGORITHM),
});

/** A parsed layered certificate header. */
export type LayeredHeader = z.infer<typeof LayeredHeaderSchema>;

/** The trailer line: what the writer counted, which the checker recounts. */
export const LayeredTrailerSchema = z.strictObject({
  /** Keys in all layers. */
  positions: z.number().int().min(1),
  /** Layer blocks (the end block not counted). */
  layers: z.number().int().min(1),
  /** Fingerprint of every key of every layer (docs/proofs.md, "Fingerprint"): the same as a v1 certificate of the same set. */
  fingerprint: z.string().regex(/^[0-9a-f]{16}$/),
});

/** A parsed trailer. */
export type LayeredTrailer = z.infer<typeof LayeredTrailerSchema>;

/** One layer block of a parsed body (tests build and tamper with these). */
export interface LayerBlock {
  layer: number;
  /** `count` × 48 bytes. */
  keys: Uint8Array;
}

/** The 8-byte head of a block: layer number and key count, little-endian. */
export function blockHead(layer: number, count: number): Uint8Array {
  const head = new Uint8Array(BLOCK_HEAD_BYTES);
  const view = new DataView(head.buffer);
  view.setUint32(0, layer >>> 0, true);
  view.setUint32(4, count >>> 0, true);
  return head;
}

/**
 * The uncompressed body of a layered certificate from its parts (header
 * line, the blocks as given, the end block, the trailer line): the writer's
 * layout, for tests that build or tamper with certificates. No checks.
 */
export function layeredBody(header: object, blocks: readonly LayerBlock[], trailer: object): Uint8Array {
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [enc.encode(`${JSON.stringify(header)}\n`)];
  for (const b of blocks) parts.push(blockHead(b.layer, b.keys.length / KEY_BYTES), b.keys);
  parts.push(blockHead(LAYER_END, 0), enc.encode(`${JSON.stringify(trailer)}\n`));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Splits an uncompressed layered body into header, blocks and trailer (JSON
 * not validated), the inverse of {@link layeredBody}, for tests.
 * @throws RangeError when the bytes are not laid out as a layered body.
 */
export function parseLayeredBody(raw: Uint8Array): { header: Record<string, unknown>; blocks: LayerBlock[]; trailer: Record<string, unknown> } {
  const dec = new TextDecoder();
  const nl = raw.indexOf(0x0a);
  if (nl < 0) throw new RangeError('no header line');
  const header = JSON.parse(dec.decode(raw.subarray(0, nl))) as Record<string, unknown>;
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const blocks: LayerBlock[] = [];
  let at = nl + 1;
  for (;;) {
    if (at + BLOCK_HEAD_BYTES > raw.length) throw new RangeError('truncated block head');
    const layer = view.getUint32(at, true);
    const count = view.getUint32(at + 4, true);
    at += BLOCK_HEAD_BYTES;
    if (layer === LAYER_END) break;
    blocks.push({ layer, keys: raw.slice(at, at + count * KEY_BYTES) });
    at += count * KEY_BYTES;
  }
  const end = raw.indexOf(0x0a, at);
  if (end < 0) throw new RangeError('no trailer line');
  return { header, blocks, trailer: JSON.parse(dec.decode(raw.subarray(at, end))) as Record<string, unknown> };
}

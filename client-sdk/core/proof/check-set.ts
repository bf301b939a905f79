/**
 * The proof checker's set of positions: the certificate's keys as big-endian
 * 32-bit words, for bytewise comparison and binary search, and a lookup of a
 * position's canonical key in the set.
 */
import type { Layout } from '../rules.js';
import { encodeKey, hex } from './check-keys.js';
import { KEY_BYTES } from './format.js';

/** 32-bit words a key of {@link KEY_BYTES} bytes (the width of every game of up to 11 columns). */
export const WORDS = KEY_BYTES / 4;

/** 1, 0, -1 as the key at `a` (in words) compares bytewise with the one at `b`; keys of `size` words (default {@link WORDS}). */
export function compareAt(words: Uint32Array, a: number, other: Uint32Array, b: number, size = WORDS): number {
  for (let w = 0; w < size; w++) {
    const x = words[a + w];
    const y = other[b + w];
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** The first `count` keys of `bytes` as big-endian 32-bit words, `size` words a key (default {@link WORDS}). */
export function toWords(bytes: Uint8Array, count: number, size = WORDS): Uint32Array {
  const words = new Uint32Array(count * size);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < words.length; i++) words[i] = view.getUint32(i * 4, false);
  return words;
}

/** True when the key (as `size` words in `probe`, default {@link WORDS}) is in the sorted set. */
export function contains(set: Uint32Array, count: number, probe: Uint32Array, size = WORDS): boolean {
  let lo = 0;
  let hi = count - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareAt(set, mid * size, probe, 0, size);
    if (c === 0) return true;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}


/**
 * A lookup of positions in the sorted set of `n` keys (`set`, as words) of
 * `keyBytes` bytes (default {@link KEY_BYTES}), for a foundation base
 * `base`; one scratch key, so one lookup at a time.
 */
export function makeLookup(set: Uint32Array, n: number, base: number, keyBytes = KEY_BYTES) {
  const scratch = new Uint8Array(keyBytes);
  const view = new DataView(scratch.buffer);
  const size = keyBytes / 4;
  const probe = new Uint32Array(size);
  return {
    /** True when the canonical key of `layout` is in the set. */
    has(layout: Layout): boolean {
      encodeKey(layout, base, scratch);
      for (let w = 0; w < size; w++) probe[w] = view.getUint32(w * 4, false);
      return contains(set, n, probe, size);
    },
    /** Hex of the key the last `has` looked up. */
    lastKeyHex: () => hex(scratch),
  };
}

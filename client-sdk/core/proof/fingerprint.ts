/**
 * The fingerprint of a set of keys (docs/proofs.md, "Fingerprint"), as the
 * proof checker computes it.
 */
import { KEY_BYTES } from './format.js';

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK64 = (1n << 64n) - 1n;

/**
 * The fingerprint of a set of keys: the sum modulo 2^64 of the FNV-1a 64-bit
 * hash of each key's bytes, as 16 lower-case hex digits. Order-free, so it
 * identifies the set whatever order it was found in.
 */
export function fingerprintKeys(keys: Uint8Array, keyBytes = KEY_BYTES): string {
  // FNV-1a on 64 bits, with the multiplication split in 32-bit halves (BigInt per byte is too slow).
  let sumHi = 0n;
  let sumLo = 0n;
  for (let off = 0; off + keyBytes <= keys.length; off += keyBytes) {
    let hi = 0xcbf29ce4;
    let lo = 0x84222325;
    for (let b = 0; b < keyBytes; b++) {
      lo = (lo ^ keys[off + b]) >>> 0;
      // (hi:lo) * 0x100000001b3 mod 2^64 = (hi:lo) * 0x1b3 + (lo << 40)
      const loMul = lo * 0x1b3;
      const carry = Math.floor(loMul / 0x100000000);
      const newLo = loMul >>> 0;
      hi = (Math.imul(hi, 0x1b3) + carry + ((lo << 8) >>> 0)) >>> 0;
      lo = newLo;
    }
    sumHi += BigInt(hi);
    sumLo += BigInt(lo);
  }
  const sum = ((sumHi << 32n) + sumLo) & MASK64;
  return sum.toString(16).padStart(16, '0');
}

/** Reference FNV-1a 64 of one key with BigInt (tests hold the fast version to it). */
export function fnv1a64Reference(bytes: Uint8Array): bigint {
  let h = FNV_OFFSET;
  for (const b of bytes) h = ((h ^ BigInt(b)) * FNV_PRIME) & MASK64;
  return h;
}

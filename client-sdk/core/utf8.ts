/**
 * Strict UTF-8 decoding of input read as bytes (request bodies, files given to
 * the CLI): invalid UTF-8 is refused with `invalid_utf8` and the byte offset of
 * the first bad byte, instead of being replaced by U+FFFD (what `Response.text()`,
 * `Request.json()` and `readFileSync(file, 'utf8')` do), which would turn a
 * damaged board into another text without a word.
 */
import { SolverError } from './errors.js';

const strict = new TextDecoder('utf-8', { fatal: true });

/**
 * Offset of the first byte that does not begin (or continue) a well-formed
 * UTF-8 sequence, by the Unicode Standard's Table 3-7 "Well-Formed UTF-8 Byte
 * Sequences" (no overlong forms, no surrogates U+D800..U+DFFF, nothing above
 * U+10FFFF); -1 when every byte is well formed.
 *
 * @param bytes the input.
 * @returns a 0-based byte offset: the lead byte of the first ill-formed
 *   sequence (a truncated sequence at the end: its lead byte), or -1.
 */
export function firstInvalidUtf8Offset(bytes: Uint8Array): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return i;
    if (i + need >= n) return i; // truncated at the end
    const second = bytes[i + 1];
    if (second < lo || second > hi) return i;
    for (let k = 2; k <= need; k++) {
      const c = bytes[i + k];
      if (c < 0x80 || c > 0xbf) return i;
    }
    i += need + 1;
  }
  return -1;
}

/**
 * Decodes UTF-8 bytes to a string, refusing invalid UTF-8. A leading
 * byte-order mark is dropped, as `Request.text()` does.
 *
 * @param bytes the raw input (a request body, a file's contents).
 * @param what what the bytes are, for the message: e.g. `the request body`,
 *   `the board file "deal.txt"`.
 * @returns the text.
 * @throws {SolverError} `invalid_utf8` (400) with `location.offset`, the
 *   0-based byte offset of the first ill-formed sequence (see
 *   {@link firstInvalidUtf8Offset}), and the bytes found there in the message.
 */
export function decodeUtf8Strict(bytes: Uint8Array, what: string): string {
  try {
    return strict.decode(bytes);
  } catch {
    const offset = firstInvalidUtf8Offset(bytes);
    const at = offset < 0 ? 0 : offset;
    const shown = Array.from(bytes.subarray(at, at + 4), (b) => b.toString(16).toUpperCase().padStart(2, '0')).join(' ');
    throw new SolverError('invalid_utf8', `${what} is not valid UTF-8: byte offset ${at} (bytes ${shown})`, { offset: at });
  }
}

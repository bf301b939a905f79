/**
 * Steps 1 to 5 of the proof check (check.ts lists them): read the file and
 * its header, the reductions, the length, order and fingerprint of the keys,
 * every key a canonical, valid, unwon position, and the start position (and
 * the deal the header names) in the set.
 */
import { gunzipSync } from 'node:zlib';
import { formatBoard, parseBoard } from '../board.js';
import { generateDeal } from '../deals/index.js';
import { SolverError } from '../errors.js';
import { issueMessage } from '../issue-messages.js';
import { findPreset, type Layout, type Rules } from '../rules.js';
import { isWon } from '../verify.js';
import { closeUnderAutoMoves } from './check-auto-moves.js';
import { decodeKey, encodeKey, hex } from './check-keys.js';
import { checkReductions } from './check-reductions.js';
import { Rejection } from './check-result.js';
import { compareAt, contains, makeLookup, toWords, WORDS } from './check-set.js';
import { fingerprintKeys } from './fingerprint.js';
import { closePooled, decodePooledKey, encodePooledKey, pooledFromLayout, pooledIsWon, pooledText, readPools } from './check-pooled.js';
import { CERTIFICATE_VERSION, CertificateHeaderSchema, KEY_BYTES, keyBytesFor, type AutoMoveRule, type CertificateHeader } from './format.js';
import { LAYERED_CERTIFICATE_VERSION } from './layered-format.js';

/** The certificate versions a checker of this SDK reads: 1 (check.ts, plain and pooled) and 2 (layered, check-layered.ts). */
export const SUPPORTED_VERSIONS: readonly number[] = [CERTIFICATE_VERSION, LAYERED_CERTIFICATE_VERSION];

/**
 * Refuses a header or trailer line that holds a carriage return (byte
 * 0x0D): a certificate's lines end with `\n` alone (docs/proofs.md), and a
 * raw CR can only be a line break (JSON strings escape it), such as a
 * `\r\n` line end left by a text conversion, which would also have
 * rewritten the binary keys. Both checkers (v1 and layered) refuse it.
 * @throws Rejection `bad_header` / `bad_trailer`.
 */
export function refuseCarriageReturn(line: Uint8Array, what: 'header' | 'trailer'): void {
  const at = line.indexOf(0x0d);
  if (at < 0) return;
  throw new Rejection(
    what === 'header' ? 'bad_header' : 'bad_trailer',
    `the ${what} line holds a carriage return (byte 0x0D at offset ${at}${at === line.length - 1 ? ': a \\r\\n line end' : ''}): a certificate's lines end with \\n alone`,
  );
}

/**
 * Refuses a header whose `version` is a number this SDK reads no
 * certificate of, naming the ones it reads (1 and 2), before the schema
 * (which knows only `expected`, the checker's own version) sees it; a
 * version the SDK reads but another checker checks is named with that checker.
 * @param expected the version of the checker calling (1 or 2).
 * @throws Rejection `bad_header`.
 */
export function refuseUnknownVersion(json: unknown, expected: number): void {
  if (typeof json !== 'object' || json === null || !('version' in json)) return;
  const version = (json as { version: unknown }).version;
  if (version === expected || typeof version !== 'number') return;
  if (!SUPPORTED_VERSIONS.includes(version)) {
    throw new Rejection('bad_header', `header field version: ${version} is not a certificate version this checker reads (it reads versions ${SUPPORTED_VERSIONS.join(' and ')}: 1 a certificate, 2 a layered certificate)`);
  }
  const other = version === LAYERED_CERTIFICATE_VERSION ? 'checkLayeredCertificate (check-layered.ts)' : 'checkCertificate (check.ts)';
  throw new Rejection('bad_header', `header field version: ${version} is checked by ${other}, not this checker (check-proof picks the checker by the version)`);
}

/**
 * Step 1: splits a certificate into its header and its key bytes.
 * @throws Rejection `not_gzip`, `bad_header`.
 */
function readCertificate(file: Uint8Array): { header: CertificateHeader; body: Uint8Array } {
  let raw: Buffer;
  try {
    raw = gunzipSync(file);
  } catch (err) {
    throw new Rejection('not_gzip', `the file is not a complete gzip stream (${err instanceof Error ? err.message : String(err)}): truncated or corrupted`);
  }
  const nl = raw.indexOf(0x0a);
  if (nl < 0) throw new Rejection('bad_header', 'no header line (no line break in the file)');
  const line = raw.subarray(0, nl);
  refuseCarriageReturn(line, 'header');
  let json: unknown;
  try {
    json = JSON.parse(line.toString('utf8'));
  } catch (err) {
    throw new Rejection('bad_header', `the header line is not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  refuseUnknownVersion(json, CERTIFICATE_VERSION);
  const parsed = CertificateHeaderSchema.safeParse(json, { error: issueMessage });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Rejection('bad_header', `header field ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return { header: parsed.data, body: raw.subarray(nl + 1) };
}

/** A certificate whose steps 1-5 passed, ready for step 6 on any range of positions. */
export interface Prepared {
  header: CertificateHeader;
  rule: AutoMoveRule;
  /** The key bytes, `positions` × `keyBytes`. */
  body: Uint8Array;
  /** The same keys as big-endian words, for lookups. */
  set: Uint32Array;
  /** Bytes of one key: `header.keyBytes`, which the checker holds to `keyBytesFor(header.rules)`. */
  keyBytes: number;
  /** See ProofCheckPass. */
  rulesChanged: string[];
}

/** Steps 1-5 (check.ts lists them) on a whole certificate file. @throws Rejection at the first fault */
export function prepare(file: Uint8Array): Prepared {
  const { header, body } = readCertificate(file);
  try {
    return prepareRead(header, body);
  } catch (err) {
    if (err instanceof Rejection && err.extra.header === undefined) throw new Rejection(err.code, err.message, { header, ...err.extra });
    throw err;
  }
}

/**
 * The key width of a certificate: the header's `keyBytes`, which must be
 * `keyBytesFor` its rules (48 bytes up to 11 columns, 56 beyond); a pooled
 * certificate is defined for 48-byte keys only.
 * @throws Rejection `bad_header`.
 */
export function checkKeyWidth(header: CertificateHeader): number {
  const wanted = keyBytesFor(header.rules);
  if (header.keyBytes !== wanted) {
    throw new Rejection('bad_header', `header field keyBytes: ${header.keyBytes}, but a key of ${header.rules.columns} columns is ${wanted} bytes (docs/proofs.md "Key encoding")`, { header });
  }
  if (header.pools !== undefined && wanted !== KEY_BYTES) {
    throw new Rejection('bad_header', `header field pools: pooled certificates have ${KEY_BYTES}-byte keys, for games of at most 11 columns (this one has ${header.rules.columns})`, { header });
  }
  return wanted;
}

function prepareRead(header: CertificateHeader, body: Uint8Array): Prepared {
  const rules = header.rules;
  const base = rules.foundationBase;
  const rule = checkReductions(header);
  const keyBytes = checkKeyWidth(header);
  const words = keyBytes / 4;

  // 3. length, order, fingerprint
  const n = header.positions;
  if (body.length !== n * keyBytes) {
    throw new Rejection(
      'bad_length',
      `the header announces ${n} positions (${n * keyBytes} bytes of keys) but the file holds ${body.length} bytes` +
        (body.length % keyBytes === 0 ? ` (${body.length / keyBytes} positions)` : ` (not a whole number of ${keyBytes}-byte keys)`),
      { header },
    );
  }
  const set = toWords(body, n, words);
  for (let i = 1; i < n; i++) {
    const c = compareAt(set, (i - 1) * words, set, i * words, words);
    if (c === 0) {
      throw new Rejection('duplicate_position', `positions ${i - 1} and ${i} are the same key ${hex(body.subarray(i * keyBytes, (i + 1) * keyBytes))}`, {
        header,
        positionIndex: i,
      });
    }
    if (c > 0) throw new Rejection('not_sorted', `position ${i} sorts before position ${i - 1}: the keys must be in ascending byte order`, { header, positionIndex: i });
  }
  const fingerprint = fingerprintKeys(body, keyBytes);
  if (fingerprint !== header.fingerprint) {
    throw new Rejection('fingerprint_mismatch', `the keys' fingerprint is ${fingerprint}, the header says ${header.fingerprint}`, { header });
  }

  if (header.pools !== undefined) return preparePooled(header, rule, body, set);

  // 4. every key a canonical, valid, unwon position
  const scratch = new Uint8Array(keyBytes);
  for (let i = 0; i < n; i++) {
    const key = body.subarray(i * keyBytes, (i + 1) * keyBytes);
    const layout = decodeKey(key, rules, i);
    encodeKey(layout, base, scratch);
    if (Buffer.compare(scratch, key) !== 0) {
      throw new Rejection(
        'bad_position',
        `position ${i} (key ${hex(key)}) is not in canonical form (columns sorted by their deepest card, empty columns last, cells descending); canonical: ${hex(scratch)}`,
        { header, positionIndex: i, position: formatBoard(layout, rules) },
      );
    }
    if (isWon(layout)) {
      throw new Rejection('won_position', `position ${i} is won (every card on the foundations): a set with a won position proves nothing`, {
        header,
        positionIndex: i,
        position: formatBoard(layout, rules),
      });
    }
  }

  // 5. the start
  const start = parseStart(header, rules);
  const dealtBase = checkDealOrigin(header, start);
  closeUnderAutoMoves(start, rule, base);
  const lookup = makeLookup(set, n, base, keyBytes);
  if (!lookup.has(start)) {
    throw new Rejection('start_missing', 'the start position (after the auto-move closure) is not in the set', {
      header,
      result: formatBoard(start, rules),
      resultKey: lookup.lastKeyHex(),
    });
  }
  return { header, rule, body, set, keyBytes, rulesChanged: rulesChangedFromPreset(header, dealtBase) };
}

/**
 * The header's start board under `rules`.
 * @throws Rejection `bad_start` when it is not a valid position.
 */
export function parseStart(header: CertificateHeader, rules: CertificateHeader['rules']): Layout {
  try {
    return parseBoard(header.start, rules);
  } catch (err) {
    throw new Rejection('bad_start', `the header's start board is not a valid position: ${err instanceof SolverError ? err.message : String(err)}`, { header });
  }
}

/**
 * Steps 4 and 5 of a pooled certificate (docs/proofs.md, "Pooled
 * certificates"): every key a valid pooled position in canonical form
 * (check-pooled.ts), none won; the start, its cards pooled and closed under
 * the pooled auto-moves, in the set, and the deal the header names dealt again.
 * @throws Rejection `bad_header` (the pools), `bad_position`, `won_position`, `bad_start`, `deal_mismatch`, `start_missing`
 */
function preparePooled(header: CertificateHeader, rule: AutoMoveRule, body: Uint8Array, set: Uint32Array): Prepared {
  const rules = header.rules;
  const { poolOf, size } = readPools(header.pools!);
  const n = header.positions;
  const scratch = new Uint8Array(KEY_BYTES);
  for (let i = 0; i < n; i++) {
    const key = body.subarray(i * KEY_BYTES, (i + 1) * KEY_BYTES);
    const pos = decodePooledKey(key, rules, poolOf, size, i);
    encodePooledKey(pos, scratch);
    if (Buffer.compare(scratch, key) !== 0) {
      throw new Rejection('bad_position', `position ${i} (pooled key ${hex(key)}) is not in canonical form (columns sorted by their cards, empty columns last, cells descending); canonical: ${hex(scratch)}`, {
        header,
        positionIndex: i,
        position: pooledText(pos, poolOf),
      });
    }
    if (pooledIsWon(pos)) {
      throw new Rejection('won_position', `position ${i} is won (every card on the foundations): a set with a won position proves nothing`, { header, positionIndex: i });
    }
  }
  const start = parseStart(header, rules);
  const dealtBase = checkDealOrigin(header, start);
  const pooledStart = pooledFromLayout(start, rules.foundationBase, poolOf);
  closePooled(pooledStart, size);
  encodePooledKey(pooledStart, scratch);
  const probe = toWords(scratch, 1);
  if (!contains(set, n, probe)) {
    throw new Rejection('start_missing', 'the start position (its cards pooled, after the pooled auto-move closure) is not in the set', { header, result: pooledText(pooledStart, poolOf), resultKey: hex(scratch) });
  }
  return { header, rule, body, set, keyBytes: KEY_BYTES, rulesChanged: rulesChangedFromPreset(header, dealtBase) };
}

function dealLabel(header: CertificateHeader): string {
  return header.deal === null ? header.game : `${header.game} deal ${header.deal.number} (${header.deal.numbering})`;
}

/**
 * Step 5, the deal: when the header names one, the deal generators deal it
 * again and it must be exactly the start position as given (columns, the
 * cards in the cells in order, foundations). Returns the foundation base the
 * deal chooses (Penguin's beak), if any.
 * @throws Rejection `deal_mismatch`
 */
export function checkDealOrigin(header: CertificateHeader, start: Layout): number | undefined {
  if (header.deal === null) return undefined;
  let dealt: { layout: Layout; foundationBase?: number };
  try {
    dealt = generateDeal(header.game, header.deal.numbering, header.deal.number);
  } catch (err) {
    throw new Rejection('deal_mismatch', `the header names ${dealLabel(header)}, which cannot be dealt: ${err instanceof SolverError ? err.message : String(err)}`, { header });
  }
  const cards = (cells: (number | null)[]) => cells.filter((c) => c !== null);
  const same =
    JSON.stringify(dealt.layout.columns) === JSON.stringify(start.columns) &&
    JSON.stringify(cards(dealt.layout.freeCells)) === JSON.stringify(cards(start.freeCells)) &&
    JSON.stringify(dealt.layout.foundations) === JSON.stringify(start.foundations);
  if (!same) {
    throw new Rejection('deal_mismatch', `the header names ${dealLabel(header)}, but its start position is not that deal`, {
      header,
      result: formatBoard(dealt.layout, { ...header.rules, foundationBase: dealt.foundationBase ?? header.rules.foundationBase }),
    });
  }
  return dealt.foundationBase;
}

/** The header's rules that differ from its game's preset (see ProofCheckPass `rulesChanged`). */
export function rulesChangedFromPreset(header: CertificateHeader, dealtBase: number | undefined): string[] {
  const preset = findPreset(header.game);
  if (!preset) return [];
  const expected: Rules = { ...preset.rules, ...(dealtBase !== undefined ? { foundationBase: dealtBase } : {}) };
  const changed: string[] = [];
  // emptyCell is optional in both: compared even when the header leaves it out
  for (const key of new Set([...Object.keys(header.rules), 'emptyCell']) as Set<keyof Rules>) {
    // a board of a game whose deal picks the foundation base (Penguin) sets its own
    if (key === 'foundationBase' && header.deal === null && preset.rules.wrap) continue;
    // an absent emptyCell is `any` (rules.ts)
    const given = key === 'emptyCell' ? (header.rules.emptyCell ?? 'any') : header.rules[key];
    const wanted = key === 'emptyCell' ? (expected.emptyCell ?? 'any') : expected[key];
    if (given !== wanted) changed.push(`${key} ${String(given)} instead of ${String(wanted)}`);
  }
  return changed;
}

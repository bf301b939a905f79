/**
 * The proof checker on 56-byte keys for more than 11 columns (Fan) and on
 * King Albert's reserve, from certificates made here without the engine: a
 * complete enumeration (the oracle's single-card moves, which
 * tests/unit/oracle.test.ts holds to the checker's, each followed by the
 * certificate's auto-move closure). They exercise the format and the
 * checker's reading of it (docs/proofs.md "Key encoding"); the engine's own
 * certificates of these games are checked in tests/unit/more-games.test.ts.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { generateDeal } from '../../client-sdk/core/deals/index.js';
import type { Layout, Rules } from '../../client-sdk/core/rules.js';
import { applyMove } from '../../client-sdk/core/verify.js';
import { certificateBody, sortKeys } from '../../client-sdk/core/proof/certificate.js';
import { checkCertificate } from '../../client-sdk/core/proof/check.js';
import { closeUnderAutoMoves } from '../../client-sdk/core/proof/check-auto-moves.js';
import { encodeKey } from '../../client-sdk/core/proof/check-keys.js';
import { fingerprintKeys } from '../../client-sdk/core/proof/fingerprint.js';
import { autoMoveRuleFor, KEY_BYTES, keyBytesFor, WIDE_KEY_BYTES } from '../../client-sdk/core/proof/format.js';
import { oracleMoves } from '../helpers/oracle.js';
import { rulesOf } from '../helpers/positions.js';

/** The canonical keys of every position reachable from `start` (auto-move closed), or null when one is won. */
function reachableKeys(rules: Rules, start: Layout): Uint8Array | null {
  const keyBytes = keyBytesFor(rules);
  const rule = autoMoveRuleFor(rules);
  const first = structuredClone(start);
  closeUnderAutoMoves(first, rule, 1);
  const seen = new Map<string, Uint8Array>();
  const queue: Layout[] = [];
  const add = (layout: Layout): void => {
    const key = new Uint8Array(keyBytes);
    encodeKey(layout, 1, key);
    const id = Buffer.from(key).toString('hex');
    if (seen.has(id)) return;
    seen.set(id, key);
    queue.push(layout);
  };
  add(first);
  while (queue.length > 0) {
    const layout = queue.pop()!;
    if (layout.foundations.every((n) => n === 13)) return null;
    for (const move of oracleMoves(rules, layout)) {
      const next = applyMove(rules, layout, move);
      closeUnderAutoMoves(next, rule, 1);
      add(next);
    }
  }
  const keys = new Uint8Array(seen.size * keyBytes);
  [...seen.values()].forEach((key, i) => keys.set(key, i * keyBytes));
  return keys;
}

/** A certificate file of `game` deal `deal` (unsolvable) under `rules`. */
function certificateOf(game: string, deal: number, rules: Rules, edit?: (body: Uint8Array, headerEnd: number) => void): Uint8Array {
  const start = generateDeal(game, 'pysolfc', deal).layout;
  const keys = reachableKeys(rules, start);
  if (keys === null) throw new Error(`${game} ${deal} is solvable`);
  const fingerprint = fingerprintKeys(sortKeys(keys, keyBytesFor(rules)), keyBytesFor(rules));
  const body = certificateBody({ rules, start, keys, fingerprint, game, deal: { number: String(deal), numbering: 'pysolfc' } });
  edit?.(body, body.indexOf(0x0a) + 1);
  return gzipSync(body);
}

describe('certificates of wider games and of a reserve (checker side)', () => {
  it('Fan deal 5: 56-byte keys, passes; a changed key or a 48-byte header does not', () => {
    const fan = rulesOf('fan');
    expect(keyBytesFor(fan)).toBe(WIDE_KEY_BYTES);
    expect(keyBytesFor(rulesOf('seahaven_towers'))).toBe(KEY_BYTES);
    const result = checkCertificate(certificateOf('fan', 5, fan));
    expect(result).toMatchObject({ ok: true });
    if (result.ok) expect(result.header.keyBytes).toBe(56);

    const flipped = checkCertificate(certificateOf('fan', 5, fan, (body, at) => (body[at + 3] ^= 0x10)));
    expect(flipped.ok).toBe(false);

    const narrow = checkCertificate(
      certificateOf('fan', 5, fan, (body) => {
        const text = Buffer.from(body).toString('latin1').replace('"keyBytes":56', '"keyBytes":48');
        body.set(Buffer.from(text, 'latin1'));
      }),
    );
    expect(narrow).toMatchObject({ ok: false, code: 'bad_header' });
    if (!narrow.ok) expect(narrow.reason).toContain('a key of 18 columns is 56 bytes');
  });

  it('King Albert deal 9: the reserve rule is part of the proof', () => {
    const ka = rulesOf('king_albert');
    expect(checkCertificate(certificateOf('king_albert', 9, ka))).toMatchObject({ ok: true });
    // the same set under rules whose cells take cards: a move into a cell leaves it
    const refilled = checkCertificate(
      certificateOf('king_albert', 9, ka, (body) => {
        const text = Buffer.from(body).toString('latin1').replace('"emptyCell":"none",', '"emptyCell":"any", ');
        body.set(Buffer.from(text, 'latin1'));
      }),
    );
    expect(refilled).toMatchObject({ ok: false, code: 'not_closed' });
    if (!refilled.ok) expect(refilled.move).toMatchObject({ to: 'cell' });
  });
});

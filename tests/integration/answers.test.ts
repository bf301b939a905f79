/**
 * The service's answers stay the same byte for byte: every case of
 * tests/helpers/answer-fixture.ts (some 4,400 requests of every game, with
 * and without `optimize`, proofs and progress reports, certificates through `/v1/proofs`,
 * positions by board and layout, and faults of the position) is asked
 * again and its hash compared with the one recorded in
 * tests/fixtures/answers/answers.tsv (normalised fields: `elapsedMs` and
 * `memoryBytes`). A difference names the cases; `generate.ts` beside the
 * hashes records them again when an answer is meant to change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerAll, answerCases, readAnswerHashes, type AnswerApp } from '../helpers/answer-fixture.js';
import { answerFixtureApp } from '../helpers/answer-app.js';
import { engineBuilt } from '../helpers/engine.js';

describe.skipIf(!engineBuilt())('recorded answers (tests/fixtures/answers)', () => {
  let app: AnswerApp;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ app, close } = await answerFixtureApp());
  });
  afterAll(() => close());

  it('every case answers as recorded, byte for byte but for elapsed times and engine memory', async () => {
    const cases = answerCases();
    const recorded = readAnswerHashes();
    expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);
    expect([...recorded.keys()].sort()).toEqual(cases.map((c) => c.id).sort());
    const got = await answerAll(app, cases, 4);
    const differ = cases.filter((c) => got.get(c.id) !== recorded.get(c.id)).map((c) => c.id);
    expect(differ, `${differ.length} answers differ from the recorded ones`).toEqual([]);
  }, 600_000);

  it('a solve that writes progress reports answers the same (every fifth case)', async () => {
    const { app: reporting, close: closeReporting } = await answerFixtureApp({ progress: true });
    try {
      const cases = answerCases().filter((_, i) => i % 5 === 0);
      const recorded = readAnswerHashes();
      const got = await answerAll(reporting, cases, 4);
      const differ = cases.filter((c) => got.get(c.id) !== recorded.get(c.id)).map((c) => c.id);
      expect(differ, `${differ.length} answers differ from the recorded ones`).toEqual([]);
    } finally {
      await closeReporting();
    }
  }, 600_000);
});

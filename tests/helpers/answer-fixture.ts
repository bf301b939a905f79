/**
 * The recorded answers of `POST /v1/solve` and `POST /v1/proofs`
 * (tests/fixtures/answers/): the cases, how an answer is hashed, and the
 * app that answers them. `tests/fixtures/answers/generate.ts` records the
 * hashes, `tests/integration/answers.test.ts` checks the service still
 * gives them, byte for byte.
 *
 * The cases: deals 1..DEALS_PER_GAME of every game (the Castle games' boards
 * for Selective Castle, which has no deal numbers), under a small state
 * budget so that each search ends by its count of positions (never by the
 * clock: the deadline is the cap) and the verdicts are the same on every
 * machine; every OPTIONS_EVERY-th of them again with `optimize: "length"`
 * and again with `proof: true`, and through `POST /v1/proofs`; requests by
 * board text and by JSON layout; and requests whose fault the deal's
 * resolution finds (a 4xx body).
 *
 * Normalised before hashing, because they legitimately differ from run to
 * run: every `"elapsedMs"` (the search's, the shortening's) and every
 * `"memoryBytes"` (the engine's memory, which depends on the searches its
 * worker ran before) are written as 0. Nothing else is touched: the bytes
 * are hashed as they came.
 *
 * `optimize` runs with the beam width capped at OPTIMIZE_MAX_WIDTH and the
 * largest budget, so that the shortening runs all its beams to their end
 * and its solution does not depend on the machine's speed (with the
 * default width the beams stop at the deadline: client-sdk/core/shorten.ts);
 * the API offers no width, so the test app adds it (`withFixedShortening`).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SolveRequest } from '../../client-sdk/api/schemas.js';
import { REFERENCE_DEALS, ROOT } from './paths.js';

/** Where the hashes are kept. */
export const ANSWERS_FILE = join(ROOT, 'tests', 'fixtures', 'answers', 'answers.tsv');

/** Deals of each game (1..this). */
export const DEALS_PER_GAME = 200;
/** Every this-th deal is also asked with `optimize`, with `proof`, and through `/v1/proofs`. */
export const OPTIONS_EVERY = 10;
/** The state budget of every case: small enough that each search ends within it quickly. */
export const CASE_MAX_STATES = 30_000;
/** The deadline of every case, ms: the cap, so that no search ends by the clock. */
export const CASE_TIMEOUT_MS = 120_000;
/** Widest beam of the shortening in the fixture (see the file comment). */
export const OPTIMIZE_MAX_WIDTH = 64;

/** One recorded request. */
export interface AnswerCase {
  /** Unique name, e.g. `freecell/17`, `freecell/17/optimize`. */
  id: string;
  path: '/v1/solve' | '/v1/proofs';
  body: unknown;
}

/** The games and how their deals are asked for. */
const GAMES: { game: string; numbering?: 'ms' | 'pysolfc'; boardsOf?: string }[] = [
  { game: 'freecell', numbering: 'ms' },
  { game: 'relaxed_freecell', numbering: 'ms' },
  { game: 'forecell' },
  { game: 'bakers_game', numbering: 'ms' },
  { game: 'kings_only_bakers_game', numbering: 'ms' },
  { game: 'eight_off' },
  { game: 'seahaven_towers' },
  { game: 'seahaven_towers_relaxed' },
  { game: 'seahaven_towers_unlimited' },
  { game: 'seahaven_towers_3cells' },
  { game: 'penguin' },
  { game: 'beleaguered_castle' },
  { game: 'sham_battle' },
  { game: 'streets_and_alleys' },
  { game: 'citadel' },
  { game: 'selective_castle', boardsOf: 'beleaguered_castle' },
  { game: 'fortress' },
];

/** Boards of the reference deals of `game` (tests/fixtures/data/deals), by deal number. */
function referenceBoards(game: string): Map<number, string> {
  const boards = new Map<number, string>();
  for (const line of readFileSync(join(REFERENCE_DEALS, `${game}.jsonl`), 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const row = JSON.parse(line) as { deal: number; board: string };
    boards.set(row.deal, row.board);
  }
  return boards;
}

/** Every case, in a fixed order. */
export function answerCases(): AnswerCase[] {
  const limits = { maxStates: CASE_MAX_STATES, timeoutMs: CASE_TIMEOUT_MS };
  const cases: AnswerCase[] = [];
  for (const { game, numbering, boardsOf } of GAMES) {
    const boards = boardsOf !== undefined ? referenceBoards(boardsOf) : undefined;
    for (let deal = 1; deal <= DEALS_PER_GAME; deal++) {
      const position: Partial<SolveRequest> = boards !== undefined ? { board: boards.get(deal)! } : { deal, ...(numbering ? { numbering } : {}) };
      const base = { game, ...position, limits };
      cases.push({ id: `${game}/${deal}`, path: '/v1/solve', body: base });
      if (deal % OPTIONS_EVERY !== 0) continue;
      cases.push({ id: `${game}/${deal}/optimize`, path: '/v1/solve', body: { ...base, optimize: 'length', limits: { ...limits, optimizeMs: 10_000 } } });
      cases.push({ id: `${game}/${deal}/proof`, path: '/v1/solve', body: { ...base, proof: true } });
      cases.push({ id: `${game}/${deal}/download`, path: '/v1/proofs', body: base });
    }
  }
  // positions given as board text and as JSON layouts, under overridden rules
  const ms = referenceBoards('freecell_ms');
  for (const deal of [1, 2, 3, 617, 11982]) {
    cases.push({ id: `freecell/board/${deal}`, path: '/v1/solve', body: { game: 'freecell', board: ms.get(deal), limits } });
    cases.push({ id: `freecell/board/${deal}/3cells`, path: '/v1/solve', body: { game: 'freecell', board: ms.get(deal), rules: { freeCells: 3 }, limits } });
  }
  const layout = { columns: [['KH', 'QH'], ['JH'], [], [], [], [], [], [], [], []], freeCells: [null, 'TH'], foundations: { H: 9, C: 13, D: 13, S: 13 } };
  cases.push({ id: 'seahaven_towers/layout', path: '/v1/solve', body: { game: 'seahaven_towers', rules: { emptyColumn: 'any' }, layout, limits } });
  cases.push({ id: 'freecell/deal-string', path: '/v1/solve', body: { game: 'freecell', deal: '8589934591', limits } });
  cases.push({ id: 'freecell/deal-rules', path: '/v1/solve', body: { game: 'freecell', deal: 5, rules: { freeCells: 2 }, limits } });
  cases.push({ id: 'freecell/default-limits', path: '/v1/solve', body: { game: 'freecell', deal: 1 } });
  // faults found while resolving the position: their 4xx bodies
  const faults: [string, unknown][] = [
    ['unknown-game', { game: 'nonesuch', deal: 1 }],
    ['deal-out-of-range', { game: 'freecell', deal: 0 }],
    ['deal-out-of-range-big', { game: 'freecell', deal: '99999999999' }],
    ['numbering', { game: 'seahaven_towers', deal: 1, numbering: 'ms' }],
    ['layout-required', { game: 'selective_castle', deal: 1 }],
    ['two-positions', { game: 'freecell', deal: 1, board: ms.get(1) }],
    ['bad-rules', { game: 'freecell', deal: 1, rules: { columns: 11 } }],
    ['rules-columns', { game: 'freecell', deal: 1, rules: { columns: 7 } }],
    ['rules-cells', { game: 'eight_off', deal: 1, rules: { freeCells: 1 } }],
    ['penguin-base', { game: 'penguin', deal: 1, rules: { foundationBase: 2 } }],
    ['penguin-wrap', { game: 'penguin', deal: 1, rules: { wrap: false } }],
    ['malformed-board', { game: 'freecell', board: 'KS QH\nXX 2C\n' }],
    ['duplicate-card', { game: 'freecell', board: ms.get(1)!.replace('JD', 'KS') }],
    ['missing-card', { game: 'freecell', board: ms.get(1)!.split('\n').slice(1).join('\n') }],
    ['bad-layout', { game: 'freecell', layout: { columns: [['ZZ']], freeCells: [], foundations: { H: 0 } } }],
    ['bad-limits', { game: 'freecell', deal: 1, limits: { maxStates: 0 } }],
    ['bad-optimize', { game: 'freecell', deal: 1, limits: { optimizeMs: 5 } }],
  ];
  for (const [name, body] of faults) cases.push({ id: `fault/${name}`, path: '/v1/solve', body });
  return cases;
}

/** `text` with every legitimately varying field written as 0 (see the file comment). */
export function normalizeAnswer(text: string): string {
  return text.replace(/"(elapsedMs|memoryBytes)":-?[0-9.e+-]+/g, '"$1":0');
}

/**
 * The hash of one answer: its status, the headers that carry its content
 * (`content-type`, and the certificate's `content-disposition`,
 * `x-proof-positions`, `x-proof-fingerprint`), and its body, normalised
 * when it is JSON (a certificate's bytes are hashed as they are).
 */
export function answerHash(status: number, headers: Headers, body: Uint8Array): string {
  const type = headers.get('content-type') ?? '';
  const hash = createHash('sha256');
  hash.update(`${status}\n${type}\n`);
  for (const name of ['content-disposition', 'x-proof-positions', 'x-proof-fingerprint']) hash.update(`${headers.get(name) ?? ''}\n`);
  hash.update(/json/.test(type) ? normalizeAnswer(Buffer.from(body).toString('utf8')) : body);
  return hash.digest('hex').slice(0, 32);
}

/** The recorded hashes, by case id. */
export function readAnswerHashes(): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of readFileSync(ANSWERS_FILE, 'utf8').split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const [id, hash] = line.split('\t');
    out.set(id, hash);
  }
  return out;
}

/** What `answerCase` needs: the app's `request` (Hono's `app.request`). */
export interface AnswerApp {
  request(path: string, init: RequestInit): Response | Promise<Response>;
}

/** Asks `app` one case; its hash. */
export async function answerCase(app: AnswerApp, c: AnswerCase): Promise<string> {
  const res = await app.request(c.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(c.body) });
  return answerHash(res.status, res.headers, new Uint8Array(await res.arrayBuffer()));
}

/** Runs `cases` on `app`, `concurrency` at a time; the hashes by case id. */
export async function answerAll(app: AnswerApp, cases: readonly AnswerCase[], concurrency: number): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < cases.length) {
        const c = cases[next++];
        out.set(c.id, await answerCase(app, c));
      }
    }),
  );
  return out;
}

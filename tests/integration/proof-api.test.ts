/**
 * Proofs through the HTTP API, on the real worker pool: the proof summary of
 * every `unsolvable` answer, `"proof": true` (certificate inline, or over the
 * stated cap), `POST /v1/proofs` (the file), budget cuts (never a proof), and
 * the OpenAPI document. Every certificate that comes back is passed through
 * the independent checker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEngineModule } from '../../client-sdk/core/engine/index.js';
import { checkCertificate } from '../../client-sdk/core/proof/check.js';
import { SolveResponseSchema, type SolveResponse } from '../../client-sdk/api/schemas.js';
import { createApp } from '../../server/app.js';
import { createPool, type SolverPool } from '../../server/pool.js';
import { post } from '../helpers/http.js';

let pool: SolverPool;
let app: ReturnType<typeof createApp>;
let tinyCaps: ReturnType<typeof createApp>;

beforeAll(async () => {
  pool = createPool({ module: await loadEngineModule(), threads: 1 });
  app = createApp({ solve: pool.solve, webRoot: null });
  tinyCaps = createApp({ solve: pool.solve, webRoot: null, config: { proofs: { inlineMaxBytes: 1000, maxPositions: 300 } } });
});
afterAll(async () => {
  await pool.close();
});

async function solve(target: ReturnType<typeof createApp>, body: unknown): Promise<SolveResponse> {
  const res = await post(target, body);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return SolveResponseSchema.parse(JSON.parse(text));
}

const MS_11982 = { game: 'freecell', deal: 11982, numbering: 'ms' };
const SEAHAVEN_107 = { game: 'seahaven_towers', deal: 107, numbering: 'pysolfc' }; // unsolvable, 256 positions

describe('the proof summary of every unsolvable answer', () => {
  it('MS FreeCell 11982: positions examined, the reductions with their meaning, the fingerprint; no certificate unless asked', async () => {
    const body = await solve(app, MS_11982);
    expect(body.verdict).toBe('unsolvable');
    expect(body.proof).toMatchObject({
      positions: 61_643,
      fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/),
      fingerprintAlgorithm: 'sum-mod-2^64-of-fnv1a64',
    });
    expect(body.proof!.positions).toBe(body.stats.statesStored);
    expect(body.proof!.reductions.map((r) => [r.name, r.rule ?? null])).toEqual([
      ['safe_auto_moves', 'alternate_color_horne'],
      ['column_order', null],
      ['free_cell_order', null],
    ]);
    for (const r of body.proof!.reductions) expect(r.meaning.length).toBeGreaterThan(30);
    expect(body.proof!.certificate).toBeUndefined();
  });

  it('a solved answer and a budget cut carry no proof, even with "proof": true', async () => {
    const solved = await solve(app, { game: 'freecell', deal: 1, proof: true });
    expect(solved.verdict).toBe('solved');
    expect(solved.proof).toBeUndefined();
    const cut = await solve(app, { ...MS_11982, limits: { maxStates: 1000 }, proof: true });
    expect(cut).toMatchObject({ verdict: 'unknown', reason: 'max_states' });
    expect(cut.proof).toBeUndefined();
    const late = await solve(app, { ...MS_11982, limits: { timeoutMs: 1 }, proof: true });
    expect(late.verdict).toBe('unknown');
    expect(late.proof).toBeUndefined();
  });
});

describe('"proof": true in POST /v1/solve', () => {
  it('puts the certificate inline (base64 gzip) and it passes the checker, with the answer\'s board and fingerprint', async () => {
    const body = await solve(app, { ...SEAHAVEN_107, proof: true });
    expect(body.verdict).toBe('unsolvable');
    const cert = body.proof!.certificate!;
    expect(cert).toMatchObject({ included: true, format: 'solitaire-unsolvability-certificate', version: 1, mediaType: 'application/gzip', encoding: 'base64' });
    const bytes = Buffer.from(cert.data!, 'base64');
    expect(bytes.length).toBe(cert.bytes);
    const result = checkCertificate(bytes);
    expect(result.ok, JSON.stringify({ ...result, header: undefined })).toBe(true);
    if (!result.ok) return;
    expect(result.positions).toBe(body.proof!.positions);
    expect(result.header).toMatchObject({ game: 'seahaven_towers', deal: { number: '107', numbering: 'pysolfc' }, start: body.board, fingerprint: body.proof!.fingerprint, rules: body.rules });
  });

  it('over the inline size cap: says so, with the size, the cap and where to download it', async () => {
    const body = await solve(tinyCaps, { ...SEAHAVEN_107, proof: true });
    expect(body.proof!.certificate).toMatchObject({ included: false, reason: 'over_size_cap', maxBytes: 1000, download: 'POST /v1/proofs' });
    expect(body.proof!.certificate!.bytes).toBeGreaterThan(1000);
    expect(body.proof!.certificate!.data).toBeUndefined();
  });

  it('over the position cap: says so, with the positions and the cap', async () => {
    const body = await solve(tinyCaps, { game: 'seahaven_towers', deal: 21, numbering: 'pysolfc', proof: true }); // 609 positions
    expect(body.proof!.certificate).toMatchObject({ included: false, reason: 'over_position_cap', positions: body.proof!.positions, maxPositions: 300 });
  });
});

describe('POST /v1/proofs', () => {
  it('answers the certificate file of an unsolvable deal; it passes the checker', async () => {
    const res = await post(app, { game: 'bakers_game', deal: 22, numbering: 'pysolfc' }, { path: '/v1/proofs' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="bakers_game-22.proof.gz"');
    const bytes = new Uint8Array(await res.arrayBuffer());
    const result = checkCertificate(bytes);
    expect(result.ok, JSON.stringify({ ...result, header: undefined })).toBe(true);
    if (!result.ok) return;
    expect(res.headers.get('x-proof-positions')).toBe(String(result.positions));
    expect(res.headers.get('x-proof-fingerprint')).toBe(result.header.fingerprint);
  });

  it('the download ignores the inline cap, not the position cap', async () => {
    const small = await post(tinyCaps, SEAHAVEN_107, { path: '/v1/proofs' });
    expect(small.headers.get('content-type')).toBe('application/gzip');
    expect(checkCertificate(new Uint8Array(await small.arrayBuffer())).ok).toBe(true);
    const big = await post(tinyCaps, { game: 'seahaven_towers', deal: 21, numbering: 'pysolfc' }, { path: '/v1/proofs' });
    expect(big.headers.get('content-type')).toMatch(/^application\/json/);
    const body = SolveResponseSchema.parse(await big.json());
    expect(body.proof!.certificate).toMatchObject({ included: false, reason: 'over_position_cap' });
  });

  it('any other verdict answers the JSON of /v1/solve, without a certificate', async () => {
    const res = await post(app, { game: 'freecell', deal: 1 }, { path: '/v1/proofs' });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = SolveResponseSchema.parse(await res.json());
    expect(body.verdict).toBe('solved');
    expect(body.proof).toBeUndefined();
    const cut = SolveResponseSchema.parse(await (await post(app, { ...MS_11982, limits: { maxStates: 500 } }, { path: '/v1/proofs' })).json());
    expect(cut).toMatchObject({ verdict: 'unknown', reason: 'max_states' });
    expect(cut.proof).toBeUndefined();
  });

  it('bad input gets the same 4xx as /v1/solve', async () => {
    const res = await post(app, { game: 'nope', deal: 1 }, { path: '/v1/proofs' });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unknown_game');
  });

  it('is in the OpenAPI document, with the proof schemas', async () => {
    const doc = (await (await app.request('/openapi.json')).json()) as {
      paths: Record<string, { post?: { responses: Record<string, { content: Record<string, unknown> }> } }>;
      components: { schemas: Record<string, unknown> };
    };
    expect(Object.keys(doc.paths['/v1/proofs'].post!.responses['200'].content).sort()).toEqual(['application/gzip', 'application/json']);
    expect(doc.components.schemas).toHaveProperty('Proof');
    expect(doc.components.schemas).toHaveProperty('Reduction');
    expect(doc.components.schemas).toHaveProperty('CertificateInfo');
  });
});

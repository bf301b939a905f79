/**
 * The batch API as the end-to-end tests call it over HTTP: create a batch,
 * read its status, wait for a condition, read its results. Each call checks
 * the status code and parses the body with the SDK's own schemas.
 */
import { expect } from 'vitest';
import { BatchResultSchema, BatchStatusSchema, type BatchResult, type BatchStatus } from '../../client-sdk/api/batch-schemas.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { checkSolution } from '../../client-sdk/core/verify.js';
import type { ServerProcess } from './server-process.js';

/** POST /v1/batches; expects 202 with a `Location` header naming the batch. */
export async function createBatch(s: ServerProcess, body: unknown): Promise<BatchStatus> {
  const res = await fetch(`${s.url}/v1/batches`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  expect(res.status, text).toBe(202);
  const status = BatchStatusSchema.parse(JSON.parse(text));
  expect(res.headers.get('location')).toBe(`/v1/batches/${status.id}`);
  return status;
}

/** GET /v1/batches/:id; expects 200. */
export async function batchStatus(s: ServerProcess, id: string): Promise<BatchStatus> {
  const res = await fetch(`${s.url}/v1/batches/${id}`);
  expect(res.status).toBe(200);
  return BatchStatusSchema.parse(await res.json());
}

/**
 * Polls the batch's status every `pollMs` (default 50 ms) until `until`
 * holds and returns that status.
 * @throws Error with the last status when `timeoutMs` (ms) passes first.
 */
export async function waitForBatch(s: ServerProcess, id: string, until: (st: BatchStatus) => boolean, timeoutMs: number, pollMs = 50): Promise<BatchStatus> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const st = await batchStatus(s, id);
    if (until(st)) return st;
    if (Date.now() > deadline) throw new Error(`timed out; last status ${JSON.stringify(st)}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** Reads the whole NDJSON results stream (it ends when the batch does); `query` e.g. `?after=10`. */
export async function batchResults(s: ServerProcess, id: string, query = ''): Promise<BatchResult[]> {
  const res = await fetch(`${s.url}/v1/batches/${id}/results${query}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
  return (await res.text())
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => BatchResultSchema.parse(JSON.parse(line)));
}

/**
 * Checks one result of a batch of Microsoft FreeCell deals fetched with
 * `?moves=true`: it names the deal listed at its index, MS 11982 is
 * unsolvable and every other deal solved with a solution the independent
 * checker accepts. Returns true for a solved deal.
 */
export function expectCheckedMsResult(r: BatchResult, deals: number[]): boolean {
  expect(r.deal).toBe(deals[r.index]);
  if (r.deal === 11982) {
    expect(r.verdict).toBe('unsolvable');
    return false;
  }
  expect(r.verdict).toBe('solved');
  const deal = resolveDeal({ game: 'freecell', deal: r.deal!, numbering: 'ms' });
  const check = checkSolution(deal.rules, deal.layout, r.moves!);
  expect(check.ok, `deal ${r.deal}: ${JSON.stringify(check)}`).toBe(true);
  return true;
}

/**
 * Validation messages name the problem: the entry of a
 * list at fault, every fault of a request (not "and 1 more"), a required
 * field as required, a deal number too long as `deal_out_of_range`, a query
 * parameter in words rather than a regular expression.
 */
import { describe, expect, it } from 'vitest';
import { DealsQuerySchema } from '../../client-sdk/api/apps-schemas.js';
import { BatchRequestSchema, BatchResultsQuerySchema } from '../../client-sdk/api/batch-schemas.js';
import { SolveRequestSchema, validationError } from '../../client-sdk/api/schemas.js';
import type { SolverError } from '../../client-sdk/core/errors.js';

function fault(schema: { safeParse: (v: unknown) => { success: boolean; error?: unknown } }, value: unknown): SolverError {
  const r = schema.safeParse(value);
  expect(r.success).toBe(false);
  return validationError(r.error as never);
}

describe('validation messages', () => {
  it('a 41-digit deal string is deal_out_of_range, saying so', () => {
    const e = fault(SolveRequestSchema, { game: 'freecell', deal: '1'.repeat(41) });
    expect(e.code).toBe('deal_out_of_range');
    expect(e.message).toBe('deal number of 41 digits is out of range: no numbering has deals beyond 40 digits');
    expect(e.location).toEqual({ path: 'deal' });
    // Not digits at all stays a malformed request.
    expect(fault(SolveRequestSchema, { game: 'freecell', deal: 'abc' })).toMatchObject({ code: 'invalid_request', message: 'deal must be a string of decimal digits' });
  });

  it('names the entry of a deal list at fault', () => {
    const e = fault(BatchRequestSchema, { game: 'freecell', deals: [1, '2', 3.5] });
    expect(e.message).toBe('deals.2: deal must be an integer or a string of decimal digits');
    expect(e.location).toEqual({ path: 'deals.2' });
    expect(fault(BatchRequestSchema, { game: 'freecell', deals: { from: 1 } }).location).toEqual({ path: 'deals.to' });
    // A value of no accepted shape still gets the list of shapes.
    expect(fault(BatchRequestSchema, { game: 'freecell', deals: 5 }).message).toMatch(/^deals: expected a range "1\.\.1000"/);
  });

  it('a missing game is "required", a wrong type says what a game is', () => {
    expect(fault(SolveRequestSchema, { deal: 1 }).message).toBe('game: required: a game id from GET /v1/games, e.g. "freecell"');
    expect(fault(SolveRequestSchema, { game: 5, deal: 1 }).message).toBe('game: must be a game id (a string) from GET /v1/games, e.g. "freecell"');
  });

  it('lists every fault of a layout, each with its path', () => {
    const e = fault(SolveRequestSchema, { game: 'freecell', layout: { columns: 'x', freeCells: 3, foundations: 'y' } });
    expect(e.code).toBe('invalid_layout');
    expect(e.location).toEqual({ path: 'layout.columns' });
    const parts = e.message.split('; ');
    expect(parts.map((p) => p.split(':')[0])).toEqual(['layout.columns', 'layout.freeCells', 'layout.foundations']);
    expect(e.message).not.toMatch(/more problem/);
  });

  it('counts the faults beyond ten', () => {
    const columns = Array.from({ length: 8 }, () => [5, 5]); // 16 cards that are not card strings
    const e = fault(SolveRequestSchema, { game: 'freecell', layout: { columns, freeCells: 'z', foundations: 'y' } });
    expect(e.message.split('; ')).toHaveLength(10);
    expect(e.message).toMatch(/\(and 8 more problems\)$/);
  });

  it('after=abc says what after is, not a regular expression', () => {
    const e = fault(BatchResultsQuerySchema, { after: 'abc' });
    expect(e.message).toBe('after: must be a whole number of at most 15 digits: the seq of the last result received (0 = from the start)');
    expect(e.message).not.toMatch(/pattern|\/\^/);
  });

  it('GET /v1/deals?count=abc names count once; so does every query parameter', () => {
    expect(fault(DealsQuerySchema, { game: 'freecell', count: 'abc' })).toMatchObject({
      code: 'invalid_request',
      message: 'count must be an integer from 1 to 1000',
      location: { path: 'count' },
    });
    for (const name of ['count', 'seed', 'from', 'to', 'maxStates', 'timeoutMs']) {
      const e = fault(DealsQuerySchema, { game: 'freecell', [name]: 'abc' });
      expect(e.message).toMatch(new RegExp(`^${name} must `));
      expect(e.message).not.toContain(`${name}: ${name}`);
    }
    // a message that does not start with the field's name keeps the "path: " prefix
    expect(fault(DealsQuerySchema, { game: 'freecell', solutions: 'yes' }).message).toMatch(/^solutions: /);
  });
});

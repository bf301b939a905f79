/**
 * Validation messages name the problem: the entry of a
 * list at fault, every fault of a request (not "and 1 more"), a required
 * field as required, a deal number too long as `deal_out_of_range`, a query
 * parameter in words rather than a regular expression; and zod's own issues
 * (a wrong type, a bound, an enum, ...) in the house wording of docs/api.md
 * rather than zod's English defaults, set per parse so that zod's global
 * messages (an app's that embeds the SDK) stay zod's.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DealsQuerySchema, DifficultyRequestSchema, ReviewRequestSchema } from '../../client-sdk/api/apps-schemas.js';
import { BatchRequestSchema, BatchResultsQuerySchema } from '../../client-sdk/api/batch-schemas.js';
import { parseRequest, SolveRequestSchema } from '../../client-sdk/api/schemas.js';
import { SolverError } from '../../client-sdk/core/errors.js';
import { issueMessage } from '../../client-sdk/core/issue-messages.js';

/** The error the service answers for `value` (parsed as the service parses it: `parseRequest`). */
function fault(schema: z.ZodType, value: unknown): SolverError {
  try {
    parseRequest(schema, value);
  } catch (err) {
    expect(err).toBeInstanceOf(SolverError);
    return err as SolverError;
  }
  throw new Error(`accepted: ${JSON.stringify(value)}`);
}

/** The message of the one issue `value` raises against `schema`, parsed with the house map. */
function worded(schema: z.ZodType, value: unknown): string {
  const r = schema.safeParse(value, { error: issueMessage });
  expect(r.success, JSON.stringify(value)).toBe(false);
  expect(r.error!.issues, JSON.stringify(r.error!.issues)).toHaveLength(1);
  return r.error!.issues[0].message;
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
    expect(parts).toEqual(['layout.columns: expected a list, got a string', 'layout.freeCells: expected a list, got a number', 'layout.foundations: expected an object, got a string']);
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

describe("zod's own issues, in the house wording", () => {
  it("the tryout's examples: a string for a number, a bound, an empty list, an enum", () => {
    expect(fault(SolveRequestSchema, { game: 'freecell', deal: 1, limits: { timeoutMs: '100' } })).toMatchObject({
      code: 'bad_limits',
      message: 'limits.timeoutMs: expected a number, got a string',
      location: { path: 'limits.timeoutMs' },
    });
    expect(fault(SolveRequestSchema, { game: 'freecell', layout: { columns: [['AH']], foundations: { H: 14 } } })).toMatchObject({
      code: 'invalid_layout',
      message: 'layout.foundations.H: must be at most 13',
    });
    expect(fault(BatchRequestSchema, { game: 'freecell', deals: [] }).message).toBe('deals: must have at least 1 entry');
    expect(fault(SolveRequestSchema, { game: 'freecell', deal: 1, optimize: 'fast' }).message).toBe('optimize: must be one of "none", "length"');
    expect(fault(SolveRequestSchema, [1, 2]).message).toBe('expected an object, got a list');
  });

  it.each<[string, z.ZodType, unknown, string]>([
    ['a string for a number', z.number(), '100', 'expected a number, got a string'],
    ['a number for a string', z.string(), 5, 'expected a string, got a number'],
    ['a fraction for an integer', z.number().int(), 1.5, 'expected an integer, got 1.5'],
    ['a string for a boolean', z.boolean(), 'yes', 'expected true or false, got a string'],
    ['true for a string', z.string(), true, 'expected a string, got true'],
    ['an object for a list', z.array(z.string()), {}, 'expected a list, got an object'],
    ['null for an object', z.object({}), null, 'expected an object, got null'],
    ['a missing field', z.object({ n: z.number() }), {}, 'required: a number'],
  ])('invalid_type: %s', (_, schema, value, message) => {
    expect(worded(schema, value)).toBe(message);
  });

  it.each<[string, z.ZodType, unknown, string]>([
    ['a value above its most', z.number().max(13), 14, 'must be at most 13'],
    ['a value below its least', z.number().min(0), -1, 'must be at least 0'],
    ['a value not below a bound', z.number().lt(10), 10, 'must be less than 10'],
    ['a value not above a bound', z.number().positive(), 0, 'must be greater than 0'],
    ['a value written as typed, without separators', z.number().max(2_147_483_647), 2_147_483_648, 'must be at most 2147483647'],
    ['a long string', z.string().max(200), 'n'.repeat(201), 'must have at most 200 characters'],
    ['an empty string', z.string().min(1), '', 'must have at least 1 character'],
    ['an empty list', z.array(z.number()).min(1), [], 'must have at least 1 entry'],
    ['a long list, the count with separators', z.array(z.number()).max(2000), Array<number>(2001).fill(1), 'must have at most 2,000 entries'],
    ['a list of another length', z.array(z.number()).length(3), [1], 'must have exactly 3 entries'],
  ])('too_big / too_small: %s', (_, schema, value, message) => {
    expect(worded(schema, value)).toBe(message);
  });

  it.each<[string, z.ZodType, unknown, string]>([
    ['invalid_value: an enum', z.enum(['none', 'length']), 'fast', 'must be one of "none", "length"'],
    ['invalid_value: a literal', z.literal('base64'), 'hex', 'must be "base64"'],
    ['invalid_value: a number literal', z.literal(2), 3, 'must be 2'],
    ['invalid_format: a pattern', z.string().regex(/^\d+$/), 'x', 'must match the pattern /^\\d+$/'],
    ['invalid_format: a prefix', z.string().startsWith('v'), 'x', 'must start with "v"'],
    ['invalid_format: a suffix', z.string().endsWith('.gz'), 'x', 'must end with ".gz"'],
    ['invalid_format: a part', z.string().includes('@'), 'x', 'must contain "@"'],
    ['invalid_format: a named format', z.uuid(), 'x', 'must be a valid UUID'],
    ['not_multiple_of', z.number().multipleOf(5), 7, 'must be a multiple of 5'],
    ['unrecognized_keys', z.strictObject({ a: z.number() }), { a: 1, b: 2, c: 3 }, 'unknown fields "b", "c"'],
    ['invalid_union: no branch takes the type', z.union([z.string(), z.array(z.string())]), 5, 'expected a string or a list, got a number'],
    ['invalid_union: missing', z.object({ u: z.union([z.string(), z.array(z.string())]) }), {}, 'required: a string or a list'],
    ['invalid_union: a discriminator', z.discriminatedUnion('kind', [z.object({ kind: z.literal('a') }), z.object({ kind: z.literal('b') })]), { kind: 'c' }, 'must be one of "a", "b"'],
    ['invalid_union: branches that take the type', z.union([z.string().min(5), z.string().max(1)]), 'abc', 'matches none of the forms this field takes'],
    ['invalid_union: more than one branch (xor)', z.xor([z.string(), z.string().min(1)]), 'ab', 'matches more than one of the forms this field takes'],
    ['invalid_key', z.record(z.string().regex(/^[a-z]+$/), z.number()), { A1: 1 }, 'is not a valid key'],
    ['custom, without a message', z.number().refine((n) => n > 0), -1, 'is not valid'],
  ])('%s', (_, schema, value, message) => {
    expect(worded(schema, value)).toBe(message);
  });

  it("keeps the messages the schemas word themselves (the schema's, its check's, its refinement's)", () => {
    expect(worded(z.string().max(3, { error: 'a card is at most 3 characters' }), 'four')).toBe('a card is at most 3 characters');
    expect(worded(z.string({ error: 'must be a name' }), 5)).toBe('must be a name');
    expect(worded(z.number().refine((n) => n > 0, { error: 'must be positive' }), -1)).toBe('must be positive');
    expect(fault(SolveRequestSchema, { deal: 1 }).message).toBe('game: required: a game id from GET /v1/games, e.g. "freecell"');
    expect(fault(ReviewRequestSchema, { game: 'freecell', deal: 1, moves: 5 }).message).toBe(
      'moves: must be standard notation as one string ("3a 32 a3") or a list of tokens or JSON moves',
    );
    expect(fault(DealsQuerySchema, { game: 'freecell', count: '1e3' }).message).toBe('count must be an integer from 1 to 1000');
  });

  it("leaves zod's global messages alone: an app that embeds the SDK keeps zod's own", () => {
    fault(SolveRequestSchema, { game: 'freecell', deal: 1, limits: { timeoutMs: '100' } });
    const own = z.number().safeParse('100');
    expect(own.error?.issues[0].message).toBe('Invalid input: expected number, received string');
    expect(z.config().customError).toBeUndefined();
  });

  it("no request field, given a value of a wrong type or out of bounds, answers in zod's defaults", () => {
    const wrong: unknown[] = [null, true, 5, 1.5, -1, 2 ** 60, 'x', '', 'x'.repeat(300), [], [null], [1.5], {}, { a: 1 }];
    const bodies: [z.ZodType, Record<string, unknown>][] = [];
    const nested = { rules: ['columns', 'freeCells', 'emptyCell', 'build', 'emptyColumn', 'sequenceMove', 'foundationBase', 'wrap'], limits: ['maxStates', 'timeoutMs', 'optimizeMs'], layout: ['columns', 'freeCells', 'foundations'] };
    const fields = (schema: z.ZodType) => Object.keys((schema as unknown as { shape: Record<string, unknown> }).shape);
    for (const [schema, base] of [
      [SolveRequestSchema, { game: 'freecell', deal: 1 }],
      [ReviewRequestSchema, { game: 'freecell', deal: 1, moves: '1a' }],
      [DifficultyRequestSchema, { game: 'freecell', deal: 1 }],
      [BatchRequestSchema, { game: 'freecell', deals: '1..2' }],
      [DealsQuerySchema, { game: 'freecell' }],
      [BatchResultsQuerySchema, {}],
    ] as [z.ZodType, Record<string, unknown>][]) {
      for (const field of fields(schema)) {
        for (const value of wrong) {
          bodies.push([schema, { ...base, [field]: value }]);
          if (field in nested) for (const key of nested[field as keyof typeof nested]) bodies.push([schema, { ...base, [field]: { [key]: value } }]);
        }
      }
    }
    let refused = 0;
    for (const [schema, body] of bodies) {
      let message: string;
      try {
        parseRequest(schema, body);
        continue;
      } catch (err) {
        message = (err as SolverError).message;
      }
      refused++;
      expect(message, JSON.stringify(body)).not.toMatch(/Invalid (input|option|string|number|key|value|element)|Too (big|small)|Unrecognized|, received |[<>]=?\d/);
      // "path: message", or a message that starts with the field's name: lowercase either way
      expect(message.replace(/^[\w.]+: /, ''), JSON.stringify(body)).toMatch(/^[a-z"]/);
    }
    expect(refused).toBeGreaterThan(1000);
  });
});

describe('deal numbers below 1, and the review move cap', () => {
  it('a negative or zero deal number, in any form, is deal_out_of_range: deal numbers start at 1', () => {
    for (const [deal, shown] of [[-1e40, '-1e+40'], [-5, '-5'], [0, '0'], [-0.5, '-0.5'], ['-5', '-5'], ['0', '0']] as const) {
      expect(fault(SolveRequestSchema, { game: 'freecell', deal }), String(deal)).toMatchObject({
        code: 'deal_out_of_range',
        message: `deal number ${shown} is out of range: deal numbers start at 1`,
        location: { path: 'deal' },
      });
    }
    // beyond every numbering's last deal stays that message
    expect(fault(SolveRequestSchema, { game: 'freecell', deal: 1e40 }).message).toBe('deal number 1e+40 is out of range: no numbering has deals beyond 99999999999999999999');
  });

  it('a batch range with an end below 1 is deal_out_of_range, not a malformed range', () => {
    for (const [deals, end] of [['-5..5', '-5'], ['1..-5', '-5'], ['0..10', '0'], ['-3-7', '-3'], [' - 2 .. 9', '-2']] as const) {
      expect(fault(BatchRequestSchema, { game: 'freecell', deals }), deals).toMatchObject({
        code: 'deal_out_of_range',
        message: `deals: deal number ${end} is out of range: deal numbers start at 1`,
        location: { path: 'deals' },
      });
    }
    // a range, and a string that is no range, stay as they were
    expect(() => parseRequest(BatchRequestSchema, { game: 'freecell', deals: '1-5' })).not.toThrow();
    expect(fault(BatchRequestSchema, { game: 'freecell', deals: 'one..ten' })).toMatchObject({ code: 'invalid_request', message: 'deals: a deal range is written "first..last", e.g. "1..1000"' });
  });

  it('the review move cap, as a list: the cap and the count, both with thousands separators', () => {
    for (const n of [2001, 100_000]) {
      expect(fault(ReviewRequestSchema, { game: 'freecell', deal: 1, moves: Array<string>(n).fill('1a') })).toMatchObject({
        code: 'invalid_request',
        message: `moves: at most 2,000 moves in one review, got ${n.toLocaleString('en')}`,
        location: { path: 'moves' },
      });
    }
  });
});

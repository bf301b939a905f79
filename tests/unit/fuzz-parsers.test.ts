/**
 * Property-based fuzzing (fast-check) of the input parsers: whatever they are
 * given, random or a real position mutated, they answer a layout or throw a
 * `SolverError` with a known code, never anything else, and never hang.
 *
 * - `parseBoard`: random text, random card-like lines, and real boards of
 *   every dealable game mutated by edits (delete, insert, swap lines,
 *   duplicate a line, replace a token, CR/BOM/tab noise, a header);
 * - `layoutFromJson`: random JSON values and real layouts mutated
 *   (cards moved, removed, duplicated, replaced by any JSON value; cells and
 *   foundations perturbed);
 * - `generateDeal`: any game id, numbering and number (integers, big and
 *   negative ones, fractions, NaN, digit strings of any length, junk).
 *
 * Runs: 17,000 cases here (plus 3,000 in fuzz-api.test.ts), in a few seconds. `FUZZ_SEED` pins
 * the seed to replay a failure (fast-check prints it); `FUZZ_SCALE` multiplies
 * the cases.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatBoard, MAX_BOARD_TEXT_LENGTH, parseBoard } from '../../client-sdk/core/board.js';
import { dealableGames, generateDeal, supportedNumberings } from '../../client-sdk/core/deals/index.js';
import { ERROR_STATUS, SolverError } from '../../client-sdk/core/errors.js';
import { decodeUtf8Strict, firstInvalidUtf8Offset } from '../../client-sdk/core/utf8.js';
import { layoutFromJson, layoutToJson, type LayoutJson } from '../../client-sdk/core/layout.js';
import { findPreset, type Layout, type Numbering, type Rules } from '../../client-sdk/core/rules.js';

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
/** `FUZZ_SCALE=10` runs ten times the cases (a longer local hunt; CI runs the counts as written). */
const SCALE = Math.max(1, Number(process.env.FUZZ_SCALE ?? 1) || 1);
const params = (numRuns: number) => ({ numRuns: numRuns * SCALE, ...(SEED !== undefined ? { seed: SEED } : {}) });

/** Calls `fn`; passes when it returns or throws a SolverError with a 4xx code; rethrows anything else. */
function onlySolverErrors(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof SolverError)) throw err;
    expect(Object.keys(ERROR_STATUS)).toContain(err.code);
    expect(err.status, `${err.code}: ${err.message}`).toBeLessThan(500);
    expect(typeof err.message).toBe('string');
  }
}

interface Sample {
  game: string;
  rules: Rules;
  layout: Layout;
  board: string;
}

/** Real positions: a few deals of every dealable game, with their rules. */
const SAMPLES: Sample[] = dealableGames().flatMap((game) => {
  const preset = findPreset(game);
  if (!preset) return [];
  const numbering = supportedNumberings(game)[0];
  return [1, 617, 11982, 31999].map((n) => {
    const dealt = generateDeal(game, numbering, n);
    const rules: Rules = { ...preset.rules, ...(dealt.foundationBase !== undefined ? { foundationBase: dealt.foundationBase } : {}) };
    return { game, rules, layout: dealt.layout, board: formatBoard(dealt.layout, rules) };
  });
});

const RANKS = ['A', '2', '3', '4', '5', '6', '7', '8', '9', 'T', '10', 'J', 'Q', 'K', 'a', 't', 'j', 'q', 'k', '0', '1', 'X', ''];
const SUITS = ['C', 'D', 'H', 'S', 'c', 'd', 'h', 's', 'X', ''];
const cardish = fc.tuple(fc.constantFrom(...RANKS), fc.constantFrom(...SUITS)).map(([r, s]) => r + s);
const noise = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.constantFrom(':', '-', ' ', '\t', '\r', '\n', '\uFEFF', 'Freecells:', 'FC:', 'Foundations:', 'Founds:', 'H-5', 'S-K', 'C-0', 'D-A', 'H-', '-Q', '#'),
  cardish,
);
const line = fc.array(fc.oneof(cardish, noise), { maxLength: 14 }).map((tokens) => tokens.join(' '));

/** Edits applied in turn to a board text. */
type Edit = (text: string) => string;
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.tuple(fc.nat(), fc.integer({ min: 1, max: 8 })).map(([at, n]): Edit => (t) => t.slice(0, at % (t.length + 1)) + t.slice((at % (t.length + 1)) + n)),
  fc.tuple(fc.nat(), noise).map(([at, s]): Edit => (t) => t.slice(0, at % (t.length + 1)) + s + t.slice(at % (t.length + 1))),
  fc.tuple(fc.nat(), fc.nat()).map(([a, b]): Edit => (t) => {
    const lines = t.split('\n');
    const i = a % lines.length;
    const j = b % lines.length;
    [lines[i], lines[j]] = [lines[j], lines[i]];
    return lines.join('\n');
  }),
  fc.nat().map((a): Edit => (t) => {
    const lines = t.split('\n');
    lines.splice(a % lines.length, 0, lines[a % lines.length]);
    return lines.join('\n');
  }),
  fc.tuple(fc.nat(), cardish).map(([a, card]): Edit => (t) => {
    const tokens = t.split(' ');
    tokens[a % tokens.length] = card;
    return tokens.join(' ');
  }),
  fc.constantFrom<Edit>(
    (t) => t.replaceAll('\n', '\r\n'),
    (t) => `\uFEFF${t}`,
    (t) => t.replaceAll(' ', '\t'),
    (t) => `Freecells: - - -\n${t}`,
    (t) => `Foundations: H-A C-2 D-0 S-K\n${t}`,
    (t) => t.toLowerCase(),
    (t) => t.trim(),
    (t) => t.split('\n').reverse().join('\n'),
    (t) => t + t,
  ),
);

describe('fuzz: parseBoard', () => {
  it('random text and card-like lines: a layout or a SolverError (4,000 cases)', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 400 }),
      fc.array(line, { maxLength: 14 }).map((lines) => lines.join('\n')),
      fc.array(line, { maxLength: 14 }).map((lines) => lines.join('\r\n')),
    );
    fc.assert(
      fc.property(fc.constantFrom(...SAMPLES), text, (sample, t) => onlySolverErrors(() => parseBoard(t, sample.rules))),
      params(4000),
    );
  });

  it('real boards of every game, mutated: a layout or a SolverError (5,000 cases)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SAMPLES), fc.array(edit, { minLength: 1, maxLength: 4 }), (sample, edits) => {
        const text = edits.reduce((t, e) => e(t), sample.board);
        onlySolverErrors(() => {
          const layout = parseBoard(text, sample.rules);
          // What parses is a complete position: every card once.
          const cards = layout.columns.flat().length + layout.freeCells.filter((c) => c !== null).length + layout.foundations.reduce((a, b) => a + b, 0);
          expect(cards).toBe(52);
        });
      }),
      params(5000),
    );
  });

  it('a line break replaced by another separator is refused at its place; CR-only reads as LF (2,000 cases)', () => {
    const SEPARATORS = ['\u2028', '\u2029', '\v', '\f', '\u0085', '\u00a0', '\u3000', '\u200b', '\u0000', '\u001c'];
    fc.assert(
      fc.property(fc.constantFrom(...SAMPLES), fc.nat(), fc.constantFrom(...SEPARATORS), (sample, k, sep) => {
        const breaks = [...sample.board.matchAll(/\n/g)].map((m) => m.index!);
        const at = breaks[k % (breaks.length - 1)]; // not the final newline
        const joined = sample.board.slice(0, at) + sep + sample.board.slice(at + 1);
        const before = sample.board.slice(0, at);
        const line = before.split('\n').length;
        const column = at - before.lastIndexOf('\n');
        let err: unknown;
        try {
          parseBoard(joined, sample.rules);
        } catch (e) {
          err = e;
        }
        expect(err).toBeInstanceOf(SolverError);
        expect((err as SolverError).code).toBe('malformed_board');
        expect((err as SolverError).location).toEqual({ line, column, token: sep });
        // the same board with CR-only (and CRLF) line ends is the same position
        expect(parseBoard(sample.board.replaceAll('\n', '\r'), sample.rules)).toEqual(sample.layout);
        expect(parseBoard(sample.board.replaceAll('\n', '\r\n'), sample.rules)).toEqual(sample.layout);
      }),
      params(2000),
    );
  });

  it('oversized and degenerate texts are refused quickly', () => {
    for (const t of ['', '\n\n\n', ' '.repeat(MAX_BOARD_TEXT_LENGTH + 1), 'AS '.repeat(6000), ':\n'.repeat(5000)]) {
      // CPU time, not wall time: a busy CI machine stalls the clock, not the work
      const t0 = process.cpuUsage();
      expect(() => parseBoard(t, SAMPLES[0].rules)).toThrow(SolverError);
      const cpu = process.cpuUsage(t0);
      expect((cpu.user + cpu.system) / 1000).toBeLessThan(1000);
    }
  });
});

describe('fuzz: strict UTF-8 (client-sdk/core/utf8.ts)', () => {
  const fatal = new TextDecoder('utf-8', { fatal: true });
  const valid = (b: Uint8Array): boolean => {
    try {
      fatal.decode(b);
      return true;
    } catch {
      return false;
    }
  };

  it('the first-bad-byte offset agrees with TextDecoder fatal: -1 iff valid, the prefix before it valid (5,000 cases)', () => {
    // mostly well-formed text with a few random bytes spliced in, and raw random bytes
    const bytes = fc.oneof(
      fc.tuple(fc.string({ unit: 'grapheme', maxLength: 20 }), fc.uint8Array({ maxLength: 3 }), fc.nat()).map(([t, junk, at]) => {
        const enc = new TextEncoder().encode(t);
        const i = at % (enc.length + 1);
        return new Uint8Array([...enc.subarray(0, i), ...junk, ...enc.subarray(i)]);
      }),
      fc.uint8Array({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(bytes, (b) => {
        const offset = firstInvalidUtf8Offset(b);
        expect(offset === -1).toBe(valid(b));
        if (offset >= 0) {
          expect(valid(b.subarray(0, offset))).toBe(true);
          const err = (() => {
            try {
              decodeUtf8Strict(b, 'the input');
            } catch (e) {
              return e as SolverError;
            }
            throw new Error('decodeUtf8Strict took invalid UTF-8');
          })();
          expect(err.code).toBe('invalid_utf8');
          expect(err.status).toBe(400);
          expect(err.location).toEqual({ offset });
        } else {
          expect(decodeUtf8Strict(b, 'the input')).toBe(fatal.decode(b));
        }
      }),
      params(5000),
    );
  });

  it('names the first bad byte of the classic cases', () => {
    const at = (...b: number[]) => firstInvalidUtf8Offset(new Uint8Array(b));
    expect(at(0x41, 0xc3, 0xa9, 0x42)).toBe(-1); // "AéB"
    expect(at(0x41, 0xff)).toBe(1);
    expect(at(0x41, 0xc0, 0xaf)).toBe(1); // overlong "/"
    expect(at(0xed, 0xa0, 0x80)).toBe(0); // a surrogate, U+D800
    expect(at(0xf4, 0x90, 0x80, 0x80)).toBe(0); // above U+10FFFF
    expect(at(0x41, 0x42, 0xe2, 0x82)).toBe(2); // truncated at the end
    expect(at(0x80)).toBe(0); // a lone continuation byte
  });
});

describe('fuzz: layoutFromJson', () => {
  it('random JSON values: a layout or a SolverError (3,000 cases)', () => {
    const cards = fc.oneof(cardish, fc.constant(null), fc.jsonValue({ maxDepth: 1 }));
    const json = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.record(
        {
          columns: fc.oneof(fc.array(fc.array(cards, { maxLength: 14 }), { maxLength: 12 }), fc.jsonValue({ maxDepth: 2 })),
          freeCells: fc.oneof(fc.array(cards, { maxLength: 10 }), fc.jsonValue({ maxDepth: 1 })),
          foundations: fc.oneof(
            fc.record({ C: fc.integer({ min: -2, max: 15 }), D: fc.integer(), H: fc.double(), S: fc.jsonValue({ maxDepth: 0 }) }, { requiredKeys: [] }),
            fc.jsonValue({ maxDepth: 1 }),
          ),
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(fc.constantFrom(...SAMPLES), json, (sample, j) => onlySolverErrors(() => layoutFromJson(j as LayoutJson, sample.rules))),
      params(3000),
    );
  });

  it('real layouts mutated: a layout or a SolverError (3,000 cases)', () => {
    type Mutation = (j: { columns: unknown[][]; freeCells: unknown[]; foundations: Record<string, unknown> }, r: number) => void;
    const mutation: fc.Arbitrary<Mutation> = fc.oneof(
      fc.constantFrom<Mutation>(
        (j, r) => {
          const from = j.columns[r % j.columns.length];
          const card = from.pop();
          j.columns[(r >> 3) % j.columns.length].push(card);
        },
        (j, r) => void j.columns[r % j.columns.length].pop(),
        (j, r) => j.columns[r % j.columns.length].push(j.columns[(r >> 3) % j.columns.length][0]),
        (j) => j.columns.push([]),
        (j) => j.columns.pop(),
        (j, r) => j.freeCells.push(j.columns[r % j.columns.length].pop() ?? null),
        (j, r) => (j.foundations[['C', 'D', 'H', 'S'][r % 4]] = (r % 17) - 2),
        (j) => (j.foundations.X = 1),
        (j) => (j.freeCells = new Array(12).fill(null)),
      ),
      fc.tuple(fc.jsonValue({ maxDepth: 1 }), fc.nat()).map(([value, at]): Mutation => (j) => {
        const column = j.columns[at % j.columns.length];
        if (column.length > 0) column[(at >> 4) % column.length] = value;
      }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...SAMPLES), fc.array(fc.tuple(mutation, fc.nat()), { minLength: 1, maxLength: 4 }), (sample, muts) => {
        const json = structuredClone(layoutToJson(sample.layout)) as unknown as Parameters<Mutation>[0];
        for (const [m, r] of muts) m(json, r);
        onlySolverErrors(() => layoutFromJson(json as unknown as LayoutJson, sample.rules));
      }),
      params(3000),
    );
  });
});

describe('fuzz: generateDeal', () => {
  it('any game, numbering and number: a deal of 52 cards or a SolverError (2,000 cases)', () => {
    const games = dealableGames();
    const number = fc.oneof(
      fc.integer(),
      fc.integer({ min: 1, max: 40_000 }),
      fc.maxSafeInteger(),
      fc.bigInt({ min: -(10n ** 22n), max: 10n ** 22n }),
      fc.double(),
      fc.stringMatching(/^[0-9]{1,45}$/),
      fc.string({ maxLength: 25 }),
      fc.constantFrom('0', '-1', '1e3', ' 7', '0x10', '8589934591', '8589934592', '99999999999999999999', '100000000000000000000', ''),
    );
    fc.assert(
      fc.property(
        fc.oneof(fc.constantFrom(...games), fc.string({ maxLength: 20 })),
        fc.oneof(fc.constantFrom<Numbering>('ms', 'pysolfc'), fc.string({ maxLength: 8 }) as fc.Arbitrary<Numbering>),
        number,
        (game, numbering, n) =>
          onlySolverErrors(() => {
            const dealt = generateDeal(game, numbering, n as string | number | bigint);
            const l = dealt.layout;
            expect(l.columns.flat().length + l.freeCells.filter((c) => c !== null).length + l.foundations.reduce((a, b) => a + b, 0)).toBe(52);
          }),
      ),
      params(2000),
    );
  });
});

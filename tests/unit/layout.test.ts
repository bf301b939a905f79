import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GAME_SHAPE, rulesWith } from '../helpers/positions.js';
import { z } from 'zod';
import { parseBoard } from '../../client-sdk/core/board.js';
import { parseCard } from '../../client-sdk/core/cards.js';
import { SolverError } from '../../client-sdk/core/errors.js';
import { type LayoutJson, LayoutJsonSchema, jsonLocator, layoutFromJson, layoutToJson, validateLayout } from '../../client-sdk/core/layout.js';
import type { Layout } from '../../client-sdk/core/rules.js';
import { REFERENCE_DEALS } from '../helpers/paths.js';

const DEALS_DIR = REFERENCE_DEALS;



const FC8 = rulesWith(8, 4);

const MS1_COLUMNS = [
  'JD KD 2S 4C 3S 6D 6S',
  '2D KC KS 5C TD 8S 9C',
  '9H 9S 9D TS 4S 8D 2H',
  'JC 5S QD QH TH QS 6H',
  '5D AD JS 4H 8H 6C',
  '7H QC AS AC 2C 3D',
  '7C KH AH 4D JH 8C',
  '5H 3H 3C 7S 7D TC',
].map((l) => l.split(' '));

const ms1 = (): LayoutJson => ({ columns: MS1_COLUMNS.map((col) => [...col]) });

function caught(fn: () => unknown): SolverError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(SolverError);
    return err as SolverError;
  }
  throw new Error('expected a SolverError');
}

const c = (t: string): number => parseCard(t)!;

describe('LayoutJsonSchema', () => {
  it('accepts the documented shape', () => {
    const ok = LayoutJsonSchema.safeParse({ columns: [['AS', '10h'], []], freeCells: [null, 'KD'], foundations: { H: 0, C: 13 } });
    expect(ok.success).toBe(true);
  });

  it('rejects bad shapes, out-of-range counts and unknown keys', () => {
    expect(LayoutJsonSchema.safeParse({}).success).toBe(false);
    expect(LayoutJsonSchema.safeParse({ columns: [['AS']], foundations: { H: 14 } }).success).toBe(false);
    expect(LayoutJsonSchema.safeParse({ columns: [['AS']], foundations: { H: 1.5 } }).success).toBe(false);
    expect(LayoutJsonSchema.safeParse({ columns: [['AS']], foundations: { X: 1 } }).success).toBe(false);
    expect(LayoutJsonSchema.safeParse({ columns: [['AS']], freecells: ['AS'] }).success).toBe(false);
    // the model's widest game is Fan (18 columns); what a game allows is the rules' business
    expect(LayoutJsonSchema.safeParse({ columns: Array.from({ length: 18 }, () => []) }).success).toBe(true);
    expect(LayoutJsonSchema.safeParse({ columns: Array.from({ length: 19 }, () => []) }).success).toBe(false);
    expect(LayoutJsonSchema.safeParse({ columns: [['AS']], freeCells: Array(9).fill(null) }).success).toBe(false);
  });

  it('carries descriptions for the OpenAPI document', () => {
    expect(LayoutJsonSchema.description).toMatch(/52 cards/);
    const json = JSON.stringify(z.toJSONSchema(LayoutJsonSchema));
    expect(json).toContain('deepest card');
    expect(json).toContain('foundation base');
  });
});

describe('layoutFromJson / layoutToJson', () => {
  it('round-trips every board of the test vectors through JSON', () => {
    for (const file of readdirSync(DEALS_DIR).filter((f) => f.endsWith('.jsonl'))) {
      for (const line of readFileSync(join(DEALS_DIR, file), 'utf8').split('\n')) {
        if (line.trim() === '') continue;
        const v = JSON.parse(line) as { game: string; board: string };
        const [columns, cells, emptyCell] = GAME_SHAPE[v.game];
        const rules = rulesWith(columns, cells, 1, emptyCell);
        const layout = parseBoard(v.board, rules);
        const json = layoutToJson(layout);
        expect(LayoutJsonSchema.parse(json)).toEqual(json);
        expect(layoutFromJson(JSON.parse(JSON.stringify(json)) as LayoutJson, rules)).toEqual(layout);
      }
    }
  });

  it('builds a layout: lower case, 10, short free-cell list padded, foundations by suit', () => {
    const json = ms1();
    json.columns[0].pop(); // 6S to a cell
    json.columns[4].splice(1, 1); // AD to the foundation
    json.columns[1][4] = '10d';
    json.columns[2][0] = '9h'.toLowerCase();
    const layout = layoutFromJson({ ...json, freeCells: ['-', '6s'], foundations: { D: 1 } }, FC8);
    expect(layout.freeCells).toEqual([null, c('6S'), null, null]);
    expect(layout.foundations).toEqual([0, 1, 0, 0]);
    expect(layout.columns[1][4]).toBe(c('TD'));
    expect(layoutToJson(layout)).toEqual({
      columns: [...MS1_COLUMNS.slice(0, 4).map((col, i) => (i === 0 ? col.slice(0, -1) : col)), ['5D', 'JS', '4H', '8H', '6C'], ...MS1_COLUMNS.slice(5)],
      freeCells: [null, '6S', null, null],
      foundations: { C: 0, D: 1, H: 0, S: 0 },
    });
  });

  it('reports a bad card text with its JSON path', () => {
    const json = ms1();
    json.columns[3][2] = 'QX';
    const err = caught(() => layoutFromJson(json, FC8));
    expect(err.code).toBe('invalid_layout');
    expect(err.location).toEqual({ path: 'layout.columns.3.2', token: 'QX' });
    const err2 = caught(() => layoutFromJson({ ...ms1(), freeCells: [null, 'ZZ'] }, FC8, 'body.layout'));
    expect(err2.location).toEqual({ path: 'body.layout.freeCells.1', token: 'ZZ' });
  });

  it('reports wrong_column_count at layout.columns', () => {
    const json = ms1();
    json.columns.push([]);
    const err = caught(() => layoutFromJson(json, FC8));
    expect(err.code).toBe('wrong_column_count');
    expect(err.location).toEqual({ path: 'layout.columns' });
  });

  it('reports wrong_cell_count at the first cell too many', () => {
    const err = caught(() => layoutFromJson({ ...ms1(), freeCells: [null, null, null, null, null] }, FC8));
    expect(err.code).toBe('wrong_cell_count');
    expect(err.location).toEqual({ path: 'layout.freeCells.4' });
    const castle = caught(() => layoutFromJson({ ...ms1(), freeCells: [null] }, rulesWith(8, 0)));
    expect(castle.code).toBe('wrong_cell_count');
    expect(castle.location).toEqual({ path: 'layout.freeCells.0' });
  });

  it('reports duplicate_card at the second place, naming both paths', () => {
    const json = ms1();
    json.columns[3][2] = 'JD';
    const err = caught(() => layoutFromJson(json, FC8));
    expect(err.code).toBe('duplicate_card');
    expect(err.location).toEqual({ path: 'layout.columns.3.2' });
    expect(err.message).toContain('layout.columns.0.0');
    expect(err.message).toContain('layout.columns.3.2');
  });

  it('counts foundation cards: a card on its foundation and in a column is a duplicate', () => {
    const err = caught(() => layoutFromJson({ ...ms1(), foundations: { H: 1 } }, FC8));
    expect(err.code).toBe('duplicate_card');
    expect(err.location).toEqual({ path: 'layout.columns.6.2' });
    expect(err.message).toContain('AH');
    expect(err.message).toContain('layout.foundations.H');
  });

  it('reports missing_card listing every missing card', () => {
    const json = ms1();
    json.columns[7] = [];
    const err = caught(() => layoutFromJson(json, FC8));
    expect(err.code).toBe('missing_card');
    expect(err.location).toEqual({ path: 'layout' });
    expect(err.message).toBe('6 cards are missing: 3C 3H 5H 7D 7S TC');
  });

  it('rejects unknown foundation keys defensively', () => {
    const err = caught(() => layoutFromJson({ ...ms1(), foundations: { X: 1 } as never }, FC8));
    expect(err.code).toBe('invalid_layout');
    expect(err.location).toEqual({ path: 'layout.foundations.X', token: 'X' });
  });
});

describe('validateLayout', () => {
  const valid = (): Layout => layoutFromJson(ms1(), FC8);

  it('pads the free cells in place', () => {
    const layout = valid();
    layout.freeCells = [];
    validateLayout(layout, FC8);
    expect(layout.freeCells).toEqual([null, null, null, null]);
  });

  it('uses the foundation base with wrapping', () => {
    // Base Q: a clubs foundation of 3 holds QC KC AC.
    const rules = rulesWith(8, 4, 12);
    const layout = valid();
    for (const t of ['QC', 'KC', 'AC']) {
      const card = c(t);
      const col = layout.columns.find((cl) => cl.includes(card))!;
      col.splice(col.indexOf(card), 1);
    }
    layout.foundations = [3, 0, 0, 0];
    expect(() => validateLayout(layout, rules)).not.toThrow();
    // With the Ace as base the same count means AC 2C 3C: 2C is then also in column 6.
    const err = caught(() => validateLayout(layout, FC8));
    expect(err.code).toBe('duplicate_card');
    expect(err.message).toContain('2C');
  });

  it('rejects invalid codes and counts with invalid_layout', () => {
    const a = valid();
    a.columns[2][1] = 99;
    expect(caught(() => validateLayout(a, FC8)).location).toEqual({ path: 'layout.columns.2.1' });
    const b = valid();
    b.foundations[2] = 14;
    const err = caught(() => validateLayout(b, FC8));
    expect(err.code).toBe('invalid_layout');
    expect(err.location).toEqual({ path: 'layout.foundations.H' });
  });

  it('takes a custom locator', () => {
    const layout = valid();
    layout.columns[0][0] = layout.columns[1][0];
    const err = caught(() => validateLayout(layout, FC8, jsonLocator('request.position')));
    expect(err.location).toEqual({ path: 'request.position.columns.1.0' });
  });
});

/**
 * The house wording of zod's validation issues (docs/api.md "Errors": one
 * lowercase clause that says what is wrong and what is expected), for every
 * issue a schema does not word itself.
 *
 * Applied per parse (`schema.safeParse(input, { error: issueMessage })`),
 * never with zod's global `z.config`: the SDK runs inside users' apps, whose
 * own zod messages are theirs. zod asks this map only after the schema's own
 * `error` (the schema's, or its check's or refinement's), so the messages the
 * schemas customise stay as they are; it answers every issue code, so zod's
 * English defaults ("Invalid input: expected number, received string") never
 * reach a message.
 *
 * Numbers: a count of entries or characters is written with thousands
 * separators, as the schemas' own size caps are ("at most 2,000 moves in one
 * review"); a bound on a value is written as it would be typed ("must be at
 * most 65535"), as the range messages of the limits and query parameters are.
 */
import type { z } from 'zod';

/** Most unknown fields one message names; the rest are counted. */
const MAX_LISTED_KEYS = 10;
/** Most characters of a field name quoted in a message or a path. */
const MAX_QUOTED_KEY = 64;

/** `key`, cut to `MAX_QUOTED_KEY` characters (with `…`) when longer. */
export function shortened(key: string): string {
  return key.length > MAX_QUOTED_KEY ? `${key.slice(0, MAX_QUOTED_KEY)}…` : key;
}

/**
 * The message of fields a strict object does not have: the first
 * `MAX_LISTED_KEYS` named (each cut to `MAX_QUOTED_KEY` characters), the rest
 * counted, so that a body of 80,000 made-up fields gets an answer of a few
 * hundred bytes, not one that lists them all.
 */
export function unknownKeysMessage(keys: readonly string[]): string {
  const named = keys.slice(0, MAX_LISTED_KEYS).map((k) => JSON.stringify(shortened(k)));
  const rest = keys.length - named.length;
  return `unknown field${keys.length > 1 ? 's' : ''} ${named.join(', ')}${rest > 0 ? ` (and ${rest} more)` : ''}`;
}

/** What a value of each type zod expects is called in a message (`expected a list`); others are `a <type>`. */
const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  bigint: 'a bigint',
  boolean: 'true or false',
  array: 'a list',
  tuple: 'a list',
  object: 'an object',
  record: 'an object',
  null: 'null',
  undefined: 'nothing',
  void: 'nothing',
  never: 'nothing',
  nonoptional: 'a value',
  date: 'a date',
  nan: 'NaN',
};

/** How an expected type is written: `a string`, `an integer`, `true or false`. */
function expectedName(expected: string): string {
  return EXPECTED[expected] ?? (/^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`);
}

/**
 * What a received value is called in a message: its type (`a string`, `a
 * list`, `an object`), or the value itself where that says more (`null`,
 * `true`, a number where an integer was expected: `got 3.5`).
 */
function receivedName(input: unknown, expected?: string): string {
  if (input === null) return 'null';
  if (typeof input === 'boolean') return String(input);
  if (typeof input === 'number') return expected === 'int' || !Number.isFinite(input) ? String(input) : 'a number';
  if (typeof input === 'string') return 'a string';
  if (typeof input === 'bigint') return 'a bigint';
  if (Array.isArray(input)) return 'a list';
  if (typeof input === 'object') return 'an object';
  return typeof input === 'undefined' ? 'nothing' : `a ${typeof input}`;
}

/** `a`, `a or b`, `a, b or c`. */
function either(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

/** A value of an enum or literal as a message quotes it: strings in JSON quotes, the rest as written. */
function quoted(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** `1 entry`, `2,000 entries`: a count with its unit, thousands separated. */
function counted(n: number | bigint, one: string, many: string): string {
  return `${n.toLocaleString('en')} ${n === 1 || n === 1n ? one : many}`;
}

/** The unit a size limit counts for a zod origin (`string`: characters; `array`: entries); null for a value's bound. */
function unitOf(origin: string): [string, string] | null {
  switch (origin) {
    case 'string':
      return ['character', 'characters'];
    case 'array':
    case 'set':
    case 'map':
      return ['entry', 'entries'];
    case 'file':
      return ['byte', 'bytes'];
    default:
      return null;
  }
}

/** A size or value bound: `must have at most 8 characters`, `must be at least 1`, `must be less than 10`. */
function boundMessage(side: 'most' | 'least', bound: number | bigint, origin: string, inclusive: boolean | undefined, exact: boolean | undefined): string {
  const unit = unitOf(origin);
  if (unit) {
    const size = counted(bound, unit[0], unit[1]);
    if (exact) return `must have exactly ${size}`;
    if (inclusive === false) return side === 'most' ? `must have fewer than ${size}` : `must have more than ${size}`;
    return `must have at ${side} ${size}`;
  }
  const value = String(bound);
  if (exact) return `must be exactly ${value}`;
  if (inclusive === false) return side === 'most' ? `must be less than ${value}` : `must be greater than ${value}`;
  return `must be at ${side} ${value}`;
}

/** How a string format zod checks is named (`must be a valid UUID`); others by zod's name of the format. */
const FORMATS: Record<string, string> = {
  email: 'email address',
  url: 'URL',
  uuid: 'UUID',
  guid: 'GUID',
  datetime: 'ISO 8601 date and time',
  date: 'ISO 8601 date',
  time: 'ISO 8601 time',
  duration: 'ISO 8601 duration',
  ipv4: 'IPv4 address',
  ipv6: 'IPv6 address',
  base64: 'base64 string',
  base64url: 'base64url string',
};

/** The branches' expected types of a union every branch of which refused the input's type at its root; null when one took the type. */
function unionTypes(errors: readonly (readonly z.core.$ZodIssue[])[]): string[] | null {
  const names: string[] = [];
  for (const branch of errors) {
    const root = branch.find((i) => i.code === 'invalid_type' && i.path.length === 0) as z.core.$ZodIssueInvalidType | undefined;
    if (!root) return null;
    const name = expectedName(root.expected);
    if (!names.includes(name)) names.push(name);
  }
  return names.length > 0 ? names : null;
}

/**
 * The house message of one zod issue (a per-parse `error` map: pass it as
 * `schema.safeParse(input, { error: issueMessage })`). One lowercase clause
 * naming what is wrong and what is expected, without the field's path (the
 * caller puts the path in front):
 *
 * - `invalid_type`: `expected a number, got a string`; a missing field
 *   `required: a list`;
 * - `too_big` / `too_small`: `must be at most 13`, `must be at least 0`,
 *   `must have at least 1 entry`, `must have at most 200 characters`;
 * - `invalid_value`: `must be one of "none", "length"` (`must be "base64"`
 *   for a single value);
 * - `invalid_format`: `must match the pattern /^\d+$/`, `must start with
 *   "x"`, `must be a valid UUID`;
 * - `not_multiple_of`: `must be a multiple of 5`;
 * - `unrecognized_keys`: `unknown field "colour"` (`unknownKeysMessage`);
 * - `invalid_union`: `expected a string or a list, got a number` when every
 *   branch refused the input's type, `must be one of "a", "b"` for a
 *   discriminator, else `matches none of the forms this field takes`;
 * - `invalid_key`, `invalid_element`, `custom` without a message: `is not
 *   a valid key`, `has an entry that is not valid`, `is not valid`.
 * @param issue the raw issue zod passes to an error map (its `input` included).
 * @returns the message; zod uses it unless the schema words the issue itself.
 */
export function issueMessage(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined
        ? `required: ${expectedName(issue.expected)}`
        : `expected ${expectedName(issue.expected)}, got ${receivedName(issue.input, issue.expected)}`;
    case 'too_big':
      return boundMessage('most', issue.maximum, issue.origin, issue.inclusive, issue.exact);
    case 'too_small':
      return boundMessage('least', issue.minimum, issue.origin, issue.inclusive, issue.exact);
    case 'invalid_value':
      return issue.values.length === 1 ? `must be ${quoted(issue.values[0])}` : `must be one of ${issue.values.map(quoted).join(', ')}`;
    case 'invalid_format': {
      const format = issue as z.core.$ZodRawIssue<z.core.$ZodStringFormatIssues>;
      switch (format.format) {
        case 'regex':
          return `must match the pattern ${format.pattern}`;
        case 'starts_with':
          return `must start with ${JSON.stringify(format.prefix)}`;
        case 'ends_with':
          return `must end with ${JSON.stringify(format.suffix)}`;
        case 'includes':
          return `must contain ${JSON.stringify(format.includes)}`;
        default:
          return `must be a valid ${FORMATS[format.format] ?? format.format}`;
      }
    }
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return unknownKeysMessage(issue.keys);
    case 'invalid_union': {
      if (issue.inclusive === false) return 'matches more than one of the forms this field takes';
      if (issue.options !== undefined && issue.options.length > 0) return `must be one of ${issue.options.map(quoted).join(', ')}`;
      const types = unionTypes(issue.errors);
      if (types === null) return 'matches none of the forms this field takes';
      return issue.input === undefined ? `required: ${either(types)}` : `expected ${either(types)}, got ${receivedName(issue.input)}`;
    }
    case 'invalid_key':
      return 'is not a valid key';
    case 'invalid_element':
      return 'has an entry that is not valid';
    default:
      return 'is not valid';
  }
}

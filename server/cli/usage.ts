/**
 * What the command-line tools (server/cli/, bench/) share: one exit status
 * for bad usage, the parser of whole-number options, the check of a file
 * the tool will write, the `--game` option, and plural counts in reports.
 */
import { accessSync, constants, realpathSync, statSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError, Option, type CommanderError } from 'commander';
import { PRESETS } from '../../client-sdk/core/rules.js';

/**
 * Exit handler for commander (`.exitOverride(exitOnUsageError)`): help and
 * version exit 0; any usage error (unknown option, missing or invalid
 * argument), whose message commander has already printed, exits 2, the
 * tools' status for bad input (docs/cli.md).
 */
export function exitOnUsageError(err: CommanderError): never {
  process.exit(err.exitCode === 0 ? 0 : 2);
}

/**
 * Option parser for commander: a positive whole number (decimal digits, a
 * safe integer, at least 1).
 * @throws InvalidArgumentError otherwise (commander prints it and exits).
 */
export function positiveInt(text: string): number {
  const n = Number(text);
  if (!isDecimalDigits(text) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive whole number in decimal digits (such as 1000; no sign, point or exponent)');
  return n;
}

/**
 * Whether an option's text is a whole number written in decimal digits only
 * (surrounding spaces allowed): `1000` yes; `1e3`, `12abc`, `-5`, `1.0`,
 * `0x10` and the empty string no (`Number()` would take some of them).
 */
export function isDecimalDigits(text: string): boolean {
  return /^\d+$/.test(text.trim());
}

/**
 * Why a file the tool is about to write (`solve --proof`, `batch --out`)
 * could not be written, or undefined when it can: checked before any search
 * runs, so that a typo does not cost the whole run. A path that exists must
 * not be a directory and must be writable; a new file needs a writable
 * directory that exists (nothing is created).
 * @param path an absolute path (`userPath`).
 * @returns the reason, e.g. "is a directory" or "cannot be written (ENOENT):
 *   the directory /x does not exist".
 */
export function outputPathFault(path: string): string | undefined {
  let existing: Stats | undefined;
  try {
    existing = statSync(path);
  } catch {
    // not there yet: its directory must take a new file
  }
  if (existing?.isDirectory()) return 'is a directory';
  const target = existing ? path : dirname(path);
  try {
    accessSync(target, constants.W_OK);
  } catch (err) {
    const code = err instanceof Error && 'code' in err ? String(err.code) : String(err);
    return `cannot be written (${code})${code === 'ENOENT' ? `: the directory ${target} does not exist` : ''}`;
  }
  return undefined;
}

/**
 * Option parser for commander: a file path as the user typed it, made
 * absolute against the folder the user is in. `npm run <tool>` runs in the
 * package root, so `process.cwd()` is not that folder there: npm passes it
 * as `INIT_CWD` (set for every `npm run`/`npx`); a tool run directly has no
 * `INIT_CWD` and its working directory is the user's. `-` (standard input or
 * output) and `:memory:` (SQLite) are kept as they are.
 */
export function userPath(text: string): string {
  if (text === '-' || text === ':memory:') return text;
  return resolve(process.env.INIT_CWD || process.cwd(), text);
}

/**
 * Whether the module at `moduleUrl` (its `import.meta.url`) is the script
 * node was started with (`process.argv[1]`, symlinks resolved): a tool file
 * run directly (`tsx server/cli/solve.ts`, `node dist/server/cli/solve.js`)
 * parses its own arguments; imported by the `solitaire-solver` entry point
 * (main.ts) it only provides its command.
 */
export function isEntryPoint(moduleUrl: string): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return false;
  }
}

/**
 * The `--game <id>` option of the tools, its values the preset ids
 * (client-sdk/core/rules.ts `PRESETS`): an unknown id is a usage error
 * (exit 2) that lists them, and `--help` shows them.
 */
export function gameOption(): Option {
  return new Option('--game <id>', 'game preset, e.g. freecell, seahaven_towers').choices(PRESETS.map((p) => p.id)).makeOptionMandatory();
}

/** `n word` or `n words` (n with thousands separators), for the tools' reports. */
export function plural(n: number, word: string): string {
  return `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
}

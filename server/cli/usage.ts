/**
 * What the command-line tools (server/cli/, bench/) share: one exit status
 * for bad usage, and the parser of whole-number options.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError, type CommanderError } from 'commander';

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
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
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

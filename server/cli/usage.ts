/**
 * What the command-line tools (server/cli/, bench/) share: one exit status
 * for bad usage, and the parser of whole-number options.
 */
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

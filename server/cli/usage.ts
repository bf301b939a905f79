/**
 * What the command-line tools share: one exit status for bad usage.
 */
import type { CommanderError } from 'commander';

/**
 * Exit handler for commander (`.exitOverride(exitOnUsageError)`): help and
 * version exit 0; any usage error (unknown option, missing or invalid
 * argument), whose message commander has already printed, exits 2, the
 * tools' status for bad input (README "Command line").
 */
export function exitOnUsageError(err: CommanderError): never {
  process.exit(err.exitCode === 0 ? 0 : 2);
}

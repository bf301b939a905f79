#!/usr/bin/env node
/**
 * The `solitaire-solver` command (package.json `bin`), one entry point for
 * the three tools (docs/cli.md):
 *
 *   npx solitaire-solver solve --game freecell --deal 1
 *   npx solitaire-solver batch --game freecell --deals 1..1000 --out r.ndjson
 *   npx solitaire-solver check-proof 11982.proof.gz
 *
 * It runs as compiled JavaScript (`dist/server/cli/main.js`, built by
 * `npm run build:cli`, which the `prepare` script runs on `npm ci`,
 * `npm install` and `npm pack`), not through tsx. Only the named tool's
 * module is loaded: `batch` brings Piscina and SQLite, which a solve does
 * not need at start-up. Each tool's options are parsed by its own commander
 * command (`solveCommand`, `batchCommand`, `checkProofCommand`); this file
 * parses only the tool's name, with commander too.
 *
 * In a checkout (the `assembly/` and `server/` sources beside `dist/`), the
 * command first rebuilds what is stale, as `npm run solve` does for the
 * engine: `build/engine.wasm` when older than `assembly/`
 * (scripts/ensure-engine.mjs), and `dist/` when older than a `.ts` file of
 * `server/` or `client-sdk/` (scripts/ensure-cli.mjs, `npm run build:cli`;
 * one line on standard error). An installed package has neither source
 * folder and runs what it shipped.
 *
 * Exit status: the tool's (docs/cli.md); 2 for an unknown tool or bad usage.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { exitOnUsageError } from './usage.js';

/** The tools: module (beside this file) and the one-line summary of the help. */
const TOOLS = {
  solve: { module: './solve.js', summary: 'solve one position (a deal, a board or a layout) in this process' },
  batch: { module: './batch.js', summary: 'solve or rate many deals of one game, with a progress bar and a summary' },
  'check-proof': { module: './check-proof.js', summary: 'check an unsolvability certificate without the engine' },
} as const;
type ToolName = keyof typeof TOOLS;

const here = fileURLToPath(import.meta.url);
const fromSource = here.endsWith('.ts');
/** The package root: `server/cli/` from source, `dist/server/cli/` compiled. */
const root = fileURLToPath(new URL(fromSource ? '../..' : '../../..', import.meta.url));

/**
 * In a checkout, rebuilds the engine and `dist/` when older than their
 * sources (scripts/ensure-engine.mjs, scripts/ensure-cli.mjs: each checks at
 * import, builds when stale, and exits with the compiler's status when the
 * build fails); in an installed package (no sources), does nothing.
 */
async function rebuildStale(): Promise<void> {
  const script = (name: string) => join(root, 'scripts', name);
  if (existsSync(join(root, 'assembly')) && existsSync(script('ensure-engine.mjs'))) await import(pathToFileURL(script('ensure-engine.mjs')).href);
  if (!fromSource && existsSync(join(root, 'server', 'cli', 'main.ts')) && existsSync(script('ensure-cli.mjs'))) await import(pathToFileURL(script('ensure-cli.mjs')).href);
}

function version(): string {
  try {
    return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

const [name, ...rest] = process.argv.slice(2);
if (name !== undefined && Object.hasOwn(TOOLS, name)) {
  await rebuildStale();
  const tool = name as ToolName;
  const mod = (await import(TOOLS[tool].module)) as Record<string, () => Command>;
  const make = { solve: mod.solveCommand, batch: mod.batchCommand, 'check-proof': mod.checkProofCommand }[tool];
  await make().name(`solitaire-solver ${tool}`).parseAsync(rest, { from: 'user' });
} else {
  // No tool named (or an unknown one): commander prints the help or the error.
  const program = new Command('solitaire-solver')
    .description('Solitaire solver: solve deals, run batches, check proofs of unsolvability (docs/cli.md).')
    .version(version())
    .exitOverride(exitOnUsageError)
    .helpCommand(false) // `help solve` would show a stub: `solve --help` has the options
    .showHelpAfterError();
  for (const [tool, { summary }] of Object.entries(TOOLS)) program.command(tool).description(summary).allowUnknownOption();
  program.parse();
  program.help({ error: true });
}

/**
 * The browser examples, bundled with Vite and opened in Debian's headless
 * Chromium (playwright-core): examples/browser/, where the SDK's local
 * solver compiles the engine from the bundled Wasm file and solves a deal in
 * the page, with the same answer as in Node; and examples/play/, where the
 * SDK's `Position`, `Game` and analyser (the engine in a Web Worker) play a
 * game, with a verdict after every move and the move that lost it. Needs
 * /usr/bin/chromium (`.ci/run` installs it).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';
import { createLocalSolver } from '../../client-sdk/sdk/index.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import type { SolveRequest } from '../../client-sdk/api/schemas.js';
import { Position } from '../../client-sdk/core/play.js';
import { ROOT } from '../helpers/paths.js';

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' };

let dir: string;
let server: Server;
let url: string;
let context: BrowserContext;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sdk-browser-'));
  const out = dir;
  await build({ configFile: join(ROOT, 'examples', 'browser', 'vite.config.ts'), build: { outDir: join(dir, 'site'), emptyOutDir: true }, logLevel: 'error' });
  await build({ configFile: join(ROOT, 'examples', 'play', 'vite.config.ts'), build: { outDir: join(dir, 'play'), emptyOutDir: true }, logLevel: 'error' });

  // A static file server on a loopback port for the bundle.
  server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(out, path.endsWith('/') ? `${path}index.html` : path);
    if (!file.startsWith(out) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/site/`;

  context = await launchChromium(join(dir, 'profile'));
}, 90_000);

afterAll(async () => {
  await context?.close();
  await new Promise((resolve) => server?.close(resolve));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the browser example', () => {
  it('solves a deal in headless Chromium with the same answer as in Node', async () => {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(url);
    await page.waitForSelector('#status[data-ready="true"]', { timeout: 30_000 });

    await page.selectOption('#game', 'freecell');
    await page.fill('#deal', '617');
    await page.click('#solve');
    await page.waitForSelector('#status[data-verdict]', { timeout: 30_000 });
    const status = await page.textContent('#status');
    const output = await page.textContent('#output');

    const node = await (await createLocalSolver()).solve({ game: 'freecell', deal: 617, limits: { timeoutMs: 10_000 } });
    expect(node.verdict).toBe('solved');
    expect(status).toMatch(new RegExp(`^solved: ${node.stats.moveCount} moves, ${node.stats.statesStored} positions`));
    expect(output).toBe(`${node.board}\n${node.notation.join(' ')}`);

    // An unsolvable deal and a hint, in the same page.
    await page.fill('#deal', '11982');
    await page.click('#solve');
    await page.waitForFunction(() => document.querySelector('#status')?.textContent?.startsWith('unsolvable'), undefined, { timeout: 30_000 });
    await page.fill('#deal', '1');
    await page.click('#hint');
    await page.waitForFunction(() => document.querySelector('#status')?.textContent?.startsWith('hint:'), undefined, { timeout: 30_000 });
    expect(errors).toEqual([]);
  });

  it('plays a game with Position, Game and the analyser in a Web Worker: a verdict after every move, the losing move named', async () => {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(url.replace(/\/site\/$/, '/play/'));
    const status = page.locator('#status');
    await page.waitForSelector('#status[data-verdict="winnable"]', { timeout: 30_000 });
    const legal = Position.of(resolveDeal({ game: 'freecell', deal: 617, numbering: 'ms' } as SolveRequest)).legalMoves().length;
    expect(await page.locator('#moves button').count()).toBe(legal);
    // column tops to the free cells: MS 617 is lost after the third (a complete search, as the SDK finds in Node)
    for (const [token, verdict] of [['1a', 'winnable'], ['2b', 'winnable'], ['3c', 'lost']]) {
      await page.click(`#moves button[data-move="${token}"]`);
      await page.waitForSelector('#status:not([data-verdict="analysing"])', { timeout: 30_000 });
      expect(await status.getAttribute('data-verdict'), token).toBe(verdict);
    }
    await page.waitForSelector('#status[data-losing-move="2"]', { timeout: 30_000 });
    expect(await status.textContent()).toMatch(/^Lost by move 3 \(3c\); \w\w instead would have kept it winnable\.$/);
    await page.click('#undo');
    await page.waitForSelector('#status:not([data-verdict="analysing"])', { timeout: 30_000 });
    expect(await page.locator('#deal').textContent()).toBe('#617, 2 moves');
    expect(await status.getAttribute('data-verdict')).toBe('winnable');
    expect(errors).toEqual([]);
  });
});

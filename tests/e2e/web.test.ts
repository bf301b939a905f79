/**
 * The web page end to end: the real server (`server/main.ts`, real worker
 * pool and engine) on a loopback port, the built page (`dist/web`, made by
 * `npm run build:web`, which `pretest` runs), and Debian's headless Chromium
 * driven by playwright-core.
 *
 * It solves Seahaven Towers #1 and MS FreeCell #1 and steps to the end (all
 * four foundations at King), checks the highlight of the current move, the
 * error shown for a malformed board (with its line), the link that reopens a
 * deal, the "unknown" retry and the "unsolvable" proof, the review of a
 * pasted move list (docs/apps.md), and takes the README's
 * screenshots (docs/screenshots/).
 *
 * Needs /usr/bin/chromium (`apt-get install -y chromium`; `.ci/run` installs it).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';
import { ROOT } from '../helpers/paths.js';

const SCREENSHOTS = join(ROOT, 'docs/screenshots');
/** Malformed at line 8, column 16 (the README's example error). */
const BAD_BOARD = [
  'JD KD 2S 4C 3S 6D 6S',
  '2D KC KS 5C TD 8S 9C',
  '9H 9S 9D TS 4S 8D 2H',
  'JC 5S QD QH TH QS 6H',
  '5D AD JS 4H 8H 6C',
  '7H QC AS AC 2C 3D',
  '7C KH 4D JH 8C',
  '5H 3H 3C 7S 7D XX',
].join('\n');

let server: ChildProcess | undefined;
let serverLog = '';
let baseUrl = '';
let context: BrowserContext | undefined;
let profileDir = '';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function waitForHealth(url: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (server?.exitCode != null) throw new Error(`the server exited (${server.exitCode}):\n${serverLog}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the server did not answer /healthz within ${ms} ms:\n${serverLog}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist/web/index.html'))) throw new Error('dist/web is not built: run `npm run build:web` (npm test runs it first)');

  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  server = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', THREADS: '2' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (d) => (serverLog += d));
  server.stderr!.on('data', (d) => (serverLog += d));
  await waitForHealth(baseUrl, 30_000);

  profileDir = mkdtempSync(join(tmpdir(), 'e2e-web-chromium-'));
  context = await launchChromium(profileDir, {
    viewport: { width: 1320, height: 940 },
    deviceScaleFactor: 1,
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  mkdirSync(SCREENSHOTS, { recursive: true });
}, 90_000);

afterAll(async () => {
  await context?.close();
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server!.once('exit', r));
    server.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    if (server.exitCode === null) server.kill('SIGKILL');
  }
});

async function openPage(hash = ''): Promise<Page> {
  const page = await context!.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()}`));
  (page as Page & { problems: string[] }).problems = problems;
  await page.goto(`${baseUrl}/${hash}`);
  await page.locator('select[name="game"] option').first().waitFor({ state: 'attached' });
  return page;
}

function problemsOf(page: Page): string[] {
  return (page as Page & { problems: string[] }).problems;
}

/** Picks a game and a deal in the form and presses Solve; waits for the verdict. */
async function solveDeal(page: Page, game: string, deal: number, numbering: 'ms' | 'pysolfc'): Promise<string> {
  await page.selectOption('select[name="game"]', game);
  await page.check('input[name="source"][value="deal"]');
  await page.fill('input[name="deal"]', String(deal));
  await page.selectOption('select[name="numbering"]', numbering);
  await page.click('[data-testid="solve"]');
  const verdict = page.locator('[data-testid="verdict"]');
  await verdict.waitFor();
  return (await verdict.getAttribute('data-verdict')) ?? '';
}

/** The foundations' top ranks, in suit order C D H S. */
async function foundationTops(page: Page): Promise<string[]> {
  return page.locator('[data-foundation]').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-foundation')}-${e.getAttribute('data-top')}`));
}

async function cardsOnTable(page: Page): Promise<number> {
  return page.locator('.tableau .card, .slot[data-cell] .card').count();
}

async function stepText(page: Page): Promise<string> {
  return (await page.locator('[data-testid="step"]').textContent()) ?? '';
}

describe('web page (headless Chromium, real server)', () => {
  it('serves the page and its assets from the service, API routes keep priority', async () => {
    const page = await fetch(`${baseUrl}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//); // no CDN: every script and style sheet comes from here
    const asset = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(asset).toBeDefined();
    const js = await fetch(`${baseUrl}/${asset}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toMatch(/immutable/);
    expect((await fetch(`${baseUrl}/v1/games`)).headers.get('content-type')).toMatch(/json/);
    const missing = await fetch(`${baseUrl}/no-such-file.txt`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe('not_found');
  });

  it('draws the deal before solving, solves Seahaven Towers #1, steps with the highlight, ends with all foundations at King', async () => {
    const page = await openPage();
    await page.selectOption('select[name="game"]', 'seahaven_towers');
    // Seahaven Towers has only PySolFC numbers: the numbering follows the game.
    expect(await page.inputValue('select[name="numbering"]')).toBe('pysolfc');
    await page.fill('input[name="deal"]', '1');
    // The preview (dealt in the browser): 10 columns of 5, 2 cards in the cells.
    await expect.poll(() => cardsOnTable(page)).toBe(52);
    expect(await page.locator('.tableau .column').count()).toBe(10);
    expect(await page.locator('.slot[data-cell] .card').evaluateAll((els) => els.map((e) => e.getAttribute('data-card')))).toEqual(['2H', '6H']);
    expect(await foundationTops(page)).toEqual(['C-0', 'D-0', 'H-0', 'S-0']);

    expect(await solveDeal(page, 'seahaven_towers', 1, 'pysolfc')).toBe('solved');
    const rows = page.locator('[data-testid="move-list"] li');
    const total = await rows.count();
    expect(total).toBeGreaterThan(50);
    expect(await stepText(page)).toBe(`Start of ${total}`);
    expect(page.url()).toContain('game=seahaven_towers');
    expect(page.url()).toContain('deal=1');
    await page.screenshot({ path: join(SCREENSHOTS, 'seahaven-towers-1-start.png') });

    // Forward three moves: the third is highlighted in the list and on the board
    // (compared with the same solve asked of the API directly).
    const api = (await (
      await fetch(`${baseUrl}/v1/solve`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"game":"seahaven_towers","deal":1}' })
    ).json()) as { moves: { card: string; count: number }[]; notation: string[] };
    expect(api.moves).toHaveLength(total);
    const forward = page.getByRole('button', { name: 'Forward one move' });
    for (let i = 0; i < 3; i++) await forward.click();
    expect(await stepText(page)).toBe(`Move 3 of ${total}`);
    const current = page.locator('[data-testid="move-list"] li[aria-current="step"]');
    expect(await current.locator('.move-no').textContent()).toBe('3');
    expect(await current.locator('.move-sn').textContent()).toBe(api.notation[2]);
    const moved = await page.locator('.card.moved').evaluateAll((els) => els.map((e) => e.getAttribute('data-card')));
    expect(moved[0]).toBe(api.moves[2].card);
    expect(moved).toHaveLength(api.moves[2].count);
    expect(await page.locator('.move-source').count()).toBe(1);

    await page.getByRole('button', { name: 'Back one move' }).click();
    expect(await stepText(page)).toBe(`Move 2 of ${total}`);
    expect(await current.locator('.move-no').textContent()).toBe('2');
    expect(await page.locator('.card.moved').first().getAttribute('data-card')).toBe(api.moves[1].card);

    // Keyboard: End jumps to the last move.
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('End');
    expect(await stepText(page)).toBe(`Move ${total} of ${total}`);
    expect(await foundationTops(page)).toEqual(['C-K', 'D-K', 'H-K', 'S-K']);
    expect(await cardsOnTable(page)).toBe(0);
    expect(page.url()).toContain(`move=${total}`);
    await page.screenshot({ path: join(SCREENSHOTS, 'seahaven-towers-1-end.png') });
    expect(problemsOf(page)).toEqual([]);
    await page.close();
  });

  it('solves MS FreeCell #1, plays with the speed control, and the last button ends with all foundations at King', async () => {
    const page = await openPage();
    expect(await solveDeal(page, 'freecell', 1, 'ms')).toBe('solved');
    const total = await page.locator('[data-testid="move-list"] li').count();
    expect(total).toBeGreaterThan(50);

    // Play at 16 moves/s for a moment, then pause: the position moved on.
    await page.getByLabel('Speed').selectOption('16');
    await page.getByRole('button', { name: 'Play' }).click();
    await expect.poll(async () => Number(/Move (\d+)/.exec(await stepText(page))?.[1] ?? 0), { timeout: 5000 }).toBeGreaterThanOrEqual(5);
    await page.getByRole('button', { name: 'Pause' }).click();
    const paused = await stepText(page);
    await page.waitForTimeout(300);
    expect(await stepText(page)).toBe(paused);

    // Jump to move 20 from the list; the board and the list agree.
    await page.locator('[data-testid="move-list"] li').nth(19).locator('button').click();
    expect(await stepText(page)).toBe(`Move 20 of ${total}`);
    expect(await page.locator('.card.moved').count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(SCREENSHOTS, 'freecell-1-move-20.png') });

    await page.getByRole('button', { name: 'Last: the end position' }).click();
    expect(await stepText(page)).toBe(`Move ${total} of ${total}`);
    expect(await foundationTops(page)).toEqual(['C-K', 'D-K', 'H-K', 'S-K']);

    // The copy buttons put the solution on the clipboard.
    await page.getByTestId('copy-notation').click();
    const notation = await page.evaluate(() => navigator.clipboard.readText());
    expect(notation.split(' ')).toHaveLength(total);
    await page.getByTestId('copy-fcs').click();
    const fcs = await page.evaluate(() => navigator.clipboard.readText());
    expect(fcs.split('\n')).toHaveLength(total);
    expect(fcs).toMatch(/^Move (a card|\d+ cards) from /);
    await page.getByRole('button', { name: 'First: the start position' }).click();
    await page.getByTestId('copy-board').click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toMatch(/^JD KD 2S 4C 3S 6D 6S\n/);
    expect(problemsOf(page)).toEqual([]);
    await page.close();
  });

  it('shows the API error for a malformed board, with its line, column and token', async () => {
    const page = await openPage();
    await page.selectOption('select[name="game"]', 'bakers_game');
    await page.check('input[name="source"][value="board"]');
    await page.fill('textarea[name="board"]', BAD_BOARD);
    await page.click('[data-testid="solve"]');
    const error = page.getByTestId('api-error');
    await error.waitFor();
    expect(await error.getAttribute('data-code')).toBe('malformed_board');
    expect(await error.getAttribute('data-line')).toBe('8');
    expect(await error.locator('.error-message').textContent()).toContain('Line 8, column 16: "XX" is not a card');
    expect(await error.locator('.error-where').textContent()).toBe('At line 8, column 16, token “XX”.');
    expect(await error.locator('.error-excerpt .hit mark').textContent()).toBe('XX');
    // The link to the fault selects it in the text area.
    await error.getByRole('button', { name: 'Show line 8 in the board text' }).click();
    const selected = await page.locator('textarea[name="board"]').evaluate((el: HTMLTextAreaElement) => el.value.slice(el.selectionStart, el.selectionEnd));
    expect(selected).toBe('XX');
    expect(await page.locator('[data-testid="verdict"]').count()).toBe(0);
    await page.screenshot({ path: join(SCREENSHOTS, 'malformed-board-error.png') });
    await page.close();
  });

  it('reviews a pasted move list: the losing move and a winning one instead; an illegal move with its index', async () => {
    const page = await openPage();
    await page.selectOption('select[name="game"]', 'beleaguered_castle');
    await page.check('input[name="source"][value="deal"]');
    await page.fill('input[name="deal"]', '2');
    await page.click('[data-testid="review"] summary');
    // a solution's first seven moves, then 16 (a lost position: a complete search), then more moves
    await page.fill('[data-testid="review-moves"]', '78 53 58 65 6h 7h 6h 16 2h 26 21 37 31');
    await page.click('[data-testid="review-run"]');
    const result = page.locator('[data-testid="review-result"]');
    await result.waitFor();
    expect(await result.innerText()).toMatch(/Lost after move 8 \(16\)[^]*A winning move instead: 2h/);
    await page.fill('[data-testid="review-moves"]', '78 53 99');
    await page.click('[data-testid="review-run"]');
    const error = page.locator('[data-testid="review-error"]');
    await error.waitFor();
    expect(await error.innerText()).toMatch(/illegal_move[^]*move 2 "99"/);
    expect(problemsOf(page).filter((p) => !/status of 400/.test(p))).toEqual([]);
    await page.close();
  });

  it('reopens a deal from its link, at the move it names', async () => {
    const page = await openPage('#game=freecell&deal=1&numbering=ms&move=5');
    await page.locator('[data-testid="verdict"]').waitFor();
    expect(await page.inputValue('select[name="game"]')).toBe('freecell');
    expect(await page.inputValue('input[name="deal"]')).toBe('1');
    expect(await stepText(page)).toMatch(/^Move 5 of \d+$/);
    expect(await page.locator('[data-testid="move-list"] li[aria-current="step"] .move-no').textContent()).toBe('5');
    await page.close();
  });

  it('names the budget that ran out for "unknown" and retries with a larger one', async () => {
    const page = await openPage();
    await page.locator('details.limits summary').click();
    await page.fill('input[name="maxStates"]', '300');
    expect(await solveDeal(page, 'freecell', 1, 'ms')).toBe('unknown');
    const unknown = page.getByTestId('unknown');
    expect(await unknown.textContent()).toContain('The state budget ran out');
    expect(await unknown.locator('code').textContent()).toBe('max_states');
    const retry = page.getByTestId('retry');
    expect(await retry.textContent()).toBe('Try again with 3,000 positions');
    await retry.click();
    await expect.poll(() => page.locator('[data-testid="verdict"]').getAttribute('data-verdict')).toBe('solved');
    expect(await page.inputValue('input[name="maxStates"]')).toBe('3000');
    await page.close();
  });

  it('shows the proof summary for an unsolvable deal (MS FreeCell #11982)', async () => {
    const page = await openPage();
    expect(await solveDeal(page, 'freecell', 11982, 'ms')).toBe('unsolvable');
    const proof = page.getByTestId('proof');
    expect(await proof.textContent()).toContain('No solution exists.');
    expect(await proof.textContent()).toMatch(/The search was complete: it expanded every position reachable from the start \([\d,]+ expanded, [\d,]+ distinct positions stored\)/);
    expect(await page.locator('[data-testid="move-list"]').count()).toBe(0);
    await page.close();
  });

  it('shows the proof fields an unsolvable answer carries, a long certificate only by its size', async () => {
    // The real answer for MS #11982, with a `proof` object as issue 4 adds one (shape of client-sdk/core/proof/format.ts).
    const real = (await (
      await fetch(`${baseUrl}/v1/solve`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"game":"freecell","deal":11982}' })
    ).json()) as Record<string, unknown>;
    expect(real.verdict).toBe('unsolvable');
    const proof = {
      positions: 61643,
      reductions: [
        { name: 'safe_auto_moves', rule: 'horne', meaning: 'cards no column can need go home at once' },
        { name: 'column_order', meaning: 'columns in any order are one position' },
      ],
      fingerprint: '0123456789abcdef',
      fingerprintAlgorithm: 'fnv1a-64',
      certificate: { included: true, bytes: 3750, data: 'A'.repeat(5000) },
    };
    const page = await openPage();
    await page.route('**/v1/solve', (route) => route.fulfill({ json: { ...real, proof } }));
    expect(await solveDeal(page, 'freecell', 11982, 'ms')).toBe('unsolvable');
    const details = page.getByTestId('proof-details');
    const text = (await details.textContent())!;
    expect(text).toContain('61,643');
    expect(text).toContain('safe_auto_moves (horne): cards no column can need go home at once');
    expect(text).toContain('column_order: columns in any order are one position');
    expect(text).toContain('0123456789abcdef');
    expect(text).toContain('(5,000 characters)');
    expect(text).not.toContain('A'.repeat(30));
    await page.close();
  });
});

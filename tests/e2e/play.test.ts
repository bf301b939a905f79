/**
 * The play page (`/play`, docs/web.md "Play") end to end: the real server on
 * a loopback port, the built page (`dist/web`), Debian's headless Chromium
 * through playwright-core, at 1280 and 390 px wide (and every game at 360).
 *
 * - MS 617 is `winnable` within 1 s of the page's load (the browser has
 *   visited the page before, as a returning player's has), Hint gives a legal
 *   move (checked with the SDK here), no long task over 200 ms
 *   (PerformanceObserver 'longtask') while the page analyses, and the page
 *   fits the screen (no horizontal scroll);
 * - MS 11982 is `lost` at once, with its proof's size;
 * - moves by click, drag and keyboard (notation keys, and Enter on places
 *   reached with the arrow keys) at 1280, by tap at 390; a refused move with
 *   the checker's reason; undo, redo, restart; a game played into a lost
 *   position names its losing move (`data-losing-move`) and a winning move
 *   instead; the link reopens the game, and the solver page links here;
 * - a position the browser's budget cannot decide goes to the service, and
 *   the page says so; without the service it says that too; offline, the
 *   browser goes on deciding (a stopped worker comes back from the cache);
 * - a won game ends with "Won!".
 *
 * Screenshots go to `test-results/screenshots/` (ignored by git);
 * `npm run screenshots` writes the two that docs/web.md and the README show
 * (`play-desktop-hint.png`, `play-phone-lost.png`) to docs/screenshots/.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveDeal } from '../../client-sdk/api/request.js';
import type { SolveRequest } from '../../client-sdk/api/schemas.js';
import { formatBoard } from '../../client-sdk/core/board.js';
import { Position } from '../../client-sdk/core/play.js';
import { PRESETS } from '../../client-sdk/core/rules.js';
import { createLocalSolver } from '../../client-sdk/sdk/local.js';
import { boardFit, launchChromium } from '../helpers/chromium.js';
import { ROOT } from '../helpers/paths.js';
import { startServer, type ServerProcess } from '../helpers/server-process.js';

const SCREENSHOTS = resolve(ROOT, process.env.SCREENSHOTS_DIR ?? 'test-results/screenshots');
const REVIEW_SHOTS = resolve(ROOT, 'test-results/screenshots');
const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

let server: ServerProcess;
let context: BrowserContext;
let profileDir = '';

/** What `recorder` keeps: long tasks, when each status first showed, and when the test took screenshots (ms since the navigation started). */
interface Recorded {
  longTasks: { start: number; duration: number }[];
  statusAt: Record<string, number>;
  screenshots: [number, number][];
}

/**
 * Runs in every page before its scripts: records long tasks and the time
 * (ms since the navigation started) each `data-status` value first shows.
 */
function recorder(): void {
  const w = window as unknown as { __play: Recorded };
  w.__play = { longTasks: [], statusAt: {}, screenshots: [] };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) w.__play.longTasks.push({ start: e.startTime, duration: Math.round(e.duration) });
  }).observe({ type: 'longtask', buffered: true });
  const seen = () => {
    const s = document.querySelector('[data-status]')?.getAttribute('data-status');
    if (s && !(s in w.__play.statusAt)) w.__play.statusAt[s] = performance.now();
  };
  new MutationObserver(seen).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] });
}

beforeAll(async () => {
  server = await startServer({ THREADS: '1' });
  profileDir = mkdtempSync(join(tmpdir(), 'e2e-play-chromium-'));
  context = await launchChromium(profileDir, { viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1, hasTouch: true });
  await context.addInitScript(recorder);
  // Two earlier visits, as a returning player's browser has made: its cache then holds the page's files and
  // their compiled code (V8 keeps a script's code from its second run on), so the bounds below measure the
  // page, not the first fetch and compile on this shared machine (docs/web.md gives the first visit's times,
  // measured by bench/play-analysis.ts).
  for (let visit = 0; visit < 2; visit++) {
    const first = await context.newPage();
    await first.goto(`${server.url}/play#game=freecell&deal=1&numbering=ms`);
    await first.locator('[data-status][data-final="true"]').waitFor({ timeout: 30_000 });
    await first.close();
  }
  mkdirSync(SCREENSHOTS, { recursive: true });
  mkdirSync(REVIEW_SHOTS, { recursive: true });
}, 90_000);

afterAll(async () => {
  await context?.close();
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  await server?.kill();
});

type Viewport = (typeof VIEWPORTS)[number] | { name: string; width: number; height: number };

/** Opens `/play#<hash>` at `viewport`; page errors and console errors are collected. */
async function openPlay(hash: string, viewport: Viewport = VIEWPORTS[0]): Promise<Page> {
  const page = await context.newPage();
  await page.setViewportSize({ width: viewport.width, height: viewport.height });
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  (page as Page & { problems: string[] }).problems = problems;
  await page.goto(`${server.url}/play#${hash}`);
  await page.locator('[data-status]').waitFor();
  return page;
}

const problemsOf = (page: Page) => (page as Page & { problems: string[] }).problems;
const statusOf = (page: Page) => page.locator('[data-status]').getAttribute('data-status');
/** The moves played, in standard notation. */
const playedMoves = (page: Page) => page.locator('[data-testid="moves"] li.done:not(:first-child) .move-sn').allTextContents();
const recorded = (page: Page) => page.evaluate(() => (window as unknown as { __play: Recorded }).__play);

/** A screenshot, its time kept so that the long tasks it causes (a full-page one resizes the page) are not counted as the page's. */
async function screenshot(page: Page, path: string, fullPage = false): Promise<void> {
  const t0 = await page.evaluate(() => performance.now());
  await page.screenshot({ path, fullPage });
  await page.evaluate((start) => (window as unknown as { __play: Recorded }).__play.screenshots.push([start, performance.now()]), t0);
}

async function waitForStatus(page: Page, status: string, timeout = 15_000): Promise<void> {
  await expect.poll(() => statusOf(page), { timeout }).toBe(status);
}

/** Fails on a long task over 200 ms, a page error, or a page wider than the screen. */
async function expectSmoothAndFitting(page: Page): Promise<void> {
  await page.waitForTimeout(100); // long-task entries arrive after their task
  const { longTasks, screenshots } = await recorded(page);
  const pages = longTasks.filter((t) => !screenshots.some(([a, b]) => t.start + t.duration >= a && t.start <= b)).map((t) => t.duration);
  expect(Math.max(0, ...pages), `long tasks: ${pages.join(', ')} ms`).toBeLessThanOrEqual(200);
  const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, screen: window.innerWidth }));
  expect(widths.scroll, 'no horizontal scroll').toBeLessThanOrEqual(widths.screen);
  expect(problemsOf(page)).toEqual([]);
}

const card = (page: Page, column: number) => page.locator(`[data-column="${column}"] .card`).last();
const cell = (page: Page, index: number) => page.locator(`[data-cell="${index}"]`);

describe('the play page (headless Chromium, real server)', () => {
  for (const vp of VIEWPORTS) {
    it(`${vp.width} px: MS 617 is winnable within 1 s of load, Hint gives a legal move, no long task, the page fits`, async () => {
      const page = await openPlay('game=freecell&deal=617&numbering=ms', vp);
      await waitForStatus(page, 'winnable');
      const { statusAt } = await recorded(page);
      expect(statusAt.winnable, `winnable at ${Math.round(statusAt.winnable)} ms after the navigation started`).toBeLessThan(1000);
      expect(await page.locator('[data-status]').getAttribute('data-by')).toBe('browser');

      await page.getByRole('button', { name: 'Hint', exact: true }).click();
      const hint = page.locator('[data-hint]');
      await hint.waitFor();
      const notation = (await hint.getAttribute('data-hint'))!;
      const start = Position.of(resolveDeal({ game: 'freecell', deal: 617, numbering: 'ms' } as SolveRequest));
      expect(start.whyIllegal(start.read(notation)), `hint ${notation}`).toBeNull();
      expect(await page.locator('.card.hinted').count()).toBeGreaterThan(0);
      await screenshot(page, join(vp.name === 'desktop' ? SCREENSHOTS : REVIEW_SHOTS, `play-${vp.name}-hint.png`));
      await page.getByRole('button', { name: 'Play it' }).click();
      await expect.poll(() => playedMoves(page)).toEqual(expect.arrayContaining([notation]));
      expect((await playedMoves(page))[0]).toBe(notation);
      await waitForStatus(page, 'winnable');
      await expectSmoothAndFitting(page);
      await page.close();
    });

    it(`${vp.width} px: MS 11982 is lost at once, with the size of its proof`, async () => {
      const page = await openPlay('game=freecell&deal=11982&numbering=ms', vp);
      await waitForStatus(page, 'lost');
      const { statusAt } = await recorded(page);
      expect(statusAt.lost, `lost at ${Math.round(statusAt.lost)} ms`).toBeLessThan(1500);
      const status = page.locator('[data-status]');
      expect(await status.textContent()).toContain('a complete search of 61,643 positions found none');
      expect(await status.getAttribute('data-losing-move')).toBeNull(); // no move lost it: the deal is lost from the start
      await expectSmoothAndFitting(page);
      await page.close();
    });
  }

  it('1280 px: moves by click, drag and keyboard; a refusal in words; undo, redo, restart; the losing move and a winning one instead', async () => {
    const page = await openPlay('game=freecell&deal=1&numbering=ms');
    await waitForStatus(page, 'winnable');
    // click: column 1's top card, then free cell a
    await card(page, 0).click();
    expect(await page.locator('.card.selected').count()).toBe(1);
    await cell(page, 0).click();
    await expect.poll(() => playedMoves(page)).toEqual(['1a']);
    // a move the rules refuse: the checker's reason, in words
    await card(page, 4).click();
    await card(page, 5).click();
    const refusal = page.getByTestId('refusal');
    await expect.poll(() => refusal.textContent()).toMatch(/^56 is not allowed: .+ cannot go on .+ in column 6 \(build alternate_color\)\.$/);
    expect(await playedMoves(page)).toEqual(['1a']);
    // drag: column 2's top card onto free cell b
    const from = (await card(page, 1).boundingBox())!;
    const to = (await cell(page, 1).boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2 + 20, from.y + 10, { steps: 4 });
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 8 });
    await page.mouse.up();
    await expect.poll(() => playedMoves(page)).toEqual(['1a', '2b']);
    // keyboard: notation keys
    await page.keyboard.press('3');
    await page.keyboard.press('c');
    await expect.poll(() => playedMoves(page)).toEqual(['1a', '2b', '3c']);
    await waitForStatus(page, 'winnable');
    // keyboard: column 4 focused, Enter picks up, ← to free cell d, Enter puts it down (the move that loses the game)
    await page.locator('[data-column="3"]').focus();
    await page.keyboard.press('Enter');
    for (let i = 0; i < 8; i++) await page.keyboard.press('ArrowLeft');
    expect(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.place)).toBe('cell:3');
    await page.keyboard.press('Enter');
    await expect.poll(() => playedMoves(page)).toEqual(['1a', '2b', '3c', '4d']);
    await waitForStatus(page, 'lost');
    const status = page.locator('[data-status]');
    await expect.poll(() => status.getAttribute('data-losing-move')).toBe('3');
    expect(await status.textContent()).toMatch(/Move 4 \(4d\) lost the game[^]*Instead, \w\w would have kept it winnable/);
    expect(await page.locator('[data-testid="moves"] li.losing .move-sn').textContent()).toBe('4d');
    await screenshot(page, join(REVIEW_SHOTS, 'play-desktop-lost.png'));
    // the winning move instead is legal where the losing one was played
    const alternative = (await page.getByTestId('alternative').textContent())!;
    let p = Position.of(resolveDeal({ game: 'freecell', deal: 1, numbering: 'ms' } as SolveRequest));
    for (const t of ['1a', '2b', '3c']) p = p.play(p.read(t));
    expect(p.whyIllegal(p.read(alternative))).toBeNull();
    // the link holds the moves
    expect(new URL(page.url()).hash).toContain('moves=1a+2b+3c+4d');

    // undo, redo (button, key, Ctrl+Z), restart, and back to before the losing move
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await expect.poll(() => playedMoves(page)).toEqual(['1a', '2b', '3c']);
    await waitForStatus(page, 'winnable');
    await page.keyboard.press('r');
    await expect.poll(() => playedMoves(page)).toEqual(['1a', '2b', '3c', '4d']);
    expect(await statusOf(page)).toBe('lost'); // known: no second search
    await page.keyboard.press('Control+z');
    await page.getByRole('button', { name: 'Redo', exact: true }).click();
    await expect.poll(() => playedMoves(page)).toEqual(['1a', '2b', '3c', '4d']);
    await page.getByRole('button', { name: 'Restart', exact: true }).click();
    await expect.poll(() => playedMoves(page)).toEqual([]);
    expect(await page.locator('[data-testid="moves"] li.undone').count()).toBe(4);
    await page.getByRole('button', { name: 'Redo', exact: true }).click();
    expect(await playedMoves(page)).toEqual(['1a']);
    // notation keys reach the game with a button focused
    await page.keyboard.press('2');
    await page.keyboard.press('b');
    await expect.poll(() => playedMoves(page)).toEqual(['1a', '2b']);
    // a full load of the link (about:blank first): a hash change and a reload could load the hash the page writes meanwhile
    await page.goto('about:blank');
    await page.goto(`${server.url}/play#game=freecell&deal=1&numbering=ms&moves=1a+2b+3c+4d`);
    await waitForStatus(page, 'lost');
    await page.getByRole('button', { name: 'Back to before move 4' }).click();
    await expect.poll(() => playedMoves(page)).toEqual(['1a', '2b', '3c']);
    await expectSmoothAndFitting(page);
    await page.close();
  });

  it('390 px: moves by tap; a game tapped into a lost position names its losing move', async () => {
    const page = await openPlay('game=freecell&deal=1&numbering=ms', VIEWPORTS[1]);
    await waitForStatus(page, 'winnable');
    for (let i = 0; i < 4; i++) {
      await card(page, i).tap();
      await cell(page, i).tap();
      await expect.poll(() => (playedMoves(page) as Promise<string[]>).then((m) => m.length)).toBe(i + 1);
    }
    expect(await playedMoves(page)).toEqual(['1a', '2b', '3c', '4d']);
    await waitForStatus(page, 'lost');
    await expect.poll(() => page.locator('[data-status]').getAttribute('data-losing-move')).toBe('3');
    await screenshot(page, join(SCREENSHOTS, 'play-phone-lost.png'), true);
    await page.getByRole('button', { name: 'Undo', exact: true }).tap();
    await waitForStatus(page, 'winnable');
    await expectSmoothAndFitting(page);
    await page.close();
  });

  it('marks the end of a won game: Won!, every card home, no more hints', async () => {
    const answer = await (await createLocalSolver()).solve({ game: 'freecell', deal: 617, numbering: 'ms' });
    const tokens = answer.notation;
    const page = await openPlay(`game=freecell&deal=617&numbering=ms&moves=${tokens.slice(0, -1).join('+')}`);
    await waitForStatus(page, 'winnable');
    expect(await page.getByTestId('won').count()).toBe(0);
    const last = tokens[tokens.length - 1];
    await page.keyboard.press(last[0]);
    await page.keyboard.press(last[1]);
    const won = page.getByTestId('won');
    await won.waitFor();
    expect(await won.textContent()).toBe(`Won! Every card is home, in ${tokens.length} moves.`);
    await expect.poll(() => page.locator('[data-status]').textContent()).toContain(`Won!Every card is home, in ${tokens.length} moves.`);
    await expect.poll(() => page.getByRole('button', { name: 'Hint', exact: true }).isDisabled()).toBe(true);
    await page.screenshot({ path: join(REVIEW_SHOTS, 'play-freecell-617-won.png') });
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await expect.poll(() => won.count()).toBe(0);
    await page.close();
  });

  it("asks the service when the browser's budget runs out, and says who answered; without the service it says so", async () => {
    const page = await openPlay('game=freecell&deal=617&numbering=ms&maxStates=50');
    await waitForStatus(page, 'winnable');
    const status = page.locator('[data-status]');
    expect(await status.getAttribute('data-by')).toBe('service');
    expect(await status.textContent()).toContain("Decided by the service: this browser's budget (its 50 positions) ran out.");
    await page.close();

    const offline = await context.newPage();
    await offline.route('**/v1/solve', (route) => route.abort('internetdisconnected'));
    await offline.goto(`${server.url}/play#game=freecell&deal=617&numbering=ms&maxStates=50`);
    await waitForStatus(offline, 'unknown');
    expect(await offline.locator('[data-status]').textContent()).toMatch(/the browser's budget ran out \(its 50 positions\)[^]*The service was not asked: the service could not be reached/);
    await offline.close();
  });

  it('plays on offline once loaded: the verdicts come from the browser, a stopped worker comes back from the cache', async () => {
    const page = await openPlay('game=freecell&deal=617&numbering=ms');
    await waitForStatus(page, 'winnable');
    await context.setOffline(true);
    try {
      // two moves at once: the second stops the first one's analysis (its worker ended, a new one started)
      for (const key of ['1', 'a', '2', 'b']) await page.keyboard.press(key);
      await expect.poll(() => playedMoves(page)).toEqual(['1a', '2b']);
      await expect.poll(() => page.locator('[data-status]').getAttribute('data-final'), { timeout: 15_000 }).toBe('true');
      expect(await page.locator('[data-status]').getAttribute('data-by')).toBe('browser');
      expect(['winnable', 'lost']).toContain(await statusOf(page));
      const workers = await page.evaluate(() => performance.getEntriesByType('resource').filter((r) => r.name.includes('analysis.worker')).length);
      expect(workers, 'a second worker was started').toBeGreaterThanOrEqual(2);
    } finally {
      await context.setOffline(false);
    }
    await page.close();
  });

  it('opens from the solver page at the move shown, and today\'s links keep working', async () => {
    const page = await context.newPage();
    await page.goto(`${server.url}/#game=freecell&deal=1&numbering=ms&move=3`);
    await page.locator('[data-testid="verdict"]').waitFor();
    const href = (await page.getByTestId('play-link').getAttribute('href'))!;
    expect(href).toMatch(/^play#game=freecell&deal=1&numbering=ms&moves=\w\w\+\w\w\+\w\w$/);
    await page.getByTestId('play-link').click();
    await page.locator('[data-status]').waitFor();
    expect(new URL(page.url()).pathname).toBe('/play');
    await expect.poll(() => playedMoves(page)).toHaveLength(3);
    await page.close();
  });

  it("Fan at 390 px: its 18 columns in two rows of 9 with cards at least 30 px wide, every card on the board; King Albert's reserve", async () => {
    const page = await openPlay('game=fan&deal=2&numbering=pysolfc', { name: 'phone', width: 390, height: 844 });
    await page.locator('.play-board').waitFor();
    const fit = await boardFit(page, '.play-board', '.play-board .card');
    expect(fit).toMatchObject({ columns: 18, rows: 2, outside: 0 });
    expect(fit.scroll).toBeLessThanOrEqual(390);
    expect(fit.narrowest).toBeGreaterThanOrEqual(30);
    await screenshot(page, join(REVIEW_SHOTS, 'play-fan-390.png'));
    expect(problemsOf(page)).toEqual([]);
    await page.close();
    const albert = await openPlay('game=king_albert&deal=2&numbering=pysolfc', { name: 'phone', width: 390, height: 844 });
    await albert.locator('.play-board').waitFor();
    expect(await albert.locator('.play-board .group-title').first().textContent()).toBe('Reserve');
    expect(await albert.locator('.play-board [aria-label^="Reserve cell"] .card').count()).toBe(7);
    expect(problemsOf(albert)).toEqual([]);
    await albert.close();
  });

  it('deals every game at 360 px, every column on the screen', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 360, height: 740 });
    for (const preset of PRESETS) {
      const hash =
        preset.numberings.length > 0
          ? `game=${preset.id}&deal=2&numbering=${preset.numberings[0]}`
          : `game=${preset.id}&board=${encodeURIComponent(formatBoard(resolveDeal({ game: 'beleaguered_castle', deal: 2 } as SolveRequest).layout, preset.rules))}`;
      await page.goto('about:blank');
      await page.goto(`${server.url}/play#${hash}`);
      await page.locator('.play-board').waitFor();
      expect(await page.locator('.play-board .column').count(), preset.id).toBe(preset.rules.columns);
      const fit = await page.evaluate(() => {
        const board = document.querySelector('.play-board')!.getBoundingClientRect();
        const cards = Array.from(document.querySelectorAll('.play-board .card, .play-board .slot')).map((c) => c.getBoundingClientRect());
        return { scroll: document.documentElement.scrollWidth, right: Math.max(...cards.map((c) => c.right)), boardRight: board.right };
      });
      expect(fit.scroll, `${preset.id}: no horizontal scroll`).toBeLessThanOrEqual(360);
      expect(fit.right, `${preset.id}: every card on the board`).toBeLessThanOrEqual(fit.boardRight);
    }
    await page.screenshot({ path: join(REVIEW_SHOTS, 'play-fortress-360.png') });
    await page.close();
  });
});

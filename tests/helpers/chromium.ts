/**
 * Debian's headless Chromium for the browser tests, driven by playwright-core
 * (the machine cannot download a browser of playwright's own).
 */
import { existsSync } from 'node:fs';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** The browser binary: Debian's package, or CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The flags this machine needs (its closed network refuses Chromium's background connections). */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Starts headless Chromium with a fresh profile in `profileDir`.
 * @param options extra playwright context options (viewport, permissions, ...).
 * @throws when the binary is missing, saying how to install it.
 */
export async function launchChromium(
  profileDir: string,
  options: Omit<Parameters<typeof chromium.launchPersistentContext>[1], 'executablePath' | 'headless' | 'args'> = {},
): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium)`);
  return chromium.launchPersistentContext(profileDir, { ...options, executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
}

/**
 * How a board's tableau fits the page: the page's scroll width, the
 * number of columns and of rows they make, the narrowest of `cards`, and
 * how many of them stand outside the board's box (half a pixel allowed).
 * @param board a CSS selector of the board element (`.board`, `.play-board`)
 * @param cards a CSS selector of the card-sized elements to measure, inside it
 */
export async function boardFit(page: Page, board: string, cards: string): Promise<{ scroll: number; columns: number; rows: number; narrowest: number; outside: number }> {
  return page.evaluate(([boardSelector, cardSelector]) => {
    const box = document.querySelector(boardSelector)!.getBoundingClientRect();
    const columns = Array.from(document.querySelectorAll(`${boardSelector} .column`)).map((c) => c.getBoundingClientRect());
    const rects = Array.from(document.querySelectorAll(cardSelector)).map((c) => c.getBoundingClientRect());
    return {
      scroll: document.documentElement.scrollWidth,
      columns: columns.length,
      rows: new Set(columns.map((c) => Math.round(c.top))).size,
      narrowest: Math.min(...rects.map((c) => c.width)),
      outside: rects.filter((c) => c.left < box.left - 0.5 || c.right > box.right + 0.5).length,
    };
  }, [board, cards] as const);
}

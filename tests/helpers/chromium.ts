/**
 * Debian's headless Chromium for the browser tests, driven by playwright-core
 * (the machine cannot download a browser of playwright's own).
 */
import { existsSync } from 'node:fs';
import { chromium, type BrowserContext } from 'playwright-core';

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

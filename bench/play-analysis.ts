/**
 * The play page in the browser (docs/web.md "Play"): its download sizes,
 * and the analysis time per move on MS FreeCell deals, measured by the page
 * itself in headless Chromium (Debian's /usr/bin/chromium).
 *
 *   npm run bench:play -- [--from 1] [--to 20] [--moves 40] [--seed 1]
 *
 * Sizes: every file the play page loads (`dist/web/play/index.html`'s
 * scripts and styles, the analysis worker and the engine's Wasm file), raw
 * and gzip -9 (the service sends them uncompressed; a front proxy would
 * compress them).
 *
 * Analysis time: the built page (`npm run build:web`) served from
 * `dist/web` in process (the service is not needed: the verdicts come from
 * the browser), one page a deal, `/play#game=freecell&deal=N&numbering=ms`.
 * A game is played with the page's notation keys: mostly the hint (the
 * first move of the analysis' short solution), one move in four a random
 * legal move (drawn from the moves the SDK's `Position` lists, seeded), so
 * that the positions are those a player meets, lost ones included; a lost
 * position is undone. For every position the page reports, on its status
 * element, `data-decided-ms` (asking the worker to the verdict) and
 * `data-analysis-ms` (to the shortened solution, which Hint uses), wall
 * time in the page. The first position of each deal also counts the
 * worker's start (its script and the engine loaded and compiled); both are
 * shown apart. Prints the median, p90, p99 and max; no bound is checked.
 */
import { readFileSync, readdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { serve } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { resolveDeal } from '../client-sdk/api/request.js';
import type { SolveRequest } from '../client-sdk/api/schemas.js';
import { Game, Position } from '../client-sdk/core/play.js';
import { launchChromium } from '../tests/helpers/chromium.js';

const ROOT = join(import.meta.dirname, '..');
const WEB = join(ROOT, 'dist', 'web');

const { values } = parseArgs({
  options: {
    from: { type: 'string', default: '1' },
    to: { type: 'string', default: '20' },
    moves: { type: 'string', default: '40' },
    seed: { type: 'string', default: '1' },
  },
});
const from = Number(values.from);
const to = Number(values.to);
const maxMoves = Number(values.moves);
let seed = Number(values.seed) >>> 0;
/** A seeded draw of 0..n-1 (linear congruential: reproducible, nothing more). */
const draw = (n: number) => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed % n;
};

// ---- sizes ----------------------------------------------------------------

const html = readFileSync(join(WEB, 'play', 'index.html'), 'utf8');
const assets = readdirSync(join(WEB, 'assets')).filter((f) => !f.endsWith('.map'));
const linked = [...html.matchAll(/(?:src|href)="\.\.\/assets\/([^"]+)"/g)].map((m) => m[1]);
const worker = assets.filter((f) => f.startsWith('analysis.worker-'));
const wasm = assets.filter((f) => f.endsWith('.wasm'));
const sizeOf = (file: string) => {
  const bytes = readFileSync(join(WEB, 'assets', file));
  return { file, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
};
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
console.log('Download sizes of /play (raw, gzip -9):');
const groups: [string, string[]][] = [
  ['page JS', linked.filter((f) => f.endsWith('.js'))],
  ['page CSS', linked.filter((f) => f.endsWith('.css'))],
  ['worker JS', worker],
  ['engine Wasm', wasm],
];
for (const [label, files] of groups) {
  const sizes = files.map(sizeOf);
  const raw = sizes.reduce((a, s) => a + s.raw, 0);
  const gz = sizes.reduce((a, s) => a + s.gzip, 0);
  console.log(`  ${label.padEnd(12)} ${kb(raw).padStart(9)}  ${kb(gz).padStart(9)}  (${files.join(', ')})`);
}

// ---- analysis time ----------------------------------------------------------

const port = await new Promise<number>((resolve, reject) => {
  const s = createServer();
  s.once('error', reject);
  s.listen(0, '127.0.0.1', () => {
    const p = (s.address() as { port: number }).port;
    s.close(() => resolve(p));
  });
});
const app = new Hono();
app.use('/*', serveStatic({ root: WEB }));
const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' });
const profile = mkdtempSync(join(tmpdir(), 'bench-play-'));
const context = await launchChromium(profile, { viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
// the time since the navigation started at which the page first shows a verdict
await context.addInitScript(() => {
  const w = window as unknown as { __verdictAt?: number };
  new MutationObserver(() => {
    const s = document.querySelector('[data-status]')?.getAttribute('data-status');
    if (w.__verdictAt === undefined && s && s !== 'analysing') w.__verdictAt = performance.now();
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] });
});

interface Sample {
  deal: number;
  first: boolean;
  verdict: string;
  decidedMs: number;
  analysisMs: number;
}
const samples: Sample[] = [];
/** Navigation start to the first verdict shown, per deal (the first deal's page is the browser's first visit). */
const loadToVerdict: number[] = [];
const started = performance.now();
try {
  for (let deal = from; deal <= to; deal++) {
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${port}/play#game=freecell&deal=${deal}&numbering=ms`);
    const start = Position.of(resolveDeal({ game: 'freecell', deal, numbering: 'ms' } as SolveRequest));
    let played = 0;
    let undone = false;
    for (let step = 0; step < maxMoves; step++) {
      const status = page.locator('[data-status][data-final="true"]');
      await status.waitFor({ timeout: 60_000 });
      const verdict = (await status.getAttribute('data-status'))!;
      if (step === 0) loadToVerdict.push(await page.evaluate(() => (window as unknown as { __verdictAt: number }).__verdictAt));
      const decided = await status.getAttribute('data-decided-ms');
      const analysed = await status.getAttribute('data-analysis-ms');
      // a position undone to was analysed before: its verdict is remembered, not timed again
      if (analysed !== null && !undone) samples.push({ deal, first: step === 0, verdict, decidedMs: Number(decided ?? analysed), analysisMs: Number(analysed) });
      const hash = new URL(page.url()).hash;
      const game = Game.replay(start, new URLSearchParams(hash.slice(1)).get('moves') ?? '');
      if (game.position.isWon() || verdict === 'unknown') break;
      let token: string;
      undone = verdict === 'lost';
      if (undone) {
        await page.keyboard.press('u');
        await page.waitForFunction((n) => (new URLSearchParams(location.hash.slice(1)).get('moves') ?? '').split(' ').filter(Boolean).length < n, game.moveCount);
        continue;
      }
      const legal = game.position.legalMoves();
      if (draw(4) === 0 && legal.length > 0) token = game.position.notation(legal[draw(legal.length)]);
      else {
        await page.keyboard.press('?');
        const hint = page.locator('[data-hint]');
        await hint.waitFor({ timeout: 60_000 });
        token = (await hint.getAttribute('data-hint'))!;
      }
      const before = game.moveCount;
      await page.keyboard.press(token[0]);
      await page.keyboard.press(token[1]);
      await page.waitForFunction((n) => (new URLSearchParams(location.hash.slice(1)).get('moves') ?? '').split(' ').filter(Boolean).length > n, before);
      played++;
    }
    await page.close();
    process.stdout.write(`deal ${deal}: ${played} moves\r`);
  }
} finally {
  await context.close();
  server.close();
  rmSync(profile, { recursive: true, force: true });
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const line = (label: string, xs: number[]) =>
  console.log(`  ${label.padEnd(34)} n=${String(xs.length).padStart(4)}  median ${quantile(xs, 0.5).toFixed(0).padStart(4)} ms  p90 ${quantile(xs, 0.9).toFixed(0).padStart(5)} ms  p99 ${quantile(xs, 0.99).toFixed(0).padStart(5)} ms  max ${quantile(xs, 1).toFixed(0).padStart(5)} ms`);
const later = samples.filter((s) => !s.first);
const firsts = samples.filter((s) => s.first);
console.log(`\nAnalysis time per position, MS deals ${from}..${to}, up to ${maxMoves} moves each (${((performance.now() - started) / 1000).toFixed(0)} s in all):`);
line('verdict (after a move)', later.map((s) => s.decidedMs));
line('with the short solution (Hint)', later.map((s) => s.analysisMs));
line('  of them winnable: verdict', later.filter((s) => s.verdict === 'winnable').map((s) => s.decidedMs));
line('  of them lost: verdict', later.filter((s) => s.verdict === 'lost').map((s) => s.decidedMs));
line('first position (worker start): verdict', firsts.map((s) => s.decidedMs));
console.log(`  page load to the first verdict: first visit ${loadToVerdict[0]?.toFixed(0)} ms; later visits:`);
line('', loadToVerdict.slice(1));
console.log(`  verdicts: ${['winnable', 'lost', 'unknown'].map((v) => `${v} ${samples.filter((s) => s.verdict === v).length}`).join(', ')}`);

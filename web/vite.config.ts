/**
 * Vite build of the web page: `web/` → `dist/web/`, served by the
 * Hono app at `/` (server/app.ts). Everything is bundled (Preact, the SDK
 * modules the page uses, the styles): the page needs no CDN and works offline.
 *
 * JSX is compiled by Vite's own transform (Oxc) for Preact's automatic
 * runtime, so no framework plugin (and no Babel) is needed.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: './',
  publicDir: false,
  logLevel: 'warn',
  oxc: {
    jsx: { runtime: 'automatic', importSource: 'preact' },
  },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    reportCompressedSize: false,
  },
  server: {
    // `npm run dev:web`: the page with hot reload, the API from a server on :3000.
    proxy: { '/v1': 'http://127.0.0.1:3000' },
  },
});

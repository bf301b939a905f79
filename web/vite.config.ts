/**
 * Vite build of the web pages: `web/` → `dist/web/`, served by the Hono app
 * at `/` (server/app.ts): the solver page (`index.html`) and the play page
 * (`play/index.html`, served at `/play`), which share their chunks.
 * Everything is bundled (Preact, the SDK modules the pages use, the styles,
 * the play page's analysis worker and the engine's Wasm file): the pages
 * need no CDN, and the play page works offline once loaded.
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
    // no source maps: the built pages are what the service serves in production (862 KB of map
    // for nobody's use); `npm run dev:web` serves the sources themselves
    sourcemap: false,
    reportCompressedSize: false,
    rolldownOptions: {
      input: {
        main: fileURLToPath(new URL('index.html', import.meta.url)),
        play: fileURLToPath(new URL('play/index.html', import.meta.url)),
      },
      output: {
        codeSplitting: {
          // what both pages use, under a name that says so
          groups: [{ name: 'shared', test: /./, minShareCount: 2 }],
        },
      },
    },
  },
  // the analysis worker is an ES module (`new Worker(url, { type: 'module' })`), so its chunks can be split like the page's
  worker: { format: 'es' },
  server: {
    // `npm run dev:web`: the page with hot reload, the API from a server on :3000.
    proxy: { '/v1': 'http://127.0.0.1:3000' },
  },
});

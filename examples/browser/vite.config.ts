/**
 * Builds the browser example: `npx vite build --config examples/browser/vite.config.ts`
 * (output in dist/examples/browser). An app that installed the package would
 * need no alias: `@solitaire-solver/sdk` resolves to its `browser` entry. Here
 * the alias points at the sources of the same entry.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  publicDir: false,
  logLevel: 'warn',
  resolve: {
    alias: { '@solitaire-solver/sdk': fileURLToPath(new URL('../../client-sdk/sdk/browser.ts', import.meta.url)) },
  },
  build: {
    outDir: fileURLToPath(new URL('../../dist/examples/browser', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: false,
  },
});

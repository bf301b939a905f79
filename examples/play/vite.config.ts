/**
 * Builds the play example: `npx vite build --config examples/play/vite.config.ts`
 * (output in dist/examples/play). An app that installed the package would need
 * no aliases: `@solitaire-solver/sdk` resolves to its `browser` entry and
 * `@solitaire-solver/sdk/analysis-worker` to the worker side. Here they point
 * at the sources of the same entries.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const sdk = (file: string) => fileURLToPath(new URL(`../../client-sdk/sdk/${file}`, import.meta.url));

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  publicDir: false,
  logLevel: 'warn',
  resolve: {
    alias: [
      { find: '@solitaire-solver/sdk/analysis-worker', replacement: sdk('analysis-worker.ts') },
      { find: '@solitaire-solver/sdk', replacement: sdk('browser.ts') },
    ],
  },
  worker: { format: 'es' },
  build: {
    outDir: fileURLToPath(new URL('../../dist/examples/play', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: false,
  },
});

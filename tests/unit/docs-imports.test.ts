/**
 * Every `import … from '<package>'` in a code block of the README and docs/*.md
 * names something a reader can install: the SDK package by the name and
 * subpaths of its manifest (client-sdk/sdk.package.json `name`, `exports`),
 * one of its dependencies, or a `node:` module. The repository's own
 * package.json is private (`solitaire-solver`) and never published, so an
 * example importing it does not run outside this checkout.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';

const sdk = JSON.parse(readFileSync(join(ROOT, 'client-sdk/sdk.package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, unknown>;
  dependencies?: Record<string, string>;
};
const allowed = new Set<string>([
  ...Object.keys(sdk.exports).map((sub) => (sub === '.' ? sdk.name : `${sdk.name}/${sub.replace(/^\.\//, '')}`)),
  ...Object.keys(sdk.dependencies ?? {}),
]);

/** Bare module specifiers imported in the fenced code blocks of `text`. */
function bareImports(text: string): string[] {
  const out: string[] = [];
  for (const block of text.matchAll(/```[^\n]*\n([\s\S]*?)```/g)) {
    for (const m of block[1].matchAll(/\bfrom\s+['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g)) {
      const spec = m[1] ?? m[2];
      if (!spec.startsWith('.') && !spec.startsWith('/') && !spec.startsWith('#') && !spec.startsWith('node:')) out.push(spec);
    }
  }
  return out;
}

describe('imports in the docs', () => {
  const files = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  it.each(files)('%s imports only the SDK package, its dependencies and node: modules', (file) => {
    const specs = bareImports(readFileSync(join(ROOT, file), 'utf8'));
    for (const spec of specs) expect(allowed.has(spec), `${file} imports '${spec}'; the SDK is '${sdk.name}'`).toBe(true);
  });
});

/**
 * The SDK package's dependencies are what its code imports: the remote
 * client's import graph (client-sdk/sdk/client.ts) does not reach hono or
 * @hono/zod-openapi (the server's OpenAPI layer), and the packages the SDK's
 * entry points reach are exactly the dependencies of client-sdk/sdk.package.json.
 * The graph is read with TypeScript's own import scanner (`ts.preProcessFile`:
 * static, type-only and dynamic imports), from the sources, so it is fast.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';

/** Every file reached from `entries` by relative imports, and the bare specifiers' packages (node: builtins left out). */
function importGraph(entries: string[]): { files: Set<string>; packages: Map<string, string> } {
  const files = new Set<string>();
  const packages = new Map<string, string>(); // package -> first file importing it
  const todo = entries.map((e) => join(ROOT, e));
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName: spec } of importedFiles) {
      if (spec.startsWith('.')) {
        const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
        if (!existsSync(target)) throw new Error(`${file}: cannot resolve ${spec}`);
        todo.push(target);
      } else if (!spec.startsWith('node:') && !spec.startsWith('#')) {
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
        if (!packages.has(name)) packages.set(name, file.slice(ROOT.length + 1));
      }
    }
  }
  return { files, packages };
}

describe('SDK dependencies', () => {
  it('the remote client (client-sdk/sdk/client.ts) reaches neither hono nor @hono/*', () => {
    const { files, packages } = importGraph(['client-sdk/sdk/client.ts']);
    expect(files.size).toBeGreaterThan(3); // the scanner followed the schemas
    const hono = [...packages].filter(([name]) => name === 'hono' || name.startsWith('@hono/'));
    expect(hono, 'imported by').toEqual([]);
    expect([...packages.keys()]).toContain('zod');
  });

  it("the SDK's entry points import exactly the package's dependencies", () => {
    const { packages } = importGraph(['client-sdk/sdk/index.ts', 'client-sdk/sdk/browser.ts', 'client-sdk/sdk/analysis-worker.ts']);
    const manifest = JSON.parse(readFileSync(join(ROOT, 'client-sdk/sdk.package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect([...packages.keys()].sort()).toEqual(Object.keys(manifest.dependencies).sort());
    // the same versions as the service's own lockfile-pinned dependencies
    const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    for (const [name, version] of Object.entries(manifest.dependencies)) expect(root.dependencies[name], name).toBe(version);
  });
});

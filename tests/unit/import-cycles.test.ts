/**
 * No import cycle in the project's TypeScript (client-sdk/, server/, web/src/,
 * bench/, tests/, scripts/), type-only imports included: a cycle of types is a
 * type in the wrong file. The graph and the rules are dependency-cruiser's
 * (`.dependency-cruiser.cjs`; `npm run check:imports` runs this file alone);
 * a control cruise of a two-file, type-only cycle in a temporary folder shows
 * the check sees such a cycle, and a relative import that does not resolve
 * (an edge the check could not follow) fails too.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cruise, type ICruiseOptions, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';

/** The folders checked, relative to the checkout's root. */
const CHECKED = ['client-sdk', 'server', 'web/src', 'bench', 'tests', 'scripts'];

let options: ICruiseOptions;
let tsConfig: ReturnType<typeof extractTSConfig>;

/**
 * Cruises `paths` (relative to `baseDir`) with the repository's rules; the
 * result and its violations as `rule: a → b → a` lines.
 */
async function cruiseWithRules(baseDir: string, paths: string[]): Promise<{ result: ICruiseResult; violations: string[] }> {
  const { output } = await cruise(paths, { ...options, baseDir }, {}, { tsConfig });
  const result = output as ICruiseResult;
  const violations = result.summary.violations.map((v) => {
    const path = v.cycle !== undefined && v.cycle.length > 0 ? [v.from, ...v.cycle.map((c) => c.name)] : [v.from, v.to];
    return `${v.rule.name}: ${path.join(' → ')}`;
  });
  return { result, violations };
}

beforeAll(async () => {
  const configured = await extractDepcruiseOptions(join(ROOT, '.dependency-cruiser.cjs'));
  options = { ...configured, tsConfig: { fileName: join(ROOT, 'tsconfig.json') } };
  tsConfig = extractTSConfig(join(ROOT, 'tsconfig.json'));
});

describe('import cycles', () => {
  it('none in the project, type-only imports included', async () => {
    const { result, violations } = await cruiseWithRules(ROOT, CHECKED);
    expect(violations).toEqual([]);
    // the cruise read the project, and read its type-only imports
    const sources = result.modules.map((m) => m.source);
    for (const folder of CHECKED) expect(sources.some((s) => s.startsWith(`${folder}/`)), folder).toBe(true);
    const typeOnly = result.modules.flatMap((m) => m.dependencies).filter((d) => d.dependencyTypes.includes('type-only'));
    expect(typeOnly.length).toBeGreaterThan(50);
  });

  describe('the check itself (a temporary folder)', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'import-cycles-'));
      writeFileSync(join(dir, 'a.ts'), "import type { B } from './b.js';\nexport interface A { b?: B }\n");
      writeFileSync(join(dir, 'b.ts'), "import type { A } from './a.js';\nexport interface B { a?: A }\n");
      writeFileSync(join(dir, 'c.ts'), "import { missing } from './missing.js';\nexport const c = missing;\n");
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('reports a cycle of type-only imports', async () => {
      const { violations } = await cruiseWithRules(dir, ['a.ts', 'b.ts']);
      expect(violations.some((v) => v.startsWith('no-circular:') && v.includes('a.ts') && v.includes('b.ts')), violations.join('\n')).toBe(true);
    });

    it('reports a relative import that does not resolve', async () => {
      const { violations } = await cruiseWithRules(dir, ['c.ts']);
      expect(violations.some((v) => v.startsWith('no-unresolvable-relative:') && v.includes('missing')), violations.join('\n')).toBe(true);
    });
  });
});

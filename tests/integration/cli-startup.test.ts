/**
 * The CLI tools start without recompiling the engine:
 * `npm run solve`, `batch` and `build:sdk` run scripts/ensure-engine.mjs,
 * which builds build/engine.wasm only when it is missing or older than
 * assembly/.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';

describe('CLI start-up', () => {
  it('solve, batch and build:sdk check the engine instead of compiling it every run', () => {
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    for (const name of ['solve', 'batch', 'build:sdk']) {
      expect(scripts[name]).toMatch(/^node scripts\/ensure-engine\.mjs && /);
      expect(scripts[name]).not.toContain('asbuild');
    }
  });

  it('an up-to-date engine is left alone, not rebuilt', () => {
    const wasm = join(ROOT, 'build/engine.wasm');
    const before = statSync(wasm).mtimeMs;
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts/ensure-engine.mjs')], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(statSync(wasm).mtimeMs).toBe(before);
  });
});

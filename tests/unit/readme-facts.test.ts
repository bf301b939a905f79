/**
 * Facts the README states about the install, checked against the lock file:
 * the `npm warn install-scripts` note names every
 * package that has an install script, wherever the note lives (README.md or
 * docs/*.md, as the README is split).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';

describe('README facts', () => {
  it('the install-scripts note names every package npm lists with an install script', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> };
    const scripted = Object.entries(lock.packages)
      .filter(([, p]) => p.hasInstallScript)
      .map(([path]) => path.replace(/^.*node_modules\//, ''));
    expect(scripted.length).toBeGreaterThan(0);
    const docs = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const notes = docs
      .map((f) => readFileSync(join(ROOT, f), 'utf8'))
      .flatMap((text) => text.split(/\n\s*\n/))
      .filter((paragraph) => paragraph.includes('npm warn install-scripts'));
    expect(notes.length).toBeGreaterThan(0);
    for (const note of notes) {
      const flat = note.replace(/\s+/g, ' ');
      for (const name of scripted) expect(flat, `the note should name ${name}`).toContain(name);
      expect(flat).toContain(`${scripted.length} packages`);
    }
  });
});

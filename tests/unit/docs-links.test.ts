/**
 * Every relative link and image in the repository's Markdown files (README.md,
 * docs/*.md, the other READMEs) points at a file that exists, and every
 * `#anchor` at a heading of its target, slugged as GitHub slugs headings
 * (github-slugger). Links with a scheme (`https:`, `mailto:`) are not
 * followed: the tests run offline. Markdown is parsed with marked, so links
 * inside code blocks and code spans are not links.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import GithubSlugger from 'github-slugger';
import { type Token, type Tokens, lexer, walkTokens } from 'marked';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';

/** Top-level folders of built or run-time files, never searched for Markdown. */
const SKIP_TOP = new Set(['dist', 'build', 'data']);

/** Every `.md` file under `dir`, outside node_modules, dot-folders and {@link SKIP_TOP}. */
function markdownFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const skip = entry.name === 'node_modules' || entry.name.startsWith('.') || (dir === ROOT && SKIP_TOP.has(entry.name));
      if (!skip) out.push(...markdownFiles(path));
    } else if (entry.name.endsWith('.md')) {
      out.push(path);
    }
  }
  return out;
}

/** The plain text of inline tokens (what GitHub slugs a heading from). */
function plainText(tokens: Token[] | undefined, fallback: string): string {
  if (!tokens) return fallback;
  return tokens.map((t) => ('tokens' in t && t.tokens ? plainText(t.tokens, '') : 'text' in t ? String(t.text) : '')).join('');
}

const anchorCache = new Map<string, Set<string>>();

/** The anchors GitHub gives the headings of the Markdown file at `path`. */
function anchorsOf(path: string): Set<string> {
  let anchors = anchorCache.get(path);
  if (!anchors) {
    const slugger = new GithubSlugger();
    anchors = new Set();
    for (const token of lexer(readFileSync(path, 'utf8'))) {
      if (token.type === 'heading') anchors.add(slugger.slug(plainText((token as Tokens.Heading).tokens, token.text)));
    }
    anchorCache.set(path, anchors);
  }
  return anchors;
}

/**
 * The broken relative links of the Markdown file at `path`, as
 * `"target: why"` strings (empty when every link resolves).
 */
function brokenLinks(path: string): string[] {
  const broken: string[] = [];
  const hrefs: string[] = [];
  walkTokens(lexer(readFileSync(path, 'utf8')), (token) => {
    if (token.type === 'link' || token.type === 'image') hrefs.push((token as Tokens.Link | Tokens.Image).href);
  });
  for (const href of hrefs) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // https:, mailto:, ...: not followed offline
    const [rawPath, anchor] = href.split('#', 2);
    const target = rawPath === '' ? path : resolve(dirname(path), decodeURIComponent(rawPath));
    if (!existsSync(target)) {
      broken.push(`${href}: no such file`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (statSync(target).isDirectory() || !target.endsWith('.md')) {
      broken.push(`${href}: an anchor into a file that is not Markdown`);
    } else if (!anchorsOf(target).has(decodeURIComponent(anchor))) {
      broken.push(`${href}: no heading with anchor #${anchor}`);
    }
  }
  return broken;
}

describe('links in the Markdown documents', () => {
  const files = markdownFiles(ROOT);

  it('finds the README and the docs', () => {
    const names = files.map((f) => relative(ROOT, f));
    expect(names).toContain('README.md');
    expect(names).toContain(join('docs', 'rules.md'));
  });

  it.each(files.map((f) => [relative(ROOT, f), f]))('%s: every relative link and anchor resolves', (_name, file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it('reports a missing file, a missing anchor, and accepts good links (the checker itself)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'docs-links-'));
    try {
      writeFileSync(join(dir, 'b.md'), '# Title\n\n## The `redis` backend\n');
      writeFileSync(
        join(dir, 'a.md'),
        [
          '# A',
          '[ok](b.md) [ok anchor](b.md#the-redis-backend) [self](#a) [web](https://example.com/x)',
          '[gone](missing.md) [bad anchor](b.md#nothing) ![gone image](pics/none.png)',
          '`[not a link](nowhere.md)`',
          '```',
          '[not a link either](nowhere.md)',
          '```',
        ].join('\n'),
      );
      expect(brokenLinks(join(dir, 'a.md'))).toEqual([
        'missing.md: no such file',
        'b.md#nothing: no heading with anchor #nothing',
        'pics/none.png: no such file',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

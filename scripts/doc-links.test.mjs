// The Markdown the package ships links only to what it ships: every relative link in README.md,
// docs/*.md and the other packed pages resolves to a file in `npm pack`'s file list, and every
// #anchor to a heading of its page, so the docs work from node_modules/nestjs-mcp and from the
// npm registry's page as they do in a checkout.
//
// Usage: node --test scripts/doc-links.test.mjs   (part of npm run lint)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runNpm } from './run-npm.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The paths `npm pack` would put in the tarball (no build: only the file list is needed). */
function packedFiles() {
  const pack = runNpm(['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  assert.equal(pack.status, 0, `npm pack --dry-run failed:\n${pack.stderr}`);
  return JSON.parse(pack.stdout)[0].files.map((file) => file.path);
}

/** The page without its fenced code blocks and inline code, where brackets are not links. */
function prose(markdown) {
  return markdown
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')
    .replace(/`[^`\n]*`/g, (code) => ' '.repeat(code.length));
}

/** Link targets of a page: inline `[text](target)` and reference definitions `[id]: target`. */
export function linkTargets(markdown) {
  const text = prose(markdown);
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
  const references = [...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$/gm)].map(
    (m) => m[1],
  );
  return [...inline, ...references];
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen. */
export function anchorOf(heading) {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a page's headings, with GitHub's -1, -2 … for repeated ones. */
export function anchorsOf(markdown) {
  const anchors = new Set();
  const seen = new Map();
  for (const [, heading] of prose(markdown).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = anchorOf(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** What is wrong with each relative link of the packed pages, as `page: target — problem`. */
export function brokenLinks(files, read) {
  const shipped = new Set(files);
  const pages = files.filter((file) => file.endsWith('.md'));
  const anchors = new Map(pages.map((page) => [page, anchorsOf(read(page))]));
  const problems = [];
  for (const page of pages) {
    for (const target of linkTargets(read(page))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: …
      const [path, anchor] = target.split('#', 2);
      const file = path === '' ? page : posix.normalize(posix.join(posix.dirname(page), path));
      if (file.startsWith('../') || !shipped.has(file)) {
        problems.push(`${page}: ${target} — ${file} is not in the package`);
      } else if (anchor !== undefined && anchors.has(file) && !anchors.get(file).has(anchor)) {
        problems.push(`${page}: ${target} — ${file} has no heading #${anchor}`);
      }
    }
  }
  return problems;
}

describe('links in the Markdown the package ships', () => {
  it('find what they link to in the package', () => {
    const files = packedFiles();
    assert.ok(files.includes('README.md') && files.some((file) => file.startsWith('docs/')));
    assert.deepEqual(
      brokenLinks(files, (page) => readFileSync(join(ROOT, page), 'utf8')),
      [],
    );
  });

  it('are checked: a link to an unshipped file or a missing heading is reported', () => {
    const pages = {
      'README.md': '# Title\n\n[ok](docs/a.md#second-part) [gone](test/x.ts) [web](https://x.y)\n',
      'docs/a.md': '# A\n\n## Second part\n\n[up](../README.md#title) [bad](#third) `[no](link)`\n',
    };
    assert.deepEqual(
      brokenLinks(Object.keys(pages), (page) => pages[page]),
      [
        'README.md: test/x.ts — test/x.ts is not in the package',
        'docs/a.md: #third — docs/a.md has no heading #third',
      ],
    );
  });

  it('spell anchors as GitHub does', () => {
    assert.equal(
      anchorOf('2025-era clients (2025-11-25, 2025-06-18)'),
      '2025-era-clients-2025-11-25-2025-06-18',
    );
    assert.equal(anchorOf('Migrating from `@rekog/mcp-nest`'), 'migrating-from-rekogmcp-nest');
    assert.equal(anchorOf('Fleet: BullMQ'), 'fleet-bullmq');
    assert.deepEqual([...anchorsOf('# A\n## A\n```\n# not a heading\n```\n')], ['a', 'a-1']);
  });
});

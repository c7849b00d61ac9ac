// Every relative link in README.md and docs/ points at a file that exists: pages name the source
// files that implement them, and a moved file must not leave a page pointing at nothing.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pages = [
  path.join(root, 'README.md'),
  ...readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join(root, 'docs', name)),
];

/** The targets of [text](target) links that are paths in this repository (no scheme, not an anchor). */
function relativeLinks(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '');
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] as string)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('#'))
    .map((target) => decodeURIComponent(target.split('#')[0] as string));
}

describe('documentation links', () => {
  it('finds the links it is meant to find, and only those', () => {
    expect(relativeLinks('[a](../x.ts) [b](https://e.com) [c](#here) [d](y.md#part)\n```\n[e](z.md)\n```')).toEqual([
      '../x.ts',
      'y.md',
    ]);
  });

  for (const page of pages) {
    it(`${path.relative(root, page)}: every relative link resolves`, () => {
      const missing = relativeLinks(readFileSync(page, 'utf8')).filter(
        (target) => !existsSync(path.resolve(path.dirname(page), target)),
      );
      expect(missing).toEqual([]);
    });
  }
});

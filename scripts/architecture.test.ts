// Guards the layering in DESIGN.md: dependencies point one way (apps → ledgers → db / forest /
// summarizers → core), no package reaches into another's files, and each package's exports map is real.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ALLOWED: Record<string, string[]> = {
  core: [],
  db: ['core'],
  summarizers: ['core'],
  forest: ['core'],
  'events-ledger': ['core', 'db'],
  'agents-ledger': ['core', 'db', 'summarizers', 'forest'],
  runtime: ['core', 'summarizers', 'agents-ledger', 'events-ledger'],
  transcripts: ['core', 'agents-ledger'],
  server: ['core', 'agents-ledger', 'events-ledger'],
  cli: ['core', 'db', 'summarizers', 'forest', 'agents-ledger', 'events-ledger', 'runtime', 'transcripts', 'server'],
  // Test infrastructure: a loopback Messages API server. It depends on nothing; only tests use it.
  'loopback-api': [],
};
const TEST_ONLY = ['loopback-api'];
const isTestFile = (file: string) => /\.test\.ts$|[\\/]test[\\/]/.test(file);

function packageFolders(): Array<{ name: string; folder: string }> {
  return ['packages', 'apps'].flatMap((parent) =>
    readdirSync(path.join(root, parent)).map((name) => ({ name, folder: path.join(root, parent, name) })),
  );
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((entry) => {
    const full = path.join(folder, entry);
    if (statSync(full).isDirectory()) return entry === 'node_modules' ? [] : sourceFiles(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

describe('package layering', () => {
  for (const { name, folder } of packageFolders()) {
    it(`${name} imports only the packages below it, through their public entry`, () => {
      const allowed = ALLOWED[name];
      expect(allowed, `add ${name} to ALLOWED with the packages it may use`).toBeDefined();
      const manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8'));
      const declared = Object.keys(manifest.dependencies ?? {}).filter((dependency) => dependency.startsWith('@nexus/'));
      const declaredForTests = [...declared, ...Object.keys(manifest.devDependencies ?? {})];
      for (const file of sourceFiles(folder)) {
        const allowedHere = isTestFile(file) ? [...(allowed ?? []), ...TEST_ONLY] : allowed;
        const declaredHere = isTestFile(file) ? declaredForTests : declared;
        const text = readFileSync(file, 'utf8');
        for (const match of text.matchAll(/from '(@nexus\/[^']+)'/g)) {
          const specifier = match[1] as string;
          const [, target, ...deeper] = specifier.split('/');
          expect(deeper, `${path.relative(root, file)} reaches into ${specifier}`).toEqual([]);
          expect(allowedHere, `${path.relative(root, file)} imports ${specifier}`).toContain(target);
          expect(declaredHere, `${name}/package.json must declare ${specifier}`).toContain(specifier);
        }
      }
    });

    it(`${name} exports map points at files that exist`, () => {
      const manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8'));
      for (const target of Object.values(manifest.exports ?? {}) as string[]) {
        expect(existsSync(path.join(folder, target)), `${name} exports ${target}`).toBe(true);
      }
    });
  }
});

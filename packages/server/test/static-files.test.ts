// The viewer's files as the server hands them out: index.html at `/`, plain files of the folder at
// `/viewer/<file>` with their content type, the page locked to this origin by its CSP, and nothing
// else: no other folder, no traversal, no symlink out, no unknown type.

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fixture, openFixture } from './server-fixture.ts';

let folder: string;
let fixture: Fixture;

beforeAll(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'nexus-viewer-'));
  const viewer = path.join(folder, 'viewer');
  mkdirSync(viewer);
  mkdirSync(path.join(viewer, 'nested'));
  writeFileSync(path.join(viewer, 'index.html'), '<!doctype html><title>viewer</title>');
  writeFileSync(path.join(viewer, 'app.js'), 'export {};');
  writeFileSync(path.join(viewer, 'style.css'), 'body {}');
  writeFileSync(path.join(viewer, 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(path.join(viewer, 'shot.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  writeFileSync(path.join(viewer, 'notes.txt'), 'not served');
  writeFileSync(path.join(viewer, 'nested', 'deep.js'), 'export {};');
  writeFileSync(path.join(folder, 'secret.js'), 'secret');
  symlinkSync(path.join(folder, 'secret.js'), path.join(viewer, 'link.js'));
  fixture = openFixture({ viewerDirectory: viewer });
});
afterAll(async () => {
  await fixture.cleanup();
  rmSync(folder, { recursive: true, force: true });
});

describe('viewer files', () => {
  it('serves index.html at / with a CSP that keeps the page on this origin', async () => {
    const response = await fixture.app.request('/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'self'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).toContain("script-src 'self'");
    expect(await response.text()).toContain('<title>viewer</title>');
  });

  it('serves each plain file with its content type', async () => {
    const types: Record<string, string> = {
      'index.html': 'text/html; charset=utf-8',
      'app.js': 'text/javascript; charset=utf-8',
      'style.css': 'text/css; charset=utf-8',
      'icon.svg': 'image/svg+xml',
      'shot.png': 'image/png',
    };
    for (const [name, type] of Object.entries(types)) {
      const response = await fixture.app.request(`/viewer/${name}`);
      expect(response.status, name).toBe(200);
      expect(response.headers.get('content-type')).toBe(type);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }
    expect(Buffer.from(await (await fixture.app.request('/viewer/shot.png')).arrayBuffer())).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47]),
    );
  });

  it('answers 404 in the error shape for anything else', async () => {
    for (const url of [
      '/viewer/missing.js',
      '/viewer/notes.txt',
      '/viewer/nested/deep.js',
      '/viewer/nested%2Fdeep.js',
      '/viewer/link.js',
      '/viewer/..%2Fsecret.js',
      '/viewer/%2e%2e%2fsecret.js',
      '/viewer/.hidden.js',
      '/viewer/',
      '/secret.js',
    ]) {
      const response = await fixture.app.request(url);
      expect(response.status, url).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    }
  });

  it('serves the real viewer folder by default', async () => {
    const real = openFixture();
    try {
      const response = await real.app.request('/');
      expect(response.status).toBe(200);
      expect(await response.text()).toMatch(/<script type="module" src="\/viewer\/[\w-]+\.js"><\/script>/);
    } finally {
      await real.cleanup();
    }
  });
});

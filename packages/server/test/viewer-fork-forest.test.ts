// The viewer's pure helpers, run in Node: the sidebar's fork tree built from one session listing
// (every session exactly once, under its listed parent or as a root), the turn ids a summary
// cites, and how an importer's label is read and shortened. The page's modules are plain ES
// modules, imported here as they are served.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

interface ListedSession {
  id: string;
  parentSessionId: string | null;
  createdAt: number;
}

interface ForkForest {
  roots: ListedSession[];
  children: Map<string, ListedSession[]>;
}

// Imported by address: the viewer is browser JavaScript without type declarations.
const { forkForest } = (await import(new URL('../viewer/sessions.js', import.meta.url).href)) as {
  forkForest(sessions: ListedSession[]): ForkForest;
};
const { citedTurnIds } = (await import(new URL('../viewer/turn-item.js', import.meta.url).href)) as {
  citedTurnIds(summary: string): string[];
};

interface LabelParts {
  tool: string;
  project: string | null;
  date: string | null;
  title: string | null;
}
const { labelParts, folderTail, tailLengths } = (await import(new URL('../viewer/names.js', import.meta.url).href)) as {
  labelParts(label: string | null): LabelParts | null;
  folderTail(project: string, count?: number): string;
  tailLengths(projects: string[]): Map<string, number>;
};

/** Sessions whose parent is an earlier one, none, or one missing from the listing (paged out). */
const listings = fc
  .array(fc.record({ parent: fc.option(fc.nat(), { nil: null }), missingParent: fc.boolean(), createdAt: fc.nat(1000) }), {
    maxLength: 40,
  })
  .map((drafts) =>
    drafts.map((draft, index): ListedSession => {
      const id = `s_${String(index).padStart(4, '0')}`;
      if (draft.parent === null || index === 0) return { id, parentSessionId: null, createdAt: draft.createdAt };
      const parentSessionId = draft.missingParent ? `s_gone_${index}` : `s_${String(draft.parent % index).padStart(4, '0')}`;
      return { id, parentSessionId, createdAt: draft.createdAt };
    }),
  );

describe('the sidebar fork tree', () => {
  it('places every listed session exactly once: under its listed parent, else as a root', () => {
    fc.assert(
      fc.property(listings, fc.func(fc.integer()), (sessions, order) => {
        const shuffled = [...sessions].sort((left, right) => order(left.id) - order(right.id));
        const { roots, children } = forkForest(shuffled);
        const listed = new Set(sessions.map((session) => session.id));
        const placed = [...roots, ...[...children.values()].flat()].map((session) => session.id);
        expect(placed.sort()).toEqual([...listed].sort());
        for (const root of roots) expect(root.parentSessionId === null || !listed.has(root.parentSessionId)).toBe(true);
        for (const [parent, forks] of children) {
          expect(listed.has(parent)).toBe(true);
          for (const fork of forks) expect(fork.parentSessionId).toBe(parent);
          // Forks in creation order, as the ledger's tree lists them.
          const keys = forks.map((fork) => [fork.createdAt, fork.id] as const);
          const sorted = [...keys].sort((left, right) => left[0] - right[0] || left[1].localeCompare(right[1]));
          expect(keys).toEqual(sorted);
        }
      }),
    );
  });
});

describe('turn ids a summary cites', () => {
  it('finds each [t_…] once, in order, and nothing else', () => {
    expect(
      citedTurnIds(
        '[t_000001] PAY-1874 starts.\n[t_000003] pgbouncer 1.22.1 [see t_000009] and [t_000001] again; [x] [not an id]',
      ),
    ).toEqual(['t_000001', 't_000003']);
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^t_[A-Za-z0-9_-]{1,12}$/), { maxLength: 12 }), (ids) => {
        const summary = ids.map((id) => `[${id}] a line of the summary`).join('\n');
        expect(citedTurnIds(summary)).toEqual([...new Set(ids)]);
      }),
    );
  });
});

describe('session names', () => {
  it('reads an importer’s label into tool, folder, start and title, and leaves a person’s label alone', () => {
    expect(labelParts('claude-code /home/dev/payments-service 2026-05-01 09:00 · Fix the retry loop · again')).toEqual({
      tool: 'claude-code',
      project: '/home/dev/payments-service',
      date: '2026-05-01 09:00',
      title: 'Fix the retry loop · again',
    });
    expect(labelParts('codex C:\\Users\\dev\\my app 2026-05-03 10:15')).toEqual({
      tool: 'codex',
      project: 'C:\\Users\\dev\\my app',
      date: '2026-05-03 10:15',
      title: null,
    });
    expect(labelParts('pi /home/dev/ledger-ui · fork of 1234')).toMatchObject({ project: '/home/dev/ledger-ui', date: null });
    expect(labelParts('messages 2026-05-05 08:00')).toMatchObject({ project: null, date: '2026-05-05 08:00' });
    for (const label of ['pi notes', 'payments migration (PAY-1874)', 'codexes /x 2026-05-01 09:00', null])
      expect(labelParts(label)).toBeNull();
    expect(folderTail('C:\\Users\\dev\\my app')).toBe('my app');
  });

  it('shortens each folder to the fewest last segments no other folder ends with', () => {
    const lengths = tailLengths(['/home/a/api', '/srv/b/api', '/home/dev/web', '/home/dev/web', '/x/api', '/y/x/api']);
    expect(Object.fromEntries(lengths)).toEqual({
      '/home/a/api': 2,
      '/srv/b/api': 2,
      '/home/dev/web': 1,
      '/x/api': 2,
      '/y/x/api': 3,
    });
    // Unless one folder ends with another whole, the shortened folders all differ.
    const folders = fc.uniqueArray(
      fc.array(fc.constantFrom('a', 'b', 'api', 'web'), { minLength: 1, maxLength: 4 }).map((parts) => `/${parts.join('/')}`),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(folders, (projects) => {
        const apart = projects.filter((project) => !projects.some((other) => other !== project && other.endsWith(project)));
        const lengths = tailLengths(apart);
        const shown = apart.map((project) => folderTail(project, lengths.get(project)));
        expect(new Set(shown).size).toBe(apart.length);
      }),
    );
  });
});

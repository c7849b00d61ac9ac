// The viewer's pure helpers, run in Node: the sidebar's fork tree built from one session listing
// (every session exactly once, under its listed parent or as a root) and the turn ids a summary
// cites. The page's modules are plain ES modules, imported here as they are served.

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

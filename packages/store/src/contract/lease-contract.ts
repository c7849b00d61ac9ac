// The lease part of the store contract: one holder at a time for a named piece of work, taken when
// free or expired, renewed by its holder, released only by its holder, and never granted to two
// askers at once. Through the async interface only.

import { describe, expect, it } from 'vitest';
import { openPerCase } from './open-per-case.ts';
import type { StoreUnderTest } from './store-under-test.ts';

export function leaseContract(subject: StoreUnderTest): void {
  describe('leases', () => {
    const open = openPerCase(subject);

    it('is taken when free, refused to another holder until it expires, renewed by its own holder', async () => {
      const store = await open();
      const ask = (holder: string, now: number, expiresAt: number) =>
        store.acquireLease({ name: 'import:/w/a.jsonl', holder, now, expiresAt });
      expect(await ask('one', 1_000, 2_000)).toBe(true);
      expect(await ask('two', 1_500, 2_500)).toBe(false);
      // Its holder renews it: the expiry moves, another asker still waits.
      expect(await ask('one', 1_900, 3_000)).toBe(true);
      expect(await ask('two', 2_500, 3_500)).toBe(false);
      // Expired (a holder that crashed): the next asker takes it, and the old holder is refused.
      expect(await ask('two', 3_000, 4_000)).toBe(true);
      expect(await ask('one', 3_100, 4_100)).toBe(false);
      // Leases are by name: another name is free.
      expect(await store.acquireLease({ name: 'import:/w/b.jsonl', holder: 'one', now: 3_100, expiresAt: 4_100 })).toBe(true);
    });

    it('is released only by its holder', async () => {
      const store = await open();
      const lease = { name: 'compact:s1', now: 1_000, expiresAt: 60_000 };
      expect(await store.acquireLease({ ...lease, holder: 'one' })).toBe(true);
      await store.releaseLease({ name: 'compact:s1', holder: 'two' });
      expect(await store.acquireLease({ ...lease, holder: 'two' })).toBe(false);
      await store.releaseLease({ name: 'compact:s1', holder: 'one' });
      expect(await store.acquireLease({ ...lease, holder: 'two' })).toBe(true);
    });

    it('names its holder, expired or not, and is taken over from a named holder by compare-and-set', async () => {
      const store = await open();
      const lease = { name: 'compact:s2', now: 1_000, expiresAt: 60_000 };
      expect(await store.leaseHolder('compact:s2')).toBeNull();
      expect(await store.acquireLease({ ...lease, holder: 'dead' })).toBe(true);
      expect(await store.leaseHolder('compact:s2')).toBe('dead');
      // Replacing someone who no longer holds it takes nothing.
      expect(await store.acquireLease({ ...lease, holder: 'two', replacing: 'someone-else' })).toBe(false);
      // Of two askers replacing the same holder, the first takes it and the second is refused.
      expect(await store.acquireLease({ ...lease, holder: 'two', replacing: 'dead' })).toBe(true);
      expect(await store.acquireLease({ ...lease, holder: 'three', replacing: 'dead' })).toBe(false);
      expect(await store.leaseHolder('compact:s2')).toBe('two');
      await store.releaseLease({ name: 'compact:s2', holder: 'two' });
      expect(await store.leaseHolder('compact:s2')).toBeNull();
    });

    it('goes to exactly one of many askers at once', async () => {
      const store = await open();
      const holders = Array.from({ length: 12 }, (_, index) => `holder-${index}`);
      const answers = await Promise.all(
        holders.map((holder) => store.acquireLease({ name: 'import:/w/race.jsonl', holder, now: 1_000, expiresAt: 9_000 })),
      );
      expect(answers.filter(Boolean)).toHaveLength(1);
    });
  });
}

// A map that keeps the entries used most recently: reading an entry makes it the newest, and past
// the capacity the least recently used goes first. The ledger's in-process caches (loaded forests,
// topic lines' values) are this with a capacity.

export class LruMap<V> {
  private readonly entries = new Map<string, V>();
  private readonly capacity: number;

  constructor(capacity: number) {
    // At least one entry: eviction runs after each insert.
    this.capacity = Math.max(1, Math.floor(capacity));
  }

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  /** Removes an entry and returns it. */
  take(key: string): V | undefined {
    const value = this.entries.get(key);
    this.entries.delete(key);
    return value;
  }
}

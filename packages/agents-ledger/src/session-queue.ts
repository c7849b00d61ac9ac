// Appends to one session from one ledger run one after another. The store's compare-and-set keeps
// the chain right whatever the order, but two appends planned on the same head in one process
// would only make each other retry: queueing them costs nothing and leaves retries to writers in
// other processes.

export class SessionQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(sessionId);
    const result = previous ? previous.then(work, work) : work();
    const tail = result.catch(() => undefined);
    this.tails.set(sessionId, tail);
    // Forget the session once its queue drains, so the map holds only sessions being written.
    void tail.then(() => {
      if (this.tails.get(sessionId) === tail) this.tails.delete(sessionId);
    });
    return result;
  }
}

// Tells live viewers that a session changed. Writes made through this server announce themselves
// at once; writes from other processes (the CLI, another server) are found by polling the session's
// head, an O(1) read, so every subscriber sees them within one poll interval.

export type SessionSignal =
  | { type: 'head'; sessionId: string; headTurnId: string | null }
  | { type: 'compaction'; sessionId: string; turnId: string };

type Listener = (signal: SessionSignal) => void;

export class SessionSignals {
  readonly #listeners = new Map<string, Set<Listener>>();

  /** Calls `listener` for each signal of `sessionId` until the returned function is called. */
  subscribe(sessionId: string, listener: Listener): () => void {
    let listeners = this.#listeners.get(sessionId);
    if (!listeners) {
      listeners = new Set();
      this.#listeners.set(sessionId, listeners);
    }
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.#listeners.delete(sessionId);
    };
  }

  publish(signal: SessionSignal): void {
    for (const listener of [...(this.#listeners.get(signal.sessionId) ?? [])]) listener(signal);
  }

  /** Subscribers, for tests that check a closed stream let go of its listener. */
  listenerCount(sessionId: string): number {
    return this.#listeners.get(sessionId)?.size ?? 0;
  }
}

// Fair turns for clients that write one session with `expectedHeadTurnId`. A 409 tells its client
// the new head and how long to wait (Retry-After, jittered so the losers do not all come back at
// once). Waiting alone is not fair: the client that just won learns the head first and comes
// straight back, so it keeps winning while another keeps losing (57 times in a row for one turn,
// six clients, before this). So a write that succeeds on a session whose losers are still retrying
// answers only once they had their turn: when no 409 was answered on that session for `quietMs`
// (and never later than `maxHoldMs`). The write itself is committed at once; only its answer waits,
// and only on a session with conflicts. Per process: writers in other processes are not seen.

export interface HeadContentionOptions {
  /** A session is contended until this long after its last 409 (default 100 ms). */
  quietMs?: number;
  /** The longest a successful write's answer is held (default 2 s). */
  maxHoldMs?: number;
  /** The wait a 409 asks for is drawn from [minRetryMs, maxRetryMs] (default 5–25 ms). */
  minRetryMs?: number;
  maxRetryMs?: number;
  /** The jitter's source (default Math.random). */
  random?: () => number;
}

const DEFAULTS = { quietMs: 100, maxHoldMs: 2000, minRetryMs: 5, maxRetryMs: 25 };
/** Past this many contended sessions, the stale ones are forgotten on the next conflict. */
const SWEEP_ABOVE = 256;

export class HeadContention {
  private readonly settings: typeof DEFAULTS;
  private readonly random: () => number;
  /** When (performance.now()) the last 409 was answered, per session with recent conflicts. */
  private readonly lastConflict = new Map<string, number>();

  constructor(options: HeadContentionOptions = {}) {
    const { random, ...rest } = options;
    this.settings = { ...DEFAULTS, ...definedOnly(rest) };
    // The losers' waits must end inside the quiet window, or a held winner is let go before they return.
    if (this.settings.maxRetryMs >= this.settings.quietMs) this.settings.maxRetryMs = Math.floor(this.settings.quietMs / 2);
    this.random = random ?? Math.random;
  }

  /** Records a 409 on `sessionId`; returns how long its client should wait before retrying, in ms. */
  conflicted(sessionId: string): number {
    if (this.lastConflict.size > SWEEP_ABOVE) this.forgetQuietSessions();
    this.lastConflict.set(sessionId, performance.now());
    const { minRetryMs, maxRetryMs } = this.settings;
    return Math.round(minRetryMs + this.random() * Math.max(0, maxRetryMs - minRetryMs));
  }

  /** Resolves when `sessionId` has had no conflict for the quiet window, or after the longest hold. */
  async settled(sessionId: string): Promise<void> {
    const { quietMs, maxHoldMs } = this.settings;
    const started = performance.now();
    for (;;) {
      const last = this.lastConflict.get(sessionId);
      if (last === undefined) return;
      const now = performance.now();
      if (now - last >= quietMs) {
        this.lastConflict.delete(sessionId);
        return;
      }
      const holdLeft = maxHoldMs - (now - started);
      if (holdLeft <= 0) return;
      await new Promise((resolve) => setTimeout(resolve, Math.min(quietMs - (now - last), holdLeft)));
    }
  }

  private forgetQuietSessions(): void {
    const now = performance.now();
    for (const [sessionId, last] of this.lastConflict) {
      if (now - last >= this.settings.quietMs) this.lastConflict.delete(sessionId);
    }
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}

// What every route module gets: the two ledgers, the signals that wake live streams, the
// per-session record of head conflicts that keeps retrying writers fair, and whether the ledger can
// search by meaning.

import type { AgentsLedger } from '@agent-ledger/agents-ledger';
import type { EventsLedger } from '@agent-ledger/events-ledger';
import type { HeadContention } from '../head-contention.ts';
import type { SessionSignals } from '../session-signals.ts';
import type { StreamOptions } from '../session-stream.ts';

export interface RouteContext {
  ledger: AgentsLedger;
  events: EventsLedger;
  signals: SessionSignals;
  contention: HeadContention;
  stream: Pick<StreamOptions, 'pollIntervalMs' | 'heartbeatMs' | 'shutdown'>;
  /** Set when the ledger has no embedder: why search by meaning is refused, and what to set (HttpAppOptions). */
  noEmbedderAdvice?: string;
}

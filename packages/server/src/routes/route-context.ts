// What every route module gets: the two ledgers, the signals that wake live streams, and the
// per-session record of head conflicts that keeps retrying writers fair.

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
}

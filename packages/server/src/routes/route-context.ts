// What every route module gets: the two ledgers and the signals that wake live streams.

import type { AgentsLedger } from '@agent-ledger/agents-ledger';
import type { EventsLedger } from '@agent-ledger/events-ledger';
import type { SessionSignals } from '../session-signals.ts';
import type { StreamOptions } from '../session-stream.ts';

export interface RouteContext {
  ledger: AgentsLedger;
  events: EventsLedger;
  signals: SessionSignals;
  stream: Pick<StreamOptions, 'pollIntervalMs' | 'heartbeatMs' | 'shutdown'>;
}

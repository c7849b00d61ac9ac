// Stored rows to LedgerEvents: the payload goes back from canonical text to a value.

import type { LedgerEvent } from '@nexus/core';
import type { EventRow } from '@nexus/db';

export function eventFromRow(row: EventRow): LedgerEvent {
  return { ...row, payload: JSON.parse(row.payload) };
}

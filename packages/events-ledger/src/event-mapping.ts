// Stored records to LedgerEvents: the payload goes back from canonical text to a value.

import type { LedgerEvent } from '@agent-ledger/core';
import type { EventRecord } from '@agent-ledger/store';

export function eventFromRow(row: EventRecord): LedgerEvent {
  return {
    id: row.id,
    channel: row.channel,
    externalId: row.externalId,
    author: row.author,
    kind: row.kind,
    payload: JSON.parse(row.payload),
    occurredAt: row.occurredAt,
    receivedAt: row.receivedAt,
    seq: row.seq,
    prevHash: row.prevHash,
    hash: row.hash,
  };
}

// The hash chain: each event's hash covers every stored field of it and the hash of the channel's
// previous event, so changing, removing or reordering any stored event breaks every later link.

import { createHash } from 'node:crypto';
import type { EventRow } from '@nexus/db';
import { canonicalJson } from './canonical-json.ts';

export type HashedFields = Omit<EventRow, 'hash' | 'searchText'>;

export function eventHash(fields: HashedFields): string {
  // `payload` is already canonical JSON text; it is hashed as that string.
  const encoded = canonicalJson({
    author: fields.author,
    channel: fields.channel,
    externalId: fields.externalId,
    id: fields.id,
    kind: fields.kind,
    occurredAt: fields.occurredAt,
    payload: fields.payload,
    prevHash: fields.prevHash,
    receivedAt: fields.receivedAt,
    seq: fields.seq,
  });
  return createHash('sha256').update(encoded, 'utf8').digest('hex');
}

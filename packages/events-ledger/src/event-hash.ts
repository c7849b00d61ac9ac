// The hash chain: each event's hash covers every stored field of it and the hash of the channel's
// previous event, so changing, removing or reordering any stored event breaks every later link.

import { hash } from 'node:crypto';
import { canonicalJson } from '@agent-ledger/core';
import type { EventRecord } from '@agent-ledger/store';

export type HashedFields = Omit<EventRecord, 'hash' | 'searchText'>;

export function eventHash(fields: HashedFields): string {
  // The one-shot hash: a Hash object per event cost as much again as the digest.
  return hash('sha256', hashedText(fields), 'hex');
}

/**
 * The canonical JSON of the hashed fields (keys sorted; `payload`, already canonical JSON text, is
 * hashed as that string). Written out field by field for the fields of a stored event; anything
 * else goes through canonicalJson, which is what this must equal byte for byte.
 */
function hashedText(fields: HashedFields): string {
  const { author, channel, externalId, id, kind, occurredAt, payload, prevHash, receivedAt, seq } = fields;
  if (
    (author === null || typeof author === 'string') &&
    typeof channel === 'string' &&
    typeof externalId === 'string' &&
    typeof id === 'string' &&
    typeof kind === 'string' &&
    Number.isFinite(occurredAt) &&
    typeof payload === 'string' &&
    (prevHash === null || typeof prevHash === 'string') &&
    Number.isFinite(receivedAt) &&
    Number.isFinite(seq)
  ) {
    return (
      `{"author":${author === null ? 'null' : JSON.stringify(author)},"channel":${JSON.stringify(channel)},` +
      `"externalId":${JSON.stringify(externalId)},"id":${JSON.stringify(id)},"kind":${JSON.stringify(kind)},` +
      `"occurredAt":${JSON.stringify(occurredAt)},"payload":${JSON.stringify(payload)},` +
      `"prevHash":${prevHash === null ? 'null' : JSON.stringify(prevHash)},"receivedAt":${JSON.stringify(receivedAt)},` +
      `"seq":${JSON.stringify(seq)}}`
    );
  }
  return canonicalJson({
    author,
    channel,
    externalId,
    id,
    kind,
    occurredAt,
    payload,
    prevHash,
    receivedAt,
    seq,
  });
}

// Events as the event part of the store contract writes them: drafts keyed by channel and external
// id, sealed into records by a stand-in for the events ledger's hash, and the checks of a chain.

import { expect } from 'vitest';
import type { AppendEvents, EventKey, EventRecord, EventTail, LedgerStore } from '../index.ts';

export interface Draft extends EventKey {
  author?: string | null;
  payload?: string;
  occurredAt?: number;
}

let ids = 0;

/** A deterministic stand-in for the events ledger's hash: distinct per (record, previous hash). */
function fakeHash(record: Omit<EventRecord, 'hash'>): string {
  return `h(${record.channel}#${record.seq}:${record.id}<-${record.prevHash ?? '∅'})`;
}

/** The record the events ledger would seal for `draft` on `tail`; ids are unique across the suite. */
export function recordFor(draft: Draft, tail: EventTail | null, receivedAt = 5_000): EventRecord {
  ids += 1;
  const record = {
    id: `e_contract_${ids}`,
    channel: draft.channel,
    externalId: draft.externalId,
    author: draft.author ?? null,
    kind: 'message',
    payload: draft.payload ?? `{"text":"${draft.channel} ${draft.externalId}"}`,
    occurredAt: draft.occurredAt ?? 1_000,
    receivedAt,
    seq: (tail?.seq ?? 0) + 1,
    prevHash: tail?.hash ?? null,
    searchText: `${draft.channel} ${draft.externalId}`,
  };
  return { ...record, hash: fakeHash(record) };
}

/** An append whose seal records each call (index and the tail it was given). */
export function batchOf(drafts: readonly Draft[]): AppendEvents & { sealed: Array<{ index: number; tail: EventTail | null }> } {
  const sealed: Array<{ index: number; tail: EventTail | null }> = [];
  return {
    events: drafts,
    sealed,
    seal: (index, tail) => {
      sealed.push({ index, tail });
      return recordFor(drafts[index] as Draft, tail);
    },
  };
}

/** Every event of a channel, in seq order. */
export async function wholeChannel(store: LedgerStore, channel: string): Promise<EventRecord[]> {
  return store.eventPage({ channel, limit: 1_000_000 });
}

/** Seqs 1..n without gaps, each prevHash the hash before it. */
export function expectChain(records: readonly EventRecord[]): void {
  expect(records.map((record) => record.seq)).toEqual(records.map((_, index) => index + 1));
  records.forEach((record, index) => {
    expect(record.prevHash).toBe(index === 0 ? null : records[index - 1]?.hash);
  });
}

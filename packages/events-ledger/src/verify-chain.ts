// Walks each channel's hash chain in sequence order and reports the first link that does not hold:
// a hash that does not match its event, a prevHash that does not match the previous event, or a
// gap in the sequence. Reads a page at a time.

import type { StoreOperations } from '@agent-ledger/store';
import { channelNames } from './channel-names.ts';
import type { CheckpointProblem } from './checkpoint.ts';
import { eventHash } from './event-hash.ts';

export interface BrokenLink {
  channel: string;
  seq: number;
  eventId: string | null;
  reason: string;
}

export interface VerifyResult {
  ok: boolean;
  /** Events whose link was checked. */
  checked: number;
  channels: number;
  firstBroken?: BrokenLink;
  /** With a checkpoint: each channel now shorter than it, or different at its seq. */
  checkpointProblems?: CheckpointProblem[];
}

export async function verifyChains(
  store: StoreOperations,
  options: { channel?: string; pageSize?: number } = {},
): Promise<VerifyResult> {
  const channels = await channelNames(store, options.channel);
  let checked = 0;
  for (const channel of channels) {
    const result = await verifyChannel(store, channel, options.pageSize ?? 1000);
    checked += result.checked;
    if (result.broken) return { ok: false, checked, channels: channels.length, firstBroken: result.broken };
  }
  return { ok: true, checked, channels: channels.length };
}

async function verifyChannel(
  store: StoreOperations,
  channel: string,
  pageSize: number,
): Promise<{ checked: number; broken?: BrokenLink }> {
  let previous = null as { seq: number; hash: string } | null;
  let checked = 0;
  for (;;) {
    const page = await store.eventPage({ channel, afterSeq: previous?.seq ?? 0, limit: pageSize });
    for (const row of page) {
      const expectedSeq: number = (previous?.seq ?? 0) + 1;
      const broken = (reason: string): { checked: number; broken: BrokenLink } => ({
        checked,
        broken: { channel, seq: row.seq, eventId: row.id, reason },
      });
      if (row.seq !== expectedSeq) return broken(`sequence gap: expected seq ${expectedSeq}, found ${row.seq}`);
      if (row.prevHash !== (previous?.hash ?? null)) {
        return broken(`prevHash ${row.prevHash ?? 'null'} does not match the previous event's hash ${previous?.hash ?? 'null'}`);
      }
      const { hash, searchText: _derived, ...fields } = row;
      if (eventHash(fields) !== hash) return broken('hash does not match the event: a stored field was changed');
      checked += 1;
      previous = { seq: row.seq, hash: row.hash };
    }
    if (page.length < pageSize) return { checked };
  }
}

// Anchoring each channel's tail. A hash chain proves every event links to the one before it, but a
// chain cut short (the newest events deleted) is still a valid chain: only a record of where it
// ended, kept somewhere else, can tell. A checkpoint is that record — each channel's last seq and
// hash — and verifying against one finds a channel that is now shorter or has a different event at
// that seq.

import { InvalidInputError } from '@agent-ledger/core';
import type { StoreOperations } from '@agent-ledger/store';
import { channelNames } from './channel-names.ts';

export const CHECKPOINT_FORMAT = 'nexus-events-checkpoint/v1';

export interface ChannelHead {
  channel: string;
  seq: number;
  hash: string;
}

export interface EventsCheckpoint {
  format: typeof CHECKPOINT_FORMAT;
  /** When it was taken, ms since the epoch. */
  takenAt: number;
  channels: ChannelHead[];
}

export interface CheckpointProblem {
  channel: string;
  /** The seq the checkpoint recorded for the channel. */
  seq: number;
  reason: 'shorter' | 'diverges';
  message: string;
}

/**
 * Each channel's newest event (or the one channel asked for): one indexed read per channel, after
 * listing the channels (a walk of the (channel, seq) index). A channel asked for that holds no event
 * is refused, so a mistyped name cannot produce a checkpoint that anchors nothing.
 */
export async function takeCheckpoint(store: StoreOperations, now: number, channel?: string): Promise<EventsCheckpoint> {
  const heads: ChannelHead[] = [];
  for (const name of await channelNames(store, channel)) {
    const tail = await store.channelTail(name);
    if (tail) heads.push({ channel: name, seq: tail.seq, hash: tail.hash });
  }
  if (channel !== undefined && heads.length === 0) {
    const known = await channelNames(store);
    throw new InvalidInputError(
      `channel ${JSON.stringify(channel)} has no events to anchor; ${known.length === 0 ? 'the ledger has no events yet' : `known channels: ${known.slice(0, 20).join(', ')}${known.length > 20 ? ', …' : ''}`}.`,
      'channel',
    );
  }
  return { format: CHECKPOINT_FORMAT, takenAt: now, channels: heads };
}

/** Every channel of the checkpoint that no longer reaches its recorded head with the same hash. */
export async function checkAgainstCheckpoint(store: StoreOperations, checkpoint: EventsCheckpoint): Promise<CheckpointProblem[]> {
  const problems: CheckpointProblem[] = [];
  for (const head of checkpoint.channels) {
    const stored = await store.eventAtSeq(head.channel, head.seq);
    if (!stored) {
      const last = await store.channelTail(head.channel);
      problems.push({
        channel: head.channel,
        seq: head.seq,
        reason: 'shorter',
        message: `${head.channel} ends at seq ${last?.seq ?? 0}, but the checkpoint recorded seq ${head.seq}: events were removed from its end.`,
      });
    } else if (stored.hash !== head.hash) {
      problems.push({
        channel: head.channel,
        seq: head.seq,
        reason: 'diverges',
        message: `${head.channel} seq ${head.seq} has hash ${stored.hash.slice(0, 16)}…, the checkpoint recorded ${head.hash.slice(0, 16)}…: the chain was rewritten.`,
      });
    }
  }
  return problems;
}

/** A checkpoint read back from JSON, checked field by field so a damaged file gets a clear error. */
export function parseCheckpoint(value: unknown): EventsCheckpoint {
  const record = value as Partial<EventsCheckpoint> | null;
  if (typeof record !== 'object' || record === null || record.format !== CHECKPOINT_FORMAT || !Array.isArray(record.channels)) {
    throw new InvalidInputError(
      `not an events checkpoint: expected {"format": "${CHECKPOINT_FORMAT}", "channels": [...]} as checkpoint() returns it.`,
      'checkpoint',
    );
  }
  record.channels.forEach((head, index) => {
    const ok =
      typeof head === 'object' &&
      head !== null &&
      typeof head.channel === 'string' &&
      Number.isInteger(head.seq) &&
      head.seq >= 1 &&
      typeof head.hash === 'string';
    if (!ok)
      throw new InvalidInputError(`checkpoint channels[${index}] needs a channel, a seq (1 or more) and a hash.`, 'checkpoint');
  });
  return { format: CHECKPOINT_FORMAT, takenAt: Number(record.takenAt ?? 0), channels: record.channels };
}

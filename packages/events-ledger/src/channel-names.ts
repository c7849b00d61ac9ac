// The channels a whole-ledger walk visits: the one asked for, or every channel in name order.

import { assertStorableText } from '@agent-ledger/core';
import type { StoreOperations } from '@agent-ledger/store';

export async function channelNames(store: StoreOperations, channel?: string): Promise<string[]> {
  if (channel === undefined) return store.eventChannels();
  // No channel holding a lone surrogate or a NUL is ever stored: asked for one, a walk would find
  // no events and answer "intact", so it is refused as append refuses it.
  assertStorableText(channel, 'channel');
  return [channel];
}

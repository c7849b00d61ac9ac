// The channels a whole-ledger walk visits: the one asked for, or every channel in name order.

import type { StoreOperations } from '@agent-ledger/store';

export async function channelNames(store: StoreOperations, channel?: string): Promise<string[]> {
  if (channel !== undefined) return [channel];
  return store.eventChannels();
}

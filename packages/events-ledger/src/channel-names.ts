// The channels a whole-ledger walk visits: the one asked for, or every channel in name order.

import { events, type LedgerDatabase } from '@nexus/db';
import { asc } from 'drizzle-orm';

export function channelNames(database: LedgerDatabase, channel?: string): string[] {
  if (channel !== undefined) return [channel];
  return database.db
    .selectDistinct({ channel: events.channel })
    .from(events)
    .orderBy(asc(events.channel))
    .all()
    .map((row) => row.channel);
}

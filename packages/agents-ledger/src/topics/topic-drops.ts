// Which topics a session has dropped. A drop stops a topic being injected into the session's
// contexts and taking new members; nothing is deleted, and a restore is a newer row, so the record
// of who dropped what, and when, stays.

import { type LedgerDrizzle, topicDrops } from '@nexus/db';
import { and, asc, eq } from 'drizzle-orm';

/** Topic ids whose newest row in this session says dropped. */
export function activeDrops(db: LedgerDrizzle, sessionId: string): Set<string> {
  const latest = new Map<string, boolean>();
  for (const row of db.select().from(topicDrops).where(eq(topicDrops.sessionId, sessionId)).orderBy(asc(topicDrops.id)).all()) {
    latest.set(row.clusterId, row.dropped);
  }
  return new Set([...latest].filter(([, dropped]) => dropped).map(([clusterId]) => clusterId));
}

export function isDropped(db: LedgerDrizzle, sessionId: string, clusterId: string): boolean {
  const rows = db
    .select({ dropped: topicDrops.dropped })
    .from(topicDrops)
    .where(and(eq(topicDrops.sessionId, sessionId), eq(topicDrops.clusterId, clusterId)))
    .orderBy(asc(topicDrops.id))
    .all();
  return rows.at(-1)?.dropped ?? false;
}

export function recordDrop(db: LedgerDrizzle, sessionId: string, clusterId: string, dropped: boolean, at: number): void {
  db.insert(topicDrops).values({ sessionId, clusterId, dropped, at }).run();
}

/** A fork starts with its source's drops (a few rows, whatever the history's length). */
export function copyDrops(db: LedgerDrizzle, fromSessionId: string, toSessionId: string, at: number): void {
  for (const clusterId of activeDrops(db, fromSessionId)) recordDrop(db, toSessionId, clusterId, true, at);
}

// Moving a whole ledger from one store to another (`nexus copy`): SQLite to PostgreSQL, back, or
// any pair, through the store interface only. Everything keeps its ids: events their seq, prev
// hash, hash and payload bytes, turns every column, sessions their settings and times. It pages
// through the source (a page of rows in memory at a time, never the ledger) and writes in an order
// the target's foreign keys accept:
//
//   events (every channel, in seq order)      before the turns that cite them
//   a session, then its turns in depth order  (its compactions after what they summarize, each
//                                              union-find compaction's forest with it)
//   then the sessions forked from it           (a fork's fork point is in its parent's turns)
//   topic drops, transcript sources and lines, turn embeddings: after every turn
//
// The target must be empty: a copy into a ledger that holds something would mix two histories.
// The source should not be written while it is copied (a write that lands mid-copy may be missed).

import { InvalidInputError, StorageError } from '@agent-ledger/core';
import type { EventRecord } from './event-store.ts';
import type { ForestWrite } from './forest-store.ts';
import type { LedgerStore } from './ledger-store.ts';
import type { SessionRecord, StoredTurn, TurnEventLink, TurnRecord } from './records.ts';

/** What a copy wrote, by kind. */
export interface CopyLedgerCounts {
  channels: number;
  events: number;
  sessions: number;
  /** Normal and compaction turns. */
  turns: number;
  compactions: number;
  eventLinks: number;
  forests: number;
  topicDrops: number;
  transcriptSources: number;
  transcriptLines: number;
  embeddings: number;
}

export type CopyLedgerStage = 'events' | 'sessions' | 'topic drops' | 'transcripts' | 'embeddings' | 'done';

export interface CopyLedgerProgress {
  stage: CopyLedgerStage;
  copied: Readonly<CopyLedgerCounts>;
  /** The source's turns, every session and kind (what `copied.turns` counts up to). */
  totalTurns: number;
}

export interface CopyLedgerOptions {
  /** Called after each page written (and once at the end, stage `done`). */
  onProgress?: (progress: CopyLedgerProgress) => void;
  /** Rows read and written at a time (default 500). */
  pageSize?: number;
}

const DEFAULT_PAGE_SIZE = 500;
/** Past any turn's depth (PostgreSQL stores depth as a 32-bit integer, and refuses a bound beyond it). */
const LAST_DEPTH = 2 ** 31 - 1;

/** Copies every row of `from` into the empty `to`; resolves with what it copied. */
export async function copyLedger(from: LedgerStore, to: LedgerStore, options: CopyLedgerOptions = {}): Promise<CopyLedgerCounts> {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1)
    throw new InvalidInputError('pageSize must be a whole number ≥ 1.', 'pageSize');
  if (to.readonly) throw new InvalidInputError(`Cannot copy into ${to.location}: it is open read-only.`, 'to');
  await requireEmpty(to);
  const copied: CopyLedgerCounts = {
    channels: 0,
    events: 0,
    sessions: 0,
    turns: 0,
    compactions: 0,
    eventLinks: 0,
    forests: 0,
    topicDrops: 0,
    transcriptSources: 0,
    transcriptLines: 0,
    embeddings: 0,
  };
  const totalTurns = await from.countTurns();
  const report = (stage: CopyLedgerStage) => options.onProgress?.({ stage, copied: { ...copied }, totalTurns });
  const copy = { from, to, pageSize, copied, report };

  await copyEvents(copy);
  await copySessions(copy);
  await copyTopicDrops(copy);
  await copyTranscripts(copy);
  await copyEmbeddings(copy);
  report('done');
  return copied;
}

interface Copy {
  from: LedgerStore;
  to: LedgerStore;
  pageSize: number;
  copied: CopyLedgerCounts;
  report(stage: CopyLedgerStage): void;
}

async function requireEmpty(to: LedgerStore): Promise<void> {
  const sessions = await to.listSessions({ limit: 1, offset: 0 });
  const channels = await to.eventChannels();
  if (sessions.length === 0 && channels.length === 0) return;
  const holds = [sessions.length > 0 ? 'sessions' : null, channels.length > 0 ? 'events' : null].filter(Boolean).join(' and ');
  throw new InvalidInputError(
    `Cannot copy into ${to.location}: it already holds ${holds}. A copy keeps every id and hash, so it goes into an ` +
      'empty ledger only (a new file, or a new PostgreSQL database); merging two ledgers is not supported.',
    'to',
  );
}

async function copyEvents({ from, to, pageSize, copied, report }: Copy): Promise<void> {
  for (const channel of await from.eventChannels()) {
    copied.channels += 1;
    let afterSeq: number | undefined;
    for (;;) {
      const page = await from.eventPage({ channel, limit: pageSize, ...(afterSeq === undefined ? {} : { afterSeq }) });
      if (page.length === 0) break;
      const appended = await to.appendEvents({
        events: page.map((event) => ({ channel: event.channel, externalId: event.externalId })),
        // The stored record as it is: it continues the target's tail exactly when the source's chain is whole.
        seal: (index, tail) => continuing(page[index] as EventRecord, tail),
      });
      if (appended.some((event) => event.duplicate)) {
        throw new StorageError(`Copying channel ${channel}: the target already held some of its events.`);
      }
      copied.events += page.length;
      afterSeq = (page.at(-1) as EventRecord).seq;
      report('events');
      if (page.length < pageSize) break;
    }
  }
}

function continuing(event: EventRecord, tail: { seq: number; hash: string } | null): EventRecord {
  if (event.seq !== (tail?.seq ?? 0) + 1 || event.prevHash !== (tail?.hash ?? null)) {
    throw new StorageError(
      `Cannot copy event ${event.id} (${event.channel} #${event.seq}): it does not continue the copied chain ` +
        `(tail #${tail?.seq ?? 0}). Verify the source's event chains first (the events ledger's verify()).`,
    );
  }
  return event;
}

/** Every session, each before the sessions forked from it (roots from the paged list, forks by descent). */
async function copySessions(copy: Copy): Promise<void> {
  for (let offset = 0; ; offset += copy.pageSize) {
    const page = await copy.from.listSessions({ limit: copy.pageSize, offset });
    for (const session of page) {
      if (session.parentSessionId === null) await copySessionTree(copy, session);
    }
    if (page.length < copy.pageSize) break;
  }
}

async function copySessionTree(copy: Copy, root: SessionRecord): Promise<void> {
  // Depth-first with an explicit stack: a deep chain of forks never grows the call stack.
  const pending: SessionRecord[] = [root];
  for (let session = pending.pop(); session; session = pending.pop()) {
    await copySession(copy, session);
    const children = await copy.from.childSessions(session.id);
    pending.push(...children.reverse());
  }
}

async function copySession({ from, to, pageSize, copied, report }: Copy, session: SessionRecord): Promise<void> {
  // A session starts where it was created: empty, or at its fork point; its turns then move the head.
  let head = session.forkedFromTurnId;
  await to.insertSession({ ...session, headTurnId: head });
  copied.sessions += 1;
  let fromDepth = 0;
  for (;;) {
    const page = await from.chainPage({ sessionId: session.id, fromDepth, toDepth: LAST_DEPTH, limit: pageSize });
    if (page.length === 0) break;
    const links = await from.eventIdsByTurn(page.map((turn) => turn.id));
    const eventLinks: TurnEventLink[] = page.flatMap((turn) =>
      (links.get(turn.id) ?? []).map((eventId) => ({ turnId: turn.id, eventId })),
    );
    const forests: ForestWrite[] = [];
    for (const turn of page) {
      if (turn.turnType !== 'compaction') continue;
      const state = await from.getForestState(turn.id);
      if (state) forests.push({ state, nodes: await from.forestNodes(turn.id), clusters: await from.forestClusters(turn.id) });
    }
    const expectedHeadTurnId = head;
    await to.transaction(async (tx) => {
      const outcome = await tx.appendToSession({
        sessionId: session.id,
        expectedHeadTurnId,
        turns: page.map(turnRecordOf),
        eventLinks,
      });
      if (!outcome.written) {
        throw new StorageError(`Copying session ${session.id}: its head moved in the target while the copy wrote it.`);
      }
      // After the page's turns: a forest belongs to its compaction, and continues only earlier forests.
      for (const forest of forests) await tx.writeForest(forest);
    });
    const last = page.at(-1) as StoredTurn;
    head = last.id;
    fromDepth = last.depth + 1;
    copied.turns += page.length;
    copied.compactions += page.filter((turn) => turn.turnType === 'compaction').length;
    copied.eventLinks += eventLinks.length;
    copied.forests += forests.length;
    report('sessions');
    if (page.length < pageSize) break;
  }
  if (head !== session.headTurnId) {
    throw new StorageError(
      `Copying session ${session.id}: its turns end at ${head ?? 'nothing'}, but its head is ${session.headTurnId ?? 'empty'} ` +
        '(was the source written during the copy?).',
    );
  }
}

function turnRecordOf(turn: StoredTurn): TurnRecord {
  const { hasChildren: _derived, ...record } = turn;
  return record;
}

async function copyTopicDrops({ from, to, pageSize, copied, report }: Copy): Promise<void> {
  let afterPosition: number | undefined;
  for (;;) {
    const page = await from.topicDropPage({ limit: pageSize, ...(afterPosition === undefined ? {} : { afterPosition }) });
    if (page.length === 0) break;
    // In the source's order: a topic's newest row decides whether it is dropped.
    await to.transaction(async (tx) => {
      for (const { position: _position, ...drop } of page) await tx.recordTopicDrop(drop);
    });
    copied.topicDrops += page.length;
    afterPosition = page.at(-1)?.position;
    report('topic drops');
    if (page.length < pageSize) break;
  }
}

async function copyTranscripts({ from, to, pageSize, copied, report }: Copy): Promise<void> {
  let afterKey: string | undefined;
  for (;;) {
    const sources = await from.transcriptSourcePage({ limit: pageSize, ...(afterKey === undefined ? {} : { afterKey }) });
    for (const source of sources) {
      await to.insertTranscriptSource(source);
      copied.transcriptSources += 1;
      let afterLineId: string | undefined;
      for (;;) {
        const lines = await from.transcriptLinePage(source.key, {
          limit: pageSize,
          ...(afterLineId === undefined ? {} : { afterLineId }),
        });
        if (lines.length === 0) break;
        await to.recordTranscriptLines(source.key, lines);
        copied.transcriptLines += lines.length;
        afterLineId = lines.at(-1)?.lineId;
        report('transcripts');
        if (lines.length < pageSize) break;
      }
    }
    if (sources.length < pageSize) break;
    afterKey = sources.at(-1)?.key;
  }
}

async function copyEmbeddings({ from, to, pageSize, copied, report }: Copy): Promise<void> {
  let after: { model: string; turnId: string } | undefined;
  for (;;) {
    const page = await from.turnEmbeddingPage({ limit: pageSize, ...(after === undefined ? {} : { after }) });
    if (page.length === 0) break;
    const byModel = new Map<string, Array<{ turnId: string; vector: Float32Array }>>();
    for (const { model, turnId, vector } of page) {
      const list = byModel.get(model);
      if (list) list.push({ turnId, vector });
      else byModel.set(model, [{ turnId, vector }]);
    }
    await to.transaction(async (tx) => {
      for (const [model, embeddings] of byModel) await tx.putTurnEmbeddings(model, embeddings);
    });
    copied.embeddings += page.length;
    const last = page.at(-1);
    after = last ? { model: last.model, turnId: last.turnId } : undefined;
    report('embeddings');
    if (page.length < pageSize) break;
  }
}

// A session and its forks as one pi session file (version 3): the session's whole line, then each
// fork's own turns as a branch from its fork point, compactions as `compaction` entries. Streams
// line by line. Importing the file back gives the same turns, compactions and forks, and the
// session's label.
//
// What the ledger knows that pi has no field for rides in a `nexus` block, which pi ignores: on the
// header, the session's id and label (the pi reader takes that label instead of making one up, and
// that is how it tells our header from one pi wrote); on the first entry of each fork's branch, the
// fork's id and label (the import still names a branch after the session: the writer takes no
// label per fork yet). The ledger keeps no working directory (an importer folds a tool's cwd into
// the label it makes), so the header has no `cwd` rather than an empty one.

import type { AgentsLedger, SessionTree } from '@agent-ledger/agents-ledger';
import type { CompactionTurn, NormalTurn, Session, Turn } from '@agent-ledger/core';

type Json = Record<string, unknown>;

export async function* exportPi(ledger: AgentsLedger, sessionId: string): AsyncGenerator<string> {
  const session = await ledger.getSession(sessionId);
  const ids = new Map<string, string>();
  let counter = 0;
  /** pi ids are 8 hex digits; ours become 00000001, 00000002… in file order. */
  const nextId = () => {
    counter += 1;
    return counter.toString(16).padStart(8, '0');
  };
  yield line({
    type: 'session',
    version: 3,
    id: `nexus-${session.id}`,
    timestamp: new Date(session.createdAt).toISOString(),
    nexus: nexusBlock(session),
  });
  /** The turns as entries; the first entry written names `starts`, the fork it begins. */
  const emit = async function* (turns: AsyncIterable<Turn> | Iterable<Turn>, starts?: Session) {
    let first = starts === undefined ? null : nexusBlock(starts);
    for await (const turn of turns) {
      const parentId = turn.parentTurnId === null ? null : (ids.get(turn.parentTurnId) ?? null);
      for (const entry of entriesOf(turn, parentId, nextId, ids)) {
        yield line(first ? { ...entry, nexus: first } : entry);
        first = null;
      }
    }
  };
  if (session.headTurnId) yield* emit(ledger.getFullHistory(session.headTurnId));
  const visit = async function* (tree: SessionTree): AsyncGenerator<string> {
    for (const fork of tree.forks) {
      const head = fork.session.headTurnId;
      if (head) yield* emit(ledger.getFullHistory(head, { ownTurnsOnly: true }), fork.session);
      yield* visit(fork);
    }
  };
  yield* visit(await ledger.tree(sessionId));
}

/** What pi has no field for: the ledger session's id, and its label when it has one. */
function nexusBlock(session: Session): Json {
  return { sessionId: session.id, ...(session.label === null ? {} : { label: session.label }) };
}

function line(entry: Json): string {
  return `${JSON.stringify(entry)}\n`;
}

/** One turn as pi entries (a tool_result turn is one toolResult message per result, chained). */
function entriesOf(turn: Turn, parentId: string | null, nextId: () => string, ids: Map<string, string>): Json[] {
  const timestamp = new Date(turn.timestamp).toISOString();
  if (turn.turnType === 'compaction') return [compactionEntry(turn, { parentId, nextId, ids, timestamp })];
  const entries: Json[] = [];
  let parent = parentId;
  const push = (message: Json) => {
    const id = nextId();
    entries.push({ type: 'message', id, parentId: parent, timestamp, message: { ...message, timestamp: turn.timestamp } });
    parent = id;
  };
  const results = turn.content.filter((block) => block.type === 'tool_result');
  for (const result of results) {
    const text = typeof result.content === 'string' ? result.content : (result.content ?? []).map((part) => part.text).join('\n');
    push({
      role: 'toolResult',
      toolCallId: result.tool_use_id,
      toolName: '',
      content: text === '' ? [] : [{ type: 'text', text }],
      isError: result.is_error === true,
    });
  }
  const rest = turn.content.filter((block) => block.type !== 'tool_result');
  if (rest.length > 0) push(messageOf(turn, rest));
  ids.set(turn.id, parent as string);
  return entries;
}

function messageOf(turn: NormalTurn, blocks: NormalTurn['content']): Json {
  const content = blocks.map((block) =>
    block.type === 'tool_use'
      ? { type: 'toolCall', id: block.id, name: block.name, arguments: block.input }
      : { type: 'text', text: block.type === 'text' ? block.text : '' },
  );
  if (turn.role === 'user') return { role: 'user', content };
  return {
    role: 'assistant',
    content,
    api: 'anthropic-messages',
    provider: 'nexus',
    model: turn.model ?? 'unknown',
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: turn.toolCallCount > 0 ? 'toolUse' : 'stop',
  };
}

/** Where an entry goes in the file: its parent's pi id, the id maker, the ids given so far, its time. */
interface EntryPlace {
  parentId: string | null;
  nextId: () => string;
  ids: Map<string, string>;
  timestamp: string;
}

function compactionEntry(turn: CompactionTurn, { parentId, nextId, ids, timestamp }: EntryPlace): Json {
  const id = nextId();
  ids.set(turn.id, id);
  // pi keeps the entries from firstKeptEntryId to the compaction; with none kept, it names itself.
  const firstKept = turn.firstKeptTurnId ? (ids.get(turn.firstKeptTurnId) ?? id) : id;
  return {
    type: 'compaction',
    id,
    parentId,
    timestamp,
    summary: turn.summary,
    firstKeptEntryId: firstKept,
    tokensBefore: turn.tokensBefore,
  };
}

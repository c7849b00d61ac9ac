// The baseline file-based agents use today: a session is a JSONL file of entries that name their
// parent (a tree, as in pi's session files); building the context reads the whole file, walks the
// path from the root to the leaf and starts from its latest compaction; forking writes a new file
// holding the path to the fork point. Written from the same history the ledger holds, so both answer
// the same question on the same data.

import { once } from 'node:events';
import { createReadStream, createWriteStream, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { BuiltHistory } from './build-history.ts';
import type { TimedOperation } from './measure.ts';

export const JSONL_CONTEXT = 'JSONL file baseline: buildContext at head';
export const JSONL_FORK = 'JSONL file baseline: forkFrom head';

interface Entry {
  id: string;
  parentId: string | null;
  type: 'message' | 'compaction';
  role?: string;
  content?: unknown;
  summary?: string;
  firstKeptTurnId?: string | null;
}

/** Streams the ledger's history at the head into a JSONL file, one entry per line. */
export async function writeJsonlSession(history: BuiltHistory, path: string): Promise<void> {
  const out = createWriteStream(path);
  for await (const turn of history.ledger.getFullHistory(history.headTurnId)) {
    const entry: Entry =
      turn.turnType === 'compaction'
        ? {
            id: turn.id,
            parentId: turn.parentTurnId,
            type: 'compaction',
            summary: turn.summary,
            firstKeptTurnId: turn.firstKeptTurnId,
          }
        : { id: turn.id, parentId: turn.parentTurnId, type: 'message', role: turn.role, content: turn.content };
    if (!out.write(`${JSON.stringify(entry)}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/**
 * Every entry of the file, read line by line: a million-turn session is over 512 MB, more than
 * one JavaScript string can hold, so reading the whole file into a string fails there.
 */
async function readEntries(path: string): Promise<Map<string, Entry>> {
  const entries = new Map<string, Entry>();
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    if (!line) continue;
    const entry = JSON.parse(line) as Entry;
    entries.set(entry.id, entry);
  }
  return entries;
}

/** Root-to-leaf path of `leafId`, as a file-based agent computes it on every load. */
function pathTo(entries: Map<string, Entry>, leafId: string): Entry[] {
  const path: Entry[] = [];
  for (let entry = entries.get(leafId); entry; entry = entry.parentId ? entries.get(entry.parentId) : undefined) path.push(entry);
  return path.reverse();
}

/** The messages a context would hold: the latest compaction's summary, then the entries from its firstKept. */
export async function jsonlContext(path: string, leafId: string): Promise<number> {
  const branch = pathTo(await readEntries(path), leafId);
  let start = 0;
  let summary = '';
  for (let index = branch.length - 1; index >= 0; index -= 1) {
    const entry = branch[index] as Entry;
    if (entry.type !== 'compaction') continue;
    summary = entry.summary ?? '';
    const kept = branch.findIndex((candidate) => candidate.id === entry.firstKeptTurnId);
    start = kept >= 0 ? kept : index + 1;
    break;
  }
  const messages = branch.slice(start).filter((entry) => entry.type === 'message');
  return messages.length + (summary ? 1 : 0);
}

export async function jsonlFork(path: string, leafId: string, forkPath: string): Promise<void> {
  const branch = pathTo(await readEntries(path), leafId);
  const out = createWriteStream(forkPath);
  for (const entry of branch) if (!out.write(`${JSON.stringify(entry)}\n`)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
  rmSync(forkPath);
}

export function jsonlOperations(history: BuiltHistory, path: string): TimedOperation[] {
  const size = history.turns;
  return [
    { name: JSONL_CONTEXT, size, run: () => jsonlContext(path, history.headTurnId) },
    { name: JSONL_FORK, size, run: () => jsonlFork(path, history.headTurnId, `${path}.fork.jsonl`) },
  ];
}

// doctor() on union-find forests stored in a real SQLite file, corrupted through the driver: the
// forest tables refuse UPDATE and DELETE, so each corruption is an INSERT a buggy writer could make
// (or, for the compaction's recorded topics, an edit of the turn row, which no trigger guards).

import { withTurnTriggersLifted } from '@agent-ledger/store-sqlite/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentsLedger } from '../src/index.ts';
import { openTempLedger, SMALL_SETTINGS, type TempLedger } from './builders.ts';
import { appendTopics, forestRows, rawSql, roundRobinPlan, topicMembers, withRawSqlite } from './topic-builders.ts';

let temp: TempLedger;
afterEach(() => temp?.cleanup());

/** A union-find session compacted twice: c1's forest, then c2's on top of it. */
async function twoForests() {
  temp = openTempLedger();
  const { ledger } = temp;
  const session = await ledger.createSession({ settings: SMALL_SETTINGS, strategy: 'union-find' });
  const first = await appendTopics(ledger, session.id, roundRobinPlan(6));
  const c1 = await ledger.compact(session.id);
  const second = await appendTopics(ledger, session.id, roundRobinPlan(3), first.ids.length);
  const c2 = await ledger.compact(session.id);
  expect(await ledger.doctor()).toEqual([]);
  return { ledger, session, first, second, c1, c2 };
}

function nextPosition(ledger: AgentsLedger, compactionId: string): number {
  const row = rawSql(ledger)
    .prepare('SELECT coalesce(max(position), -1) + 1 AS next FROM forest_nodes WHERE compaction_id = ?')
    .get(compactionId) as { next: number };
  return row.next;
}

function insertNode(ledger: AgentsLedger, node: { compactionId: string; nodeId: string; parentId: string; kind: string }) {
  rawSql(ledger)
    .prepare('INSERT INTO forest_nodes (compaction_id, node_id, parent_id, kind, position) VALUES (?, ?, ?, ?, ?)')
    .run(node.compactionId, node.nodeId, node.parentId, node.kind, nextPosition(ledger, node.compactionId));
}

describe('doctor on corrupted forests', () => {
  it('reports TWO_COMPACTORS when a later compaction of the chain graduates a turn again', async () => {
    const { ledger, first, c2 } = await twoForests();
    const twice = first.ids[0] as string;
    expect((await ledger.findTopic(twice)).compactionId).toBe(c2.id);
    insertNode(ledger, { compactionId: c2.id, nodeId: twice, parentId: twice, kind: 'graduated' });
    const problems = await ledger.doctor();
    expect(problems).toEqual([{ code: 'TWO_COMPACTORS', message: expect.any(String), ids: expect.any(Array) }]);
    expect(problems[0]?.ids).toEqual(expect.arrayContaining([c2.id, twice]));
    expect(problems[0]?.message).toContain(twice);
  });

  it('reports NODE_NOT_COVERED for a node after what the compaction summarized', async () => {
    const { ledger, second, c2 } = await twoForests();
    const kept = second.ids.at(-1) as string;
    expect((await ledger.findTopic(kept)).clusterId).toBeNull();
    insertNode(ledger, { compactionId: c2.id, nodeId: kept, parentId: kept, kind: 'graduated' });
    const problems = await ledger.doctor();
    expect(problems).toContainEqual({ code: 'NODE_NOT_COVERED', message: expect.any(String), ids: [c2.id, kept] });
    // Replaying it finds a root no topic records, which doctor reports as well.
    expect(problems.map((problem) => problem.code).sort()).toEqual(['FOREST_BROKEN', 'NODE_NOT_COVERED']);
  });

  it('reports FOREST_CYCLE when merges make two roots point at each other', async () => {
    const { ledger, session, c2 } = await twoForests();
    const [a, b] = await ledger.topics(session.id);
    if (!a || !b) throw new Error('need two topics');
    insertNode(ledger, { compactionId: c2.id, nodeId: a.id, parentId: b.id, kind: 'merged' });
    // A second row for the same node in the same compaction is refused by the primary key, so the
    // cycle closes through the other root.
    insertNode(ledger, { compactionId: c2.id, nodeId: b.id, parentId: a.id, kind: 'merged' });
    const codes = (await ledger.doctor()).map((problem) => problem.code);
    expect(codes).toEqual(['FOREST_CYCLE']);
  });

  it('reports TOPICS_MISMATCH when the compaction records topics its forest does not hold', async () => {
    const { ledger, session, c2 } = await twoForests();
    const [topic] = await ledger.topics(session.id);
    if (!topic) throw new Error('no topic');
    withRawSqlite(ledger, (sqlite) =>
      withTurnTriggersLifted(sqlite, () =>
        sqlite
          .prepare("UPDATE agent_turns SET metadata = json_set(metadata, '$.topics[0].members', ?) WHERE id = ?")
          .run(topic.members + 1, c2.id),
      ),
    );
    const problems = await ledger.doctor();
    // The edit also breaks the compaction's link in the turns' hash chain.
    expect(problems).toEqual([
      { code: 'TOPICS_MISMATCH', message: expect.any(String), ids: [c2.id, topic.id] },
      { code: 'TURN_HASH_MISMATCH', message: expect.any(String), ids: [c2.id] },
    ]);
  });

  it('reports SELF_COMPACTION and FOREST_WITHOUT_COMPACTION for rows no compaction would write', async () => {
    const { ledger, first, c2 } = await twoForests();
    insertNode(ledger, { compactionId: c2.id, nodeId: first.ids[1] as string, parentId: c2.id, kind: 'merged' });
    const codes = (await ledger.doctor()).map((problem) => problem.code);
    expect(codes).toContain('SELF_COMPACTION');

    const flatTemp = openTempLedger();
    try {
      const flatLedger = flatTemp.ledger;
      const flatSession = await flatLedger.createSession({ settings: SMALL_SETTINGS });
      await appendTopics(flatLedger, flatSession.id, roundRobinPlan(6));
      const flat = await flatLedger.compact(flatSession.id);
      rawSql(flatLedger)
        .prepare(
          "INSERT INTO forest_states (compaction_id, session_id, previous_compaction_id, seed_compaction_id, config, clock, document_count, changed_terms) VALUES (?, ?, NULL, NULL, '{}', 0, 0, '{}')",
        )
        .run(flat.id, flatSession.id);
      expect(await flatLedger.doctor()).toEqual([
        { code: 'FOREST_WITHOUT_COMPACTION', message: expect.any(String), ids: [flat.id] },
      ]);
    } finally {
      flatTemp.cleanup();
    }
  });
});

describe('forest rows are write-once', () => {
  it('UPDATE, DELETE and INSERT OR REPLACE on the forest tables are refused and change nothing', async () => {
    const { ledger, session, c1 } = await twoForests();
    await ledger.dropTopic(((await ledger.topics(session.id))[0] as { id: string }).id);
    const before = forestRows(ledger);
    const membersBefore = await topicMembers(ledger, session.id);
    const sqlite = rawSql(ledger);
    const attempts = [
      ['UPDATE forest_nodes SET parent_id = node_id WHERE compaction_id = ?', 'forest_nodes'],
      ['DELETE FROM forest_nodes WHERE compaction_id = ?', 'forest_nodes'],
      ['UPDATE forest_clusters SET members = members + 1 WHERE compaction_id = ?', 'forest_clusters'],
      ['DELETE FROM forest_clusters WHERE compaction_id = ?', 'forest_clusters'],
      ['UPDATE forest_states SET clock = clock + 1 WHERE compaction_id = ?', 'forest_states'],
      ['DELETE FROM forest_states WHERE compaction_id = ?', 'forest_states'],
      // INSERT OR REPLACE deletes the old row without firing DELETE triggers: refused before it runs.
      ['INSERT OR REPLACE INTO forest_nodes SELECT * FROM forest_nodes WHERE compaction_id = ?', 'forest_nodes'],
      ['INSERT OR REPLACE INTO forest_clusters SELECT * FROM forest_clusters WHERE compaction_id = ?', 'forest_clusters'],
      ['INSERT OR REPLACE INTO forest_states SELECT * FROM forest_states WHERE compaction_id = ?', 'forest_states'],
    ] as const;
    for (const [statement, table] of attempts) {
      expect(() => sqlite.prepare(statement).run(c1.id), statement).toThrow(`${table} is write-once`);
    }
    expect(() => sqlite.prepare('UPDATE topic_drops SET dropped = 0').run()).toThrow('topic_drops is write-once');
    expect(() => sqlite.prepare('DELETE FROM topic_drops').run()).toThrow('topic_drops is write-once');
    expect(() => sqlite.prepare('INSERT OR REPLACE INTO topic_drops SELECT * FROM topic_drops').run()).toThrow(
      'topic_drops is write-once',
    );
    expect(forestRows(ledger)).toEqual(before);
    expect(await topicMembers(ledger, session.id)).toEqual(membersBefore);
    expect(await ledger.doctor()).toEqual([]);
  });
});

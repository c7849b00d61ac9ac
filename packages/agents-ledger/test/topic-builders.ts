// Helpers for the union-find tests: turns about a few topics with vocabularies that never overlap
// (the filler between topic words is stopwords only, so two topics share no term), a summarizer that
// counts and can fail on demand, and readers for the stored forest rows.

import { SummarizerError, type Turn } from '@agent-ledger/core';
import { openRawSqlite, type RawSqlite } from '@agent-ledger/store-sqlite/testing';
import {
  createExtractiveSummarizer,
  type SummarizeInput,
  type SummarizeResult,
  type Summarizer,
} from '@agent-ledger/summarizers';
import type { AgentsLedger, AppendTurnInput } from '../src/index.ts';
import { storeOf } from '../src/testing.ts';
import { toolResultTurn, toolUseTurn } from './builders.ts';

export const TOPIC_VOCABULARY = {
  postgres: [
    'postgres',
    'replica',
    'vacuum',
    'autovacuum',
    'wal',
    'checkpoint',
    'pgbouncer',
    'tablespace',
    'planner',
    'btree',
    'toast',
    'sequence',
  ],
  prometheus: [
    'prometheus',
    'alertmanager',
    'scrape',
    'grafana',
    'exporter',
    'promql',
    'cardinality',
    'histogram',
    'thanos',
    'silence',
    'pagerduty',
    'dashboard',
  ],
  backups: [
    'backups',
    'snapshot',
    'restic',
    'retention',
    'offsite',
    'restore',
    'tarball',
    'rsync',
    'glacier',
    'encryption',
    'bucket',
    'nightly',
  ],
} as const;

export type TopicName = keyof typeof TOPIC_VOCABULARY;
export const TOPIC_NAMES = Object.keys(TOPIC_VOCABULARY) as TopicName[];

/**
 * A turn's text about `topic`: its anchor word and seven rotating words of its vocabulary, glued
 * with stopwords only. `extra` words (a unique marker to search for) are appended as a sentence.
 */
export function topicText(topic: TopicName, variant: number, extra = ''): string {
  const words = TOPIC_VOCABULARY[topic];
  const pick = (offset: number) => words[1 + ((variant * 3 + offset) % (words.length - 1))] as string;
  const anchor = words[0];
  const text =
    `The ${anchor} and the ${pick(0)} with the ${pick(1)}, then the ${pick(2)} after the ${pick(3)}. ` +
    `Again the ${pick(4)} and the ${pick(5)} before the ${pick(6)} of the ${anchor}.`;
  return extra ? `${text} ${extra}.` : text;
}

/** The topic whose words a text holds, or null when it holds none or several topics' words. */
export function topicOfText(text: string): TopicName | null {
  const words = new Set(text.toLowerCase().match(/[a-z]+/g) ?? []);
  const found = TOPIC_NAMES.filter((topic) => TOPIC_VOCABULARY[topic].some((word) => words.has(word)));
  return found.length === 1 ? (found[0] as TopicName) : null;
}

/** The topic of a stored turn (by its text, tool blocks included). */
export function topicOfTurn(turn: Turn): TopicName | null {
  if (turn.turnType !== 'normal') return null;
  const text = turn.content
    .map((block) =>
      block.type === 'text'
        ? block.text
        : block.type === 'tool_use'
          ? JSON.stringify(block.input)
          : typeof block.content === 'string'
            ? block.content
            : '',
    )
    .join(' ');
  return topicOfText(text);
}

/** One turn per entry of `plan`, roles alternating from a user turn (at `start` even). */
export function topicTurns(plan: readonly TopicName[], start = 0): AppendTurnInput[] {
  return plan.map((topic, index) => {
    const position = start + index;
    const content = topicText(topic, position);
    return { role: position % 2 === 0 ? 'user' : 'assistant', content };
  });
}

/** `rounds` of every topic in turn, `perTopic` turns each: [pg, pg, prom, prom, backups, backups, …]. */
export function roundRobinPlan(rounds: number, perTopic = 2, topics: readonly TopicName[] = TOPIC_NAMES): TopicName[] {
  const plan: TopicName[] = [];
  for (let round = 0; round < rounds; round += 1)
    for (const topic of topics) for (let k = 0; k < perTopic; k += 1) plan.push(topic);
  return plan;
}

/** An assistant tool call about `topic` and the user turn carrying its result. */
export function topicToolExchange(topic: TopicName, toolId: string, variant: number): AppendTurnInput[] {
  const tool = { postgres: 'psql', prometheus: 'promtool', backups: 'restic' }[topic];
  return [
    toolUseTurn(toolId, tool, { [tool]: topicText(topic, variant) }),
    toolResultTurn(toolId, topicText(topic, variant + 1)),
  ];
}

/** Appends `plan` as turns and returns their ids with the topic of each. */
export async function appendTopics(
  ledger: AgentsLedger,
  sessionId: string,
  plan: readonly TopicName[],
  start = 0,
): Promise<{ ids: string[]; topicOf: Map<string, TopicName> }> {
  const turns = await ledger.appendTurns(sessionId, topicTurns(plan, start));
  const ids = turns.map((turn) => turn.id);
  return { ids, topicOf: new Map(ids.map((id, index) => [id, plan[index] as TopicName])) };
}

export interface CountingSummarizer extends Summarizer {
  /** Every request, failed ones included, in call order. */
  readonly calls: SummarizeInput[];
  readonly failures: SummarizeInput[];
  /** Turns sent in all calls since the last reset. */
  turnsSent(): string[];
  reset(): void;
}

/**
 * The extractive summarizer behind a counter. With `failWhen`, a request it matches is rejected
 * with a SummarizerError, as a model call can be; `failWhen` may be changed between compactions.
 */
export function countingSummarizer(options: { failWhen?: (input: SummarizeInput) => boolean } = {}): CountingSummarizer & {
  failWhen: ((input: SummarizeInput) => boolean) | undefined;
} {
  const inner = createExtractiveSummarizer();
  const calls: SummarizeInput[] = [];
  const failures: SummarizeInput[] = [];
  const summarizer = {
    name: 'counting',
    calls,
    failures,
    failWhen: options.failWhen,
    turnsSent: () => calls.flatMap((call) => call.turns.map((turn) => turn.id)),
    reset() {
      calls.length = 0;
      failures.length = 0;
    },
    async summarize(input: SummarizeInput): Promise<SummarizeResult> {
      calls.push(input);
      if (summarizer.failWhen?.(input)) {
        failures.push(input);
        throw new SummarizerError('model unavailable for this request', 'counting');
      }
      return inner.summarize(input);
    },
  };
  return summarizer;
}

/** Whether a summarizer request carries `word` in any turn or previous summary. */
export function requestMentions(input: SummarizeInput, word: string): boolean {
  const pattern = new RegExp(`\\b${word}\\b`, 'i');
  return pattern.test(input.previousSummary ?? '') || input.turns.some((turn) => pattern.test(turn.text));
}

/** A compaction's metadata (every compaction records one). */
export function metadataOf(turn: Turn): Record<string, unknown> {
  if (!turn.metadata) throw new Error(`turn ${turn.id} records no metadata`);
  return turn.metadata;
}

export type ForestTable = 'forest_states' | 'forest_nodes' | 'forest_clusters' | 'topic_drops';

/** Runs `work` on a plain driver connection to the ledger's file, as another program would. */
export function withRawSqlite<T>(ledger: AgentsLedger, work: (sqlite: RawSqlite) => T): T {
  const sqlite = openRawSqlite(storeOf(ledger).location);
  try {
    return work(sqlite);
  } finally {
    sqlite.close();
  }
}

/** One statement at a time on a plain driver connection to the ledger's file (opened and closed per call). */
export function rawSql(ledger: AgentsLedger) {
  return {
    prepare(sql: string) {
      type Call = (...parameters: unknown[]) => unknown;
      const on = (method: 'get' | 'all' | 'run', parameters: unknown[]) =>
        withRawSqlite(ledger, (sqlite) => {
          const statement = sqlite.prepare(sql);
          return (statement[method] as Call).apply(statement, parameters);
        });
      return {
        get: (...parameters: unknown[]) => on('get', parameters),
        all: (...parameters: unknown[]) => on('all', parameters) as unknown[],
        run: (...parameters: unknown[]) => on('run', parameters),
      };
    },
  };
}

/** Every row of the forest tables, in a stable order, to compare before and after. */
export function forestRows(ledger: AgentsLedger): Record<ForestTable, unknown[]> {
  return withRawSqlite(ledger, (sqlite) => {
    const all = (query: string) => sqlite.prepare(query).all();
    return {
      forest_states: all('SELECT * FROM forest_states ORDER BY compaction_id'),
      forest_nodes: all('SELECT * FROM forest_nodes ORDER BY compaction_id, position'),
      forest_clusters: all('SELECT * FROM forest_clusters ORDER BY compaction_id, position'),
      topic_drops: all('SELECT * FROM topic_drops ORDER BY id'),
    };
  });
}

/** A session's topics with the member ids of each (expandTopic), in root order. */
export async function topicMembers(ledger: AgentsLedger, sessionId: string): Promise<Array<{ id: string; members: string[] }>> {
  const topics = await ledger.topics(sessionId);
  const out: Array<{ id: string; members: string[] }> = [];
  for (const topic of topics) {
    const members = await ledger.expandTopic(topic.id, { sessionId });
    out.push({ id: topic.id, members: members.map((turn) => turn.id) });
  }
  return out;
}

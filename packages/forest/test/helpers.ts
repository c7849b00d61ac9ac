// Shared helpers for the forest tests: turn builders, topic texts, a recording summarizer, and a
// form of the serialized state that ignores where path compression left the parent pointers.

import { LedgerError } from '@agent-ledger/core';
import { expect } from 'vitest';
import type {
  ClusterSummarizer,
  ClusterSummaryRequest,
  ForestConfig,
  ForestState,
  GraduatingTurn,
  GraduationResult,
  TopicForest,
} from '../src/index.ts';

export const START_TIME = 1_700_000_000_000;

/** Words of a few unrelated topics: turns on one topic share words, turns on two never do. */
export const TOPIC_WORDS = {
  postgres: ['postgres', 'replica', 'vacuum', 'wal', 'checkpoint', 'autovacuum'],
  kubernetes: ['kubernetes', 'pod', 'helm', 'ingress', 'deployment', 'kubelet'],
  payments: ['stripe', 'invoice', 'refund', 'webhook', 'charge', 'currency'],
  frontend: ['react', 'hook', 'render', 'component', 'props', 'suspense'],
} as const;

export type Topic = keyof typeof TOPIC_WORDS;

export const TOPICS = Object.keys(TOPIC_WORDS) as Topic[];

/** A turn about `topic`: its anchor word, two rotating words, and stopwords that must not count. */
export function topicText(topic: Topic, variant = 0): string {
  const words = TOPIC_WORDS[topic];
  const pick = (offset: number) => words[(variant + offset) % words.length] as string;
  return `The ${words[0]} and then the ${pick(1)} with ${pick(2)} again.`;
}

/** A graduating turn; tokens default to the word count, timestamps to one second per sequence step. */
export function graduatingTurn(id: string, text: string, overrides: Partial<GraduatingTurn> = {}): GraduatingTurn {
  const sequence = Number.parseInt(id.replace(/\D/g, ''), 10);
  return {
    id,
    text,
    tokens: text.split(/\s+/).filter(Boolean).length,
    timestamp: START_TIME + (Number.isNaN(sequence) ? 0 : sequence) * 1000,
    ...overrides,
  };
}

/** Turns t1, t2, … with the given texts. */
export function turnsFrom(texts: readonly string[], prefix = 't'): GraduatingTurn[] {
  return texts.map((text, index) => graduatingTurn(`${prefix}${index + 1}`, text));
}

/** Turns cycling through `topics`, `count` in all, each a new variant of its topic. */
export function mixedTopicTurns(count: number, topics: readonly Topic[] = TOPICS, prefix = 't'): GraduatingTurn[] {
  const texts = Array.from({ length: count }, (_, index) =>
    topicText(topics[index % topics.length] as Topic, Math.floor(index / topics.length)),
  );
  return turnsFrom(texts, prefix);
}

export function feed(forest: TopicForest, turns: readonly GraduatingTurn[]): GraduationResult[] {
  return turns.map((turn) => forest.graduate(turn));
}

/** A config where nothing joins on its own and nothing is merged by the cap: unions are the test's. */
export const MANUAL_UNIONS: Partial<ForestConfig> = { mergeThreshold: 2, maxClusters: 1000 };

export function liveClusterIds(forest: TopicForest): string[] {
  return forest
    .clusters()
    .filter((cluster) => !cluster.dropped)
    .map((cluster) => cluster.id);
}

export interface RecordingSummarizer {
  summarize: ClusterSummarizer;
  requests: ClusterSummaryRequest[];
}

/**
 * A summarizer that records every request and answers `summary of <cluster> v<n>`. `during` runs
 * while the call is in flight (to change the forest under it); `fail` makes a call throw.
 */
export function recordingSummarizer(
  options: { during?: (request: ClusterSummaryRequest) => void; fail?: (request: ClusterSummaryRequest) => boolean } = {},
): RecordingSummarizer {
  const requests: ClusterSummaryRequest[] = [];
  const summarize: ClusterSummarizer = async (request) => {
    requests.push(structuredClone(request));
    await Promise.resolve();
    options.during?.(request);
    if (options.fail?.(request)) throw new Error(`summarizer down for ${request.clusterId}`);
    return `summary of ${request.clusterId} #${requests.length}`;
  };
  return { summarize, requests };
}

/** The root of every node by following the serialized parent indices (no path compression). */
export function rootIndices(state: ForestState): number[] {
  return state.nodes.map((_, start) => {
    let index = start;
    for (let steps = 0; steps <= state.nodes.length; steps += 1) {
      const parent = (state.nodes[index] as ForestState['nodes'][number]).parent;
      if (parent === index) return index;
      index = parent;
    }
    throw new Error(`parent pointers from node ${start} form a cycle`);
  });
}

/** The state with each parent pointer replaced by its root: equal for forests with equal partitions. */
export function canonicalState(state: ForestState): ForestState {
  const roots = rootIndices(state);
  return { ...state, nodes: state.nodes.map((node, index) => ({ ...node, parent: roots[index] as number })) };
}

export function must<T>(value: T | null | undefined, what = 'value'): T {
  if (value === null || value === undefined) throw new Error(`expected a ${what}`);
  return value;
}

/** Runs `action`, expecting it to throw a ledger error with `code`; returns the error for more checks. */
export function expectLedgerError(action: () => unknown, code: string): LedgerError {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  expect(LedgerError.isInstance(thrown), `expected a LedgerError, got ${String(thrown)}`).toBe(true);
  const error = thrown as LedgerError;
  expect(error.code).toBe(code);
  return error;
}

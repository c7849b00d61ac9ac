// The recall tool a chat runtime hands to the model: its definition, and a handler whose answers
// name turns, compactions and events that the ledgers can open, and that never throws on bad input.

import { HOSTILE_QUERIES } from '@agent-ledger/core/testing';
import { type EventsLedger, openEventsLedger } from '@agent-ledger/events-ledger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AgentsLedger,
  createRecallToolHandler,
  type EventSearch,
  RECALL_TOOL_NAME,
  type RecallHit,
  recallToolDefinition,
} from '../src/index.ts';
import { openTempLedger, prose, recordingSummarizer, SMALL_SETTINGS, type TempLedger } from './builders.ts';

let temp: TempLedger;
let ledger: AgentsLedger;
let events: EventsLedger;
let sessionId: string;
let otherSessionId: string;
const turnIds: string[] = [];
let eventId: string;
let searchEvents: EventSearch;

beforeAll(async () => {
  // Summaries that hold none of the turns' words, so every hit's origin is known.
  temp = openTempLedger({ summarizer: recordingSummarizer('Short recap of earlier turns.') });
  ledger = temp.ledger;
  events = openEventsLedger(temp.file);
  const session = await ledger.createSession({ settings: SMALL_SETTINGS });
  sessionId = session.id;
  for (let index = 0; index < 40; index += 1) {
    const mark = index === 1 ? 'The tank holds zebrafish-42 now. ' : index === 39 ? 'Latest: the narwhal tusk. ' : '';
    const turn = await ledger.appendTurn(session.id, {
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `${mark}${prose(40, index + 3)}`,
    });
    turnIds.push(turn.id);
    if (index < 39 && (await ledger.shouldCompact(session.id))) await ledger.compact(session.id);
  }
  const other = await ledger.createSession({ settings: SMALL_SETTINGS });
  otherSessionId = other.id;
  await ledger.appendTurn(other.id, { role: 'user', content: 'Another zebrafish, in another session.' });
  eventId = (
    await events.append({
      channel: 'discord:#lab',
      externalId: 'm1',
      author: 'dana',
      payload: { text: 'A zebrafish escaped from tank 42' },
    })
  ).event.id;
  searchEvents = async (query, limit) => (await events.search(query, { limit })).hits;
});

afterAll(() => {
  events?.close();
  temp?.cleanup();
});

describe('recallToolDefinition', () => {
  it('is an Anthropic tool with a required string query', () => {
    expect(recallToolDefinition.name).toBe(RECALL_TOOL_NAME);
    expect(recallToolDefinition.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(recallToolDefinition.description.length).toBeGreaterThan(40);
    const schema = recallToolDefinition.input_schema;
    expect(schema.type).toBe('object');
    expect(schema.required).toEqual(['query']);
    expect(schema.properties.query.type).toBe('string');
    expect(schema.properties.limit.type).toBe('integer');
    expect(schema.properties.raw.type).toBe('boolean');
    // It survives the trip to an API as JSON.
    expect(JSON.parse(JSON.stringify(recallToolDefinition))).toEqual(recallToolDefinition);
  });
});

/** Opens what a hit names and returns text that should hold the searched word. */
async function openHit(hit: RecallHit): Promise<string> {
  if (hit.kind === 'event') return JSON.stringify((await events.get(hit.id)).payload);
  const turn = await ledger.getTurn(hit.id);
  if (hit.kind === 'compaction') {
    expect(turn.turnType).toBe('compaction');
    const summarized = await ledger.getSummarizedTurns(hit.id);
    // The matching turn is among (or below) what the compaction stands in for.
    if (hit.via) {
      const via = await ledger.getTurn(hit.via);
      expect((await ledger.canon(hit.via))?.id).toBe(hit.id);
      expect(summarized.length).toBeGreaterThan(0);
      return JSON.stringify(via);
    }
    return JSON.stringify(turn);
  }
  expect(turn.turnType).toBe('normal');
  return JSON.stringify(turn);
}

describe('createRecallToolHandler', () => {
  it('answers with ids the ledgers can open: the compaction via the turn, and the event', async () => {
    const handler = createRecallToolHandler({ ledger, searchEvents });
    const answer = await handler({ query: 'zebrafish' });
    expect(answer.isError).toBe(false);
    const kinds = answer.hits.map((hit) => hit.kind).sort();
    expect(kinds).toEqual(['compaction', 'event', 'turn']);
    for (const hit of answer.hits) {
      expect(answer.content).toContain(hit.id);
      expect(answer.content).toContain(hit.snippet);
      expect(new Date(hit.when).toISOString()).toBe(hit.when);
      expect((await openHit(hit)).toLowerCase()).toContain('zebrafish');
    }
    const compaction = answer.hits.find((hit) => hit.kind === 'compaction') as RecallHit;
    expect(compaction.via).toBe(turnIds[1]);
    expect(answer.content).toContain(`matched in ${turnIds[1]}`);
    expect(answer.hits.find((hit) => hit.kind === 'event')?.id).toBe(eventId);
    // Hits are listed in the order they are returned, each starting with its id.
    const starts = answer.hits.map((hit) => answer.content.indexOf(`${hit.id} (${hit.kind}`));
    expect(starts.every((start) => start >= 0)).toBe(true);
    expect(starts).toEqual([...starts].sort((left, right) => left - right));
    // The compaction opens to what it summarized, and that includes the matching turn.
    const summarized = await ledger.getSummarizedTurns(compaction.id);
    const reachable = new Set(summarized.map((turn) => turn.id));
    for (const turn of summarized)
      if (turn.turnType === 'compaction') for (const inner of await ledger.getSummarizedTurns(turn.id)) reachable.add(inner.id);
    expect(reachable.has(turnIds[1] as string)).toBe(true);
  });

  // BUG (minor): the handler joins one `id (kind, when): snippet` line per hit, but snippets keep the
  // newlines of the text (an event's search text is "author\npayload strings"; multi-paragraph turns
  // have them too), so one hit spans several lines and a turn's text can start a line that looks
  // like another hit. `nexus search` flattens whitespace in snippets (clip); the recall tool does not.
  it('content has exactly one line per hit, even when the matched text spans lines', async () => {
    const handler = createRecallToolHandler({ ledger, searchEvents });
    const answer = await handler({ query: 'escaped zebrafish' });
    expect(answer.hits.map((hit) => hit.id)).toContain(eventId);
    const lines = answer.content.split('\n');
    expect(lines).toHaveLength(answer.hits.length);
    for (const [index, line] of lines.entries()) expect(line.startsWith(`${answer.hits[index]?.id} (`)).toBe(true);
  });

  it('raw: true names the matching turn itself', async () => {
    const handler = createRecallToolHandler({ ledger, sessionId });
    const answer = await handler({ query: 'zebrafish', raw: true });
    expect(answer.hits).toEqual([expect.objectContaining({ id: turnIds[1], kind: 'turn' })]);
    expect(answer.hits[0]?.via).toBeUndefined();
    const turn = await ledger.getTurn(turnIds[1] as string);
    expect(JSON.stringify(turn)).toContain('zebrafish');
  });

  it('a recent turn is named as itself; sessionId keeps other sessions out', async () => {
    const handler = createRecallToolHandler({ ledger, sessionId });
    const recent = await handler({ query: 'narwhal' });
    expect(recent.hits).toEqual([expect.objectContaining({ id: turnIds[39], kind: 'turn' })]);
    const scoped = await handler({ query: 'zebrafish' });
    expect(scoped.hits.map((hit) => hit.kind)).toEqual(['compaction']);
    const unscoped = await createRecallToolHandler({ ledger })({ query: 'zebrafish' });
    const other = (await ledger.getSession(otherSessionId)).headTurnId;
    expect(unscoped.hits.map((hit) => hit.id)).toContain(other);
  });

  it('limit is clamped to 1..20, and a non-integer limit means 5', async () => {
    const handler = createRecallToolHandler({ ledger, searchEvents });
    expect((await handler({ query: 'zebrafish', limit: 1 })).hits).toHaveLength(1);
    expect((await handler({ query: 'zebrafish', limit: 0 })).hits).toHaveLength(1);
    expect((await handler({ query: 'zebrafish', limit: -3 })).hits).toHaveLength(1);
    const many = await handler({ query: 'the', limit: 1000, raw: true });
    expect(many.hits).toHaveLength(20);
    expect((await handler({ query: 'the', limit: 2.5, raw: true })).hits).toHaveLength(5);
    expect((await handler({ query: 'the', limit: '7', raw: true })).hits).toHaveLength(5);
  });

  it('no match is an answer, not an error', async () => {
    const answer = await createRecallToolHandler({ ledger, searchEvents })({ query: 'quetzalcoatl' });
    expect(answer).toEqual({ content: expect.stringContaining('No match'), hits: [], isError: false });
  });

  it('bad input returns isError and never throws', async () => {
    const handler = createRecallToolHandler({ ledger, searchEvents });
    const bad: unknown[] = [
      undefined,
      null,
      {},
      { query: '' },
      { query: '   \n\t' },
      { query: 42 },
      { query: null },
      { query: ['zebrafish'] },
      { query: { text: 'zebrafish' } },
      { query: true },
      { limit: 3 },
      'zebrafish',
      42,
      [],
      true,
    ];
    for (const input of bad) {
      const answer = await handler(input).catch((error: unknown) => {
        throw new Error(`${JSON.stringify(input)} threw ${String(error)}`);
      });
      expect(answer.isError, JSON.stringify(input)).toBe(true);
      expect(answer.hits).toEqual([]);
      expect(answer.content).toMatch(/query/);
    }
  });

  it('hostile query text is searched as words and never throws', async () => {
    const handler = createRecallToolHandler({ ledger, searchEvents });
    for (const query of HOSTILE_QUERIES) {
      const answer = await handler({ query }).catch((error: unknown) => {
        throw new Error(`${JSON.stringify(query.slice(0, 40))} threw ${String(error)}`);
      });
      expect(answer.isError, JSON.stringify(query.slice(0, 40))).toBe(query.trim() === '');
    }
  });
});

// Export then import gives the session back: for any session built from text turns, tool rounds,
// recorded compactions and forks, importing its pi export yields the same turns (role, content,
// time), the same compactions (summary and cut), the same forks (fork point and own turns) and the
// session's label; the file names each fork's label too. Also checks the Anthropic and nexus-eval
// exports on one session.

import { Readable } from 'node:stream';
import type { AgentsLedger, SessionTree } from '@agent-ledger/agents-ledger';
import type { Turn } from '@agent-ledger/core';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { exportAnthropic, exportNexus, exportPi, importTranscripts } from '../src/index.ts';
import { describeTurn, historyOf, openTempLedger, type TempLedger } from './helpers.ts';

type Step =
  | { kind: 'text'; role: 'user' | 'assistant'; words: number }
  | { kind: 'tools'; calls: number }
  | { kind: 'compact'; cut: number }
  | { kind: 'fork'; at: number; turns: number; label: string | null };

/** A label that says something (a blank one reads back as the label import makes up). */
const labelArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('round trip', 'chat fork', 'Flaky checkout test · branch', 'pi /w/web 2026-05-03 08:00'),
  fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' }).filter((text) => text.trim() !== ''),
);

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('text' as const),
    role: fc.constantFrom('user' as const, 'assistant' as const),
    words: fc.integer({ min: 1, max: 8 }),
  }),
  fc.record({ kind: fc.constant('tools' as const), calls: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('compact' as const), cut: fc.nat() }),
  fc.record({
    kind: fc.constant('fork' as const),
    at: fc.nat(),
    turns: fc.integer({ min: 1, max: 3 }),
    label: fc.option(labelArb, { nil: null }),
  }),
);

let temps: TempLedger[] = [];
afterEach(() => {
  for (const temp of temps) temp.cleanup();
  temps = [];
});

async function build(ledger: AgentsLedger, steps: readonly Step[], label: string | null = 'round trip'): Promise<string> {
  const session = await ledger.createSession(label === null ? {} : { label });
  let time = Date.parse('2026-05-01T00:00:00.000Z');
  const at = () => (time += 1000);
  const main: string[] = [];
  let window: string[] = [];
  let counter = 0;
  const append = async (
    sessionId: string,
    role: 'user' | 'assistant',
    content: Parameters<AgentsLedger['appendTurn']>[1]['content'],
  ) => {
    const turn = await ledger.appendTurn(sessionId, { role, content, timestamp: at() });
    return turn.id;
  };
  const record = (id: string) => {
    main.push(id);
    window.push(id);
  };
  for (const item of steps) {
    counter += 1;
    if (item.kind === 'text')
      record(await append(session.id, item.role, `${item.role} says ${'word '.repeat(item.words)}#${counter}`));
    else if (item.kind === 'tools') {
      const ids = Array.from({ length: item.calls }, (_, index) => `toolu_${counter}_${index}`);
      record(
        await append(
          session.id,
          'assistant',
          ids.map((id) => ({ type: 'tool_use' as const, id, name: 'lookup', input: { key: id } })),
        ),
      );
      record(
        await append(
          session.id,
          'user',
          ids.map((id) => ({ type: 'tool_result' as const, tool_use_id: id, content: `value of ${id}` })),
        ),
      );
    } else if (item.kind === 'compact' && window.length > 1) {
      const through = window[item.cut % (window.length - 1)] as string;
      await ledger.recordCompaction(session.id, {
        summary: `summary #${counter}`,
        summarizedThroughTurnId: through,
        timestamp: at(),
      });
      window = window.slice(window.indexOf(through) + 1);
    } else if (item.kind === 'fork' && main.length > 0) {
      const fork = await ledger.forkFrom(main[item.at % main.length] as string, item.label === null ? {} : { label: item.label });
      for (let index = 0; index < item.turns; index += 1)
        await append(fork.session.id, index % 2 ? 'assistant' : 'user', `fork turn ${index} #${counter}`);
    }
  }
  // A fork at the main line's head would read back as the main line going on (pi has one leaf per branch).
  await append(session.id, 'user', 'the end');
  return session.id;
}

/** The session as comparable data: turns with their times, compaction cuts as positions, forks. */
async function shape(ledger: AgentsLedger, sessionId: string) {
  const history = await historyOf(ledger, sessionId);
  const position = (id: string | null) => history.findIndex((turn) => turn.id === id);
  const describe = (turn: Turn) =>
    turn.turnType === 'compaction'
      ? `${describeTurn(turn)} through=${position(turn.summarizedThroughTurnId)} kept=${position(turn.firstKeptTurnId)} @${turn.timestamp}`
      : `${describeTurn(turn)} @${turn.timestamp}`;
  const tree = await ledger.tree(sessionId);
  const forks = await Promise.all(
    tree.forks.map(async (fork) => {
      const forkHistory = await historyOf(ledger, fork.session.id);
      return {
        at: position(fork.session.forkedFromTurnId),
        turns: forkHistory.filter((turn) => turn.sessionId === fork.session.id).map(describe),
      };
    }),
  );
  return {
    turns: history.map(describe),
    forks: forks.sort((left, right) => left.at - right.at || left.turns[0]?.localeCompare(right.turns[0] ?? '') || 0),
  };
}

async function piText(ledger: AgentsLedger, sessionId: string): Promise<string> {
  let text = '';
  for await (const line of exportPi(ledger, sessionId)) text += line;
  return text;
}

/** Each fork's label as the export names it, on the first entry of the fork's branch; null for none. */
function exportedForkLabels(text: string): Map<string, string | null> {
  const labels = new Map<string, string | null>();
  for (const [index, line] of text.trimEnd().split('\n').entries()) {
    const nexus = (JSON.parse(line) as { nexus?: { sessionId: string; label?: string } }).nexus;
    if (index > 0 && nexus) labels.set(nexus.sessionId, nexus.label ?? null);
  }
  return labels;
}

/** Every fork of the session, forks of forks included, and whether it has a turn of its own. */
async function forksOf(ledger: AgentsLedger, sessionId: string) {
  const forks: Array<{ id: string; label: string | null; ownTurns: boolean }> = [];
  const visit = (tree: SessionTree) => {
    for (const fork of tree.forks) {
      forks.push({ id: fork.session.id, label: fork.session.label, ownTurns: fork.ownTurns > 0 });
      visit(fork);
    }
  };
  visit(await ledger.tree(sessionId));
  return forks;
}

describe('export round trip', () => {
  it('import(export pi(s)) has the same turns, compactions, forks and label (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 14 }),
        fc.option(labelArb, { nil: null }),
        async (steps, label) => {
          const source = openTempLedger();
          const target = openTempLedger();
          temps.push(source, target);
          const sessionId = await build(source.ledger, steps, label);
          const text = await piText(source.ledger, sessionId);
          const result = await importTranscripts({ ledger: target.ledger, paths: ['-'], stdin: Readable.from([text]) });
          expect(result.problems).toEqual([]);
          const importedId = result.sources[0]?.sessionId as string;
          expect(await shape(target.ledger, importedId)).toEqual(await shape(source.ledger, sessionId));
          // The label the session had, not one made up from the export; with none, pi's kind (tool and date).
          const { createdAt } = await source.ledger.getSession(sessionId);
          expect((await target.ledger.getSession(importedId)).label).toBe(
            label ?? `pi ${new Date(createdAt).toISOString().slice(0, 16).replace('T', ' ')}`,
          );
          // The header names no working directory the ledger never kept.
          expect(JSON.parse(text.split('\n', 1)[0] as string)).not.toHaveProperty('cwd');
          // Every fork with a turn of its own is named in the file, with its label.
          const forks = await forksOf(source.ledger, sessionId);
          expect(exportedForkLabels(text)).toEqual(
            new Map(forks.filter((fork) => fork.ownTurns).map((fork) => [fork.id, fork.label])),
          );
          // Whatever doctor says of the source (a fork made between a tool call and its result, say), it says of the copy.
          const codes = async (ledger: AgentsLedger) => (await ledger.doctor()).map((problem) => problem.code).sort();
          expect(await codes(target.ledger)).toEqual(await codes(source.ledger));
          source.cleanup();
          target.cleanup();
          temps = [];
        },
      ),
      { numRuns: 20 },
    );
  });

  it('exports Anthropic Messages JSON (full history or the context at a turn) and nexus-eval/v1', async () => {
    const temp = openTempLedger();
    temps.push(temp);
    const { ledger } = temp;
    const sessionId = await build(ledger, [
      { kind: 'text', role: 'user', words: 3 },
      { kind: 'tools', calls: 2 },
      { kind: 'text', role: 'assistant', words: 2 },
      { kind: 'compact', cut: 1 },
      { kind: 'text', role: 'user', words: 1 },
    ]);
    const full = JSON.parse(await exportAnthropic(ledger, sessionId));
    expect(full.messages.map((message: { role: string }) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    expect(JSON.stringify(full.messages[4])).toContain('summary #4');
    const head = (await ledger.getSession(sessionId)).headTurnId as string;
    const context = JSON.parse(await exportAnthropic(ledger, sessionId, { contextAt: head }));
    expect(context.system).toContain('summary #4');
    expect(context.messages).toEqual((await ledger.buildContext(head)).messages);

    const conversation = JSON.parse(await exportNexus(ledger, sessionId));
    expect(conversation).toMatchObject({ format: 'nexus-eval/v1', id: sessionId });
    expect(conversation.messages).toHaveLength(6);
    const target = openTempLedger();
    temps.push(target);
    const imported = await importTranscripts({
      ledger: target.ledger,
      paths: ['-'],
      stdin: Readable.from([JSON.stringify(conversation)]),
    });
    expect((await historyOf(target.ledger, imported.sources[0]?.sessionId as string)).map(describeTurn)).toEqual(
      (await historyOf(ledger, sessionId)).filter((turn) => turn.turnType === 'normal').map(describeTurn),
    );
  });
});

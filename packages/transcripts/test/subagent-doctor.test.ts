// A Claude Code subagent runs inside the Task call that started it: its transcript becomes a fork at
// that call's turn, and the call's result is written on the parent's line when the subagent is done.
// A correct import of such a project leaves doctor quiet (the call is not left open), while a fork a
// person makes at an answered call and writes on without answering is still a warning.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importTranscripts } from '../src/index.ts';
import { historyOf, openTempLedger, type TempLedger } from './helpers.ts';

const SESSION = '7a2b0c1d-0000-4000-8000-00000000000a';

function line(fields: Record<string, unknown>): string {
  return JSON.stringify({
    isSidechain: false,
    userType: 'external',
    cwd: '/w/shop',
    sessionId: SESSION,
    version: '2.1.12',
    ...fields,
  });
}

const PARENT = [
  line({
    parentUuid: null,
    type: 'user',
    uuid: 'p-u1',
    timestamp: '2026-05-04T09:00:00.000Z',
    message: { role: 'user', content: 'Find every flaky test.' },
  }),
  line({
    parentUuid: 'p-u1',
    type: 'assistant',
    uuid: 'p-a1',
    timestamp: '2026-05-04T09:00:01.000Z',
    message: {
      id: 'msg_p1',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [
        {
          type: 'tool_use',
          id: 'toolu_task',
          name: 'Task',
          input: { description: 'scan tests', prompt: 'List tests that seed from random.' },
        },
      ],
    },
  }),
  line({
    parentUuid: 'p-a1',
    type: 'user',
    uuid: 'p-r1',
    timestamp: '2026-05-04T09:00:30.000Z',
    message: {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_task', content: 'test_refund and test_invoice seed from random.' }],
    },
  }),
  line({
    parentUuid: 'p-r1',
    type: 'assistant',
    uuid: 'p-a2',
    timestamp: '2026-05-04T09:00:31.000Z',
    message: {
      id: 'msg_p2',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'Two tests: pin their seeds.' }],
    },
  }),
];

// The subagent started after the Task call was written and before its result (09:00:01 < 09:00:02 < 09:00:30).
const AGENT = [
  line({
    parentUuid: null,
    isSidechain: true,
    agentId: 'f00d',
    type: 'user',
    uuid: 's-u1',
    timestamp: '2026-05-04T09:00:02.000Z',
    message: { role: 'user', content: 'List tests that seed from random.' },
  }),
  line({
    parentUuid: 's-u1',
    isSidechain: true,
    agentId: 'f00d',
    type: 'assistant',
    uuid: 's-a1',
    timestamp: '2026-05-04T09:00:20.000Z',
    message: {
      id: 'msg_s1',
      role: 'assistant',
      model: 'claude-haiku-4-5',
      content: [{ type: 'text', text: 'test_refund and test_invoice seed from random.' }],
    },
  }),
];

let temp: TempLedger;
afterEach(() => temp?.cleanup());

describe('a subagent forked at the Task call that started it', () => {
  it('imports as a fork at the call, its turns marked, and doctor stays quiet', async () => {
    temp = openTempLedger();
    const project = path.join(temp.folder, '-w-shop');
    fs.mkdirSync(path.join(project, SESSION, 'subagents'), { recursive: true });
    fs.writeFileSync(path.join(project, `${SESSION}.jsonl`), `${PARENT.join('\n')}\n`);
    fs.writeFileSync(path.join(project, SESSION, 'subagents', 'agent-f00d.jsonl'), `${AGENT.join('\n')}\n`);
    const result = await importTranscripts({ ledger: temp.ledger, paths: [project] });
    expect(result.problems).toEqual([]);
    const [main, agent] = result.sources;
    const mainHistory = await historyOf(temp.ledger, main?.sessionId as string);
    const agentSession = await temp.ledger.getSession(agent?.sessionId as string);
    // The fork point is the turn holding the Task call: the subagent inherits the call.
    expect(agentSession.forkedFromTurnId).toBe(mainHistory[1]?.id);
    const own = (await historyOf(temp.ledger, agentSession.id)).slice(2);
    expect(own.map((turn) => (turn.metadata as { subagent?: unknown }).subagent)).toEqual([{ id: 'f00d' }, { id: 'f00d' }]);
    expect((await temp.ledger.doctor()).filter((problem) => problem.code === 'DANGLING_TOOL_CALL')).toEqual([]);

    // A fork a person makes at the same answered call, writing on without answering it, is still one.
    const whatIf = await temp.ledger.forkFrom(mainHistory[1]?.id as string, { label: 'what if' });
    await temp.ledger.appendTurn(whatIf.session.id, { role: 'user', content: 'Skip the scan, just pin all seeds.' });
    const warnings = (await temp.ledger.doctor()).filter((problem) => problem.code === 'DANGLING_TOOL_CALL');
    expect(warnings.map((warning) => warning.ids)).toEqual([[mainHistory[1]?.id, 'toolu_task']]);
  });
});

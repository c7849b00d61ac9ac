// What a pi file's session is called once imported: a header pi wrote is named by the tool, its
// folder and its start (as before); a header `nexus export` wrote keeps the ledger's own label,
// which it carries in a `nexus` block pi ignores (or `nexusLabel`, in files exported before it).

import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { exportPi, importTranscripts } from '../src/index.ts';
import { FIXTURES, openTempLedger, type TempLedger } from './helpers.ts';

let temps: TempLedger[] = [];
afterEach(() => {
  for (const temp of temps) temp.cleanup();
  temps = [];
});

const MESSAGE = JSON.stringify({
  type: 'message',
  id: 'a1b2c3d4',
  parentId: null,
  timestamp: '2026-05-03T08:00:01.000Z',
  message: { role: 'user', content: 'list the failing lint rules' },
});

/** The label of the session importing these lines (as stdin) gives. */
async function labelOf(lines: readonly unknown[]): Promise<string | null> {
  const temp = openTempLedger();
  temps.push(temp);
  const text = `${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')}\n`;
  const result = await importTranscripts({ ledger: temp.ledger, paths: ['-'], stdin: Readable.from([text]) });
  expect(result.problems).toEqual([]);
  return (await temp.ledger.getSession(result.sources[0]?.sessionId as string)).label;
}

const PI_HEADER = { type: 'session', version: 3, id: '7b1f3c2e', timestamp: '2026-05-03T08:00:00.000Z', cwd: '/w/web' };

describe('pi session labels', () => {
  it('names a session pi wrote by the tool, its folder and its start, its branches after it', async () => {
    const temp = openTempLedger();
    temps.push(temp);
    const result = await importTranscripts({ ledger: temp.ledger, paths: [`${FIXTURES}/pi`] });
    const tree = await temp.ledger.tree(result.sources[0]?.sessionId as string);
    expect(tree.session.label).toBe('pi /w/web 2026-05-03 08:00');
    expect(tree.forks.map((fork) => fork.session.label)).toEqual(['pi /w/web 2026-05-03 08:00 · branch']);
    expect(await labelOf([{ ...PI_HEADER, cwd: '' }, MESSAGE])).toBe('pi 2026-05-03 08:00');
  });

  it('keeps the label of a header nexus export wrote, and of the ones it wrote before the nexus block', async () => {
    const header = { ...PI_HEADER, id: 'nexus-s_1' };
    delete (header as Partial<typeof header>).cwd;
    expect(await labelOf([{ ...header, nexus: { sessionId: 's_1', label: 'Flaky checkout test' } }, MESSAGE])).toBe(
      'Flaky checkout test',
    );
    expect(await labelOf([{ ...header, cwd: '', nexusLabel: 'release notes' }, MESSAGE])).toBe('release notes');
    // No label in the ledger (or a blank one): named as any pi session is.
    expect(await labelOf([{ ...header, nexus: { sessionId: 's_1' } }, MESSAGE])).toBe('pi 2026-05-03 08:00');
    expect(await labelOf([{ ...header, nexus: { sessionId: 's_1', label: '  ' } }, MESSAGE])).toBe('pi 2026-05-03 08:00');
  });

  it('exports the label, the session id and no empty cwd; each fork names its own on its first entry', async () => {
    const temp = openTempLedger();
    temps.push(temp);
    const { ledger } = temp;
    const session = await ledger.createSession({ label: 'Flaky checkout test' });
    const question = await ledger.appendTurn(session.id, { role: 'user', content: 'Why does test_checkout fail?' });
    await ledger.appendTurn(session.id, { role: 'assistant', content: 'The seed is random.' });
    const fork = await ledger.forkFrom(question.id, { label: 'what if we mock the clock' });
    await ledger.appendTurn(fork.session.id, { role: 'assistant', content: 'Mock the clock.' });
    let text = '';
    for await (const line of exportPi(ledger, session.id)) text += line;
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toEqual({
      type: 'session',
      version: 3,
      id: `nexus-${session.id}`,
      timestamp: new Date(session.createdAt).toISOString(),
      nexus: { sessionId: session.id, label: 'Flaky checkout test' },
    });
    expect(lines.slice(1).map((line) => line.nexus)).toEqual([
      undefined,
      undefined,
      { sessionId: fork.session.id, label: 'what if we mock the clock' },
    ]);
  });
});

// A transcript that holds half an emoji (a lone surrogate, left by a tool that cut a string by
// length) or a NUL still imports: the ledger refuses such text from a caller (it could not hash it
// as stored), so the importer makes it storable (U+FFFD, NUL dropped) and keeps every line. And a
// path that names a pipe (`/dev/stdin`, `<(zcat …)`) reads, since only a resumed read seeks.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importTranscripts } from '../src/index.ts';
import { readLines } from '../src/read-lines.ts';
import { historyOf, openTempLedger, type TempLedger } from './helpers.ts';

let temp: TempLedger | null = null;
afterEach(() => {
  temp?.cleanup();
  temp = null;
});

const SESSION = '5e551011-aaaa-4bbb-8ccc-00000000beef';

function line(uuid: string, parent: string | null, role: 'user' | 'assistant', text: string): string {
  const content = role === 'user' ? text : [{ type: 'text', text }];
  return JSON.stringify({
    parentUuid: parent,
    sessionId: SESSION,
    type: role,
    message: { role, content },
    uuid,
    timestamp: '2026-05-01T10:00:00.000Z',
  });
}

describe('text the ledger cannot store, inside a transcript', () => {
  it('imports every line, with a lone surrogate made U+FFFD and a NUL dropped', async () => {
    temp = openTempLedger();
    const file = path.join(temp.folder, `${SESSION}.jsonl`);
    const lines = [
      line('u1', null, 'user', 'Summarize the thread from ann\ud83d please'),
      line('a1', 'u1', 'assistant', 'Done:\u0000 three points \ude00 and a whole 😀.'),
      line('u2', 'a1', 'user', 'Thanks'),
    ];
    // JSON.stringify escapes a lone surrogate (\ud83d) and NUL (\u0000): the file holds them as JSON text does.
    expect(lines.join('\n')).toContain('\\ud83d');
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const result = await importTranscripts({ ledger: temp.ledger, paths: [file] });
    const sessionId = result.sources[0]?.sessionId as string;
    const texts = (await historyOf(temp.ledger, sessionId)).map((turn) =>
      turn.turnType === 'normal' ? JSON.stringify(turn.content) : '',
    );
    expect(texts).toHaveLength(3);
    expect(texts[0]).toContain('ann\ufffd please');
    expect(texts[1]).toContain('Done: three points \ufffd and a whole 😀.');
    expect(await temp.ledger.doctor()).toEqual([]);
  });

  it('reads a path that is a pipe from the start (no seek)', async () => {
    temp = openTempLedger();
    const fifo = path.join(temp.folder, 'pipe');
    await new Promise<void>((resolve, reject) =>
      spawn('mkfifo', [fifo]).on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`mkfifo exited ${code}`)))),
    );
    const writer = spawn('sh', ['-c', `printf 'one\\ntwo\\n' > '${fifo}'`]);
    const written = new Promise((resolve) => writer.on('exit', resolve));
    const read: string[] = [];
    for await (const each of readLines(fifo)) read.push(each.text);
    await written;
    expect(read).toEqual(['one', 'two']);
  });
});

import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openRawSqlite } from '@agent-ledger/store-sqlite/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempFolder } from './run-cli.ts';

let temp: ReturnType<typeof tempFolder>;
beforeEach(() => {
  temp = tempFolder();
});
afterEach(() => temp.cleanup());

function jsonlFile(lines: string[]): string {
  const file = path.join(temp.folder, 'events.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const good = (index: number) =>
  JSON.stringify({ externalId: `m${index}`, author: 'dana', payload: { text: `message ${index}` } });

describe('nexus events ingest', () => {
  it('appends every good line, names each bad line with its reason, and exits 1', async () => {
    const file = jsonlFile([
      good(1),
      good(2),
      '{"externalId": "m3", "payload": ',
      good(4),
      '{"payload": {"text": "no id"}}',
      good(5),
    ]);
    const run = await runCli(['events', 'ingest', file, '--channel', 'discord:#ops', '--db', temp.dbPath, '--json']);
    expect(run.code).toBe(1);
    const result = run.json() as { appended: number; duplicates: number; rejected: Array<{ line: number; reason: string }> };
    expect(result.appended).toBe(4);
    expect(result.duplicates).toBe(0);
    expect(result.rejected.map((rejection) => rejection.line)).toEqual([3, 5]);
    expect(result.rejected[0]?.reason).toContain('not valid JSON');
    expect(result.rejected[1]?.reason).toContain('externalId');
  });

  it('is idempotent: ingesting the same file again appends nothing', async () => {
    const file = jsonlFile([good(1), good(2), good(3)]);
    const first = await runCli(['events', 'ingest', file, '--channel', 'c', '--db', temp.dbPath, '--json', '--batch', '2']);
    expect(first.code).toBe(0);
    const second = await runCli(['events', 'ingest', file, '--channel', 'c', '--db', temp.dbPath, '--json']);
    expect(second.json()).toEqual({ appended: 0, duplicates: 3, conflicts: [], rejected: [] });
  });

  it('reads stdin with -', async () => {
    const run = await runCli(['events', 'ingest', '-', '--channel', 'c', '--db', temp.dbPath, '--json'], {
      stdin: `${good(1)}\n${good(2)}\n`,
    });
    expect(run.json()).toEqual({ appended: 2, duplicates: 0, conflicts: [], rejected: [] });
  });
});

describe('nexus events list / verify / append', () => {
  it('lists a channel with seq, hash and prevHash chained, and verifies it', async () => {
    await runCli(['events', 'ingest', jsonlFile([good(1), good(2), good(3)]), '--channel', 'c', '--db', temp.dbPath]);
    const list = await runCli(['events', 'list', '--channel', 'c', '--db', temp.dbPath, '--json']);
    const events = list.json() as Array<{ seq: number; hash: string; prevHash: string | null }>;
    expect(events.map((event) => event.seq)).toEqual([1, 2, 3]);
    expect(events[0]?.prevHash).toBeNull();
    expect(events[1]?.prevHash).toBe(events[0]?.hash);
    expect(events[2]?.prevHash).toBe(events[1]?.hash);

    const page = await runCli([
      'events',
      'list',
      '--channel',
      'c',
      '--after',
      '1',
      '--limit',
      '1',
      '--db',
      temp.dbPath,
      '--json',
    ]);
    expect((page.json() as Array<{ seq: number }>).map((event) => event.seq)).toEqual([2]);

    const verify = await runCli(['events', 'verify', '--db', temp.dbPath, '--json']);
    expect(verify.code).toBe(0);
    expect(verify.json()).toEqual({ ok: true, checked: 3, channels: 1 });
  });

  it('verify exits 1 and names the first broken link after tampering', async () => {
    await runCli(['events', 'ingest', jsonlFile([good(1), good(2), good(3)]), '--channel', 'c', '--db', temp.dbPath]);
    const database = openRawSqlite(temp.dbPath);
    database.exec('DROP TRIGGER events_no_update');
    database.prepare(`UPDATE events SET payload = '{"text":"forged"}' WHERE seq = 2`).run();
    database.close();
    const verify = await runCli(['events', 'verify', '--channel', 'c', '--db', temp.dbPath, '--json']);
    expect(verify.code).toBe(1);
    const result = verify.json() as { ok: boolean; firstBroken: { seq: number; channel: string; reason: string } };
    expect(result.ok).toBe(false);
    expect(result.firstBroken).toMatchObject({ channel: 'c', seq: 2 });
    expect(result.firstBroken.reason).toContain('hash');
  });

  it('appends one event, reports a re-delivery as already stored, and a turn can cite it', async () => {
    const args = [
      'events',
      'append',
      '--channel',
      'slack:C1',
      '--external-id',
      'x1',
      '--text',
      'deploy at 5pm',
      '--db',
      temp.dbPath,
      '--json',
    ];
    const first = (await runCli(args)).json() as { duplicate: boolean; event: { id: string; seq: number } };
    const again = (await runCli(args)).json() as { duplicate: boolean; event: { id: string } };
    expect(first.duplicate).toBe(false);
    expect(again).toMatchObject({ duplicate: true, event: { id: first.event.id } });

    const session = (await runCli(['session', 'create', '--db', temp.dbPath, '--json'])).json() as { id: string };
    const turn = await runCli([
      'turn',
      'append',
      session.id,
      '--text',
      'Noted: deploy at 5pm.',
      '--event',
      first.event.id,
      '--db',
      temp.dbPath,
      '--json',
    ]);
    expect((turn.json() as { eventIds: string[] }).eventIds).toEqual([first.event.id]);
    const unknown = await runCli([
      'turn',
      'append',
      session.id,
      '--text',
      'x',
      '--event',
      'e_nope',
      '--db',
      temp.dbPath,
      '--json',
    ]);
    expect(unknown.code).toBe(1);
    expect((unknown.json() as { error: { code: string } }).error.code).toBe('EVENT_NOT_FOUND');
  });

  it('refuses an oversize payload with its size and the limit', async () => {
    const payload = JSON.stringify({ text: 'x'.repeat(300_000) });
    const run = await runCli([
      'events',
      'append',
      '--channel',
      'c',
      '--external-id',
      'big',
      '--payload',
      payload,
      '--db',
      temp.dbPath,
      '--json',
    ]);
    expect(run.code).toBe(1);
    expect((run.json() as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
    // Refused before the ledger was opened: nothing was written, not even a database.
    expect(existsSync(temp.dbPath)).toBe(false);
  });
});

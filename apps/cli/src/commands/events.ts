// `nexus events append|ingest|list|verify|checkpoint`: the events ledger from a shell.

import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { InvalidInputError, LedgerError, type LedgerEvent } from '@agent-ledger/core';
import type { AppendEventInput, EventsLedger } from '@agent-ledger/events-ledger';
import { integerOption, stringOption, timeOption, UsageError } from '../arguments.ts';
import { ALREADY_WRITTEN, type Command } from '../command.ts';
import { readCheckpointFile } from '../ledger-checkpoint.ts';
import { clip } from '../render.ts';

export const eventsAppend: Command = {
  path: ['events', 'append'],
  summary: 'Append one event (idempotent on channel + external id).',
  arguments: [],
  options: {
    channel: { type: 'string', description: 'where it came from, e.g. discord:#ops', valueName: 'CHANNEL' },
    'external-id': { type: 'string', description: 'the source’s id for it', valueName: 'ID' },
    author: { type: 'string', description: 'who sent it', valueName: 'NAME' },
    kind: { type: 'string', description: 'message (default), reaction, webhook, …', valueName: 'KIND' },
    payload: { type: 'string', description: 'the payload as JSON', valueName: 'JSON' },
    text: { type: 'string', description: 'shorthand for --payload {"text": TEXT}', valueName: 'TEXT' },
    'occurred-at': { type: 'string', description: 'when it happened: ISO 8601 or ms since the epoch', valueName: 'TIME' },
  },
  async run({ options, io, openEventsLedger }) {
    let payload: unknown;
    if (typeof options.payload === 'string') payload = parseJson(options.payload, '--payload');
    else if (typeof options.text === 'string') payload = { text: options.text };
    else throw new UsageError('give the payload with --payload JSON or --text TEXT.');
    const occurredAt = stringOption(options['occurred-at']);
    const result = await openEventsLedger().append({
      channel: stringOption(options.channel) as string,
      externalId: stringOption(options['external-id']) as string,
      author: stringOption(options.author),
      kind: stringOption(options.kind),
      payload,
      occurredAt: occurredAt !== undefined && /^\d+$/.test(occurredAt) ? Number(occurredAt) : occurredAt,
    });
    const { event } = result;
    const status = result.conflict
      ? `CONFLICT: already stored with a different ${result.conflict.fields.join(', ')}; kept the stored event`
      : result.duplicate
        ? 'already stored'
        : 'appended';
    io.print(`${status} ${event.id}: ${event.channel} #${event.seq}, hash ${event.hash.slice(0, 16)}…`);
    if (result.conflict) io.setExitCode(1);
    return result;
  },
};

export const eventsIngest: Command = {
  path: ['events', 'ingest'],
  summary: 'Append events from a JSONL file (or - for stdin), keeping every good line.',
  arguments: ['<file>'],
  options: {
    channel: { type: 'string', description: 'channel for lines that name none', valueName: 'CHANNEL' },
    batch: { type: 'string', description: 'events per transaction (default 1000)', valueName: 'N' },
  },
  details:
    'Each line: {"externalId", "payload", "channel"?, "author"?, "kind"?, "occurredAt"?}. A malformed line is reported ' +
    'with its number and reason and skipped; re-running the same file appends nothing twice. Exits 1 when a line was rejected.',
  async run({ positionals, options, io, openEventsLedger }) {
    const path = positionals[0] as string;
    const batchSize = integerOption(options.batch, 'batch') ?? 1000;
    if (batchSize < 1) throw new UsageError('--batch must be at least 1.');
    const result = await ingest(openEventsLedger(), path, {
      channel: stringOption(options.channel),
      batchSize,
      stdin: io.stdin,
      onProgress: (lines, appended) => io.progress(`ingesting: ${lines} lines read, ${appended} appended`),
    });
    io.progress('\n');
    io.print(
      `appended ${result.appended}, already stored ${result.duplicates}, conflicts ${result.conflicts.length}, rejected ${result.rejected.length}`,
    );
    for (const rejection of result.rejected.slice(0, 20)) io.print(`  line ${rejection.line}: ${rejection.reason}`);
    if (result.rejected.length > 20) io.print(`  … and ${result.rejected.length - 20} more (--json lists all)`);
    for (const conflict of result.conflicts.slice(0, 20)) {
      io.print(
        `  line ${conflict.line}: ${conflict.channel} ${conflict.externalId} is stored as ${conflict.eventId} with a different ${conflict.fields.join(', ')}; the stored event was kept`,
      );
    }
    if (result.conflicts.length > 20) io.print(`  … and ${result.conflicts.length - 20} more conflicts (--json lists all)`);
    if (result.rejected.length > 0 || result.conflicts.length > 0) io.setExitCode(1);
    return result;
  },
};

interface IngestResult {
  appended: number;
  /** Re-deliveries identical to the stored event. */
  duplicates: number;
  /** Re-deliveries of a stored (channel, externalId) whose content differs: nothing written, reported. */
  conflicts: Array<{ line: number; channel: string; externalId: string; eventId: string; fields: string[] }>;
  rejected: Array<{ line: number; reason: string }>;
}

async function ingest(
  ledger: EventsLedger,
  path: string,
  options: {
    channel?: string;
    batchSize: number;
    stdin: NodeJS.ReadableStream;
    onProgress: (lines: number, appended: number) => void;
  },
): Promise<IngestResult> {
  const result: IngestResult = { appended: 0, duplicates: 0, conflicts: [], rejected: [] };
  const { validateEventInput } = await import('@agent-ledger/events-ledger');
  const input = path === '-' ? options.stdin : await openFile(path);
  let batch: AppendEventInput[] = [];
  let batchLines: number[] = [];
  let lineNumber = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const appended = await ledger.appendBatch(batch);
    appended.forEach(({ duplicate, conflict, event }, index) => {
      if (conflict) {
        const line = batchLines[index] ?? 0;
        result.conflicts.push({
          line,
          channel: event.channel,
          externalId: event.externalId,
          eventId: event.id,
          fields: conflict.fields,
        });
      } else if (duplicate) result.duplicates += 1;
      else result.appended += 1;
    });
    batch = [];
    batchLines = [];
    options.onProgress(lineNumber, result.appended);
  };
  for await (const line of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
    lineNumber += 1;
    if (line.trim() === '') continue;
    try {
      const value = parseJson(line, `line ${lineNumber}`);
      const event = (
        typeof value === 'object' && value !== null && !Array.isArray(value) && options.channel !== undefined
          ? { channel: options.channel, ...value }
          : value
      ) as AppendEventInput;
      validateEventInput(event); // a bad line is reported here, so it never refuses a whole batch
      batch.push(event);
      batchLines.push(lineNumber);
    } catch (error) {
      if (!LedgerError.isInstance(error)) throw error;
      result.rejected.push({ line: lineNumber, reason: error.message });
      continue;
    }
    if (batch.length >= options.batchSize) await flush();
  }
  await flush();
  return result;
}

function openFile(path: string): Promise<NodeJS.ReadableStream> {
  const stream = createReadStream(path);
  return new Promise((resolve, reject) => {
    stream.once('open', () => resolve(stream));
    stream.once('error', (error) => reject(new InvalidInputError(`cannot read ${path}: ${error.message}`)));
  });
}

export const eventsList: Command = {
  path: ['events', 'list'],
  readsOnly: true,
  summary: 'List a channel’s events in sequence order (streams; --limit for a page).',
  arguments: [],
  options: {
    channel: { type: 'string', description: 'the channel (required)', valueName: 'CHANNEL' },
    after: { type: 'string', description: 'start after this seq (a page cursor)', valueName: 'SEQ' },
    limit: { type: 'string', description: 'at most this many', valueName: 'N' },
    since: { type: 'string', description: 'occurred at or after (ISO 8601 or ms)', valueName: 'TIME' },
    until: { type: 'string', description: 'occurred at or before (ISO 8601 or ms)', valueName: 'TIME' },
  },
  async run({ options, io, openEventsLedger }) {
    const channel = stringOption(options.channel);
    if (!channel) throw new UsageError('--channel is required.');
    const after = integerOption(options.after, 'after') ?? 0;
    let count = 0;
    for await (const event of openEventsLedger().range({
      channel,
      fromSeq: after + 1,
      limit: integerOption(options.limit, 'limit'),
      since: timeOption(options.since, 'since'),
      until: timeOption(options.until, 'until'),
    })) {
      if (io.json) io.write(`${count === 0 ? '[\n' : ',\n'}${JSON.stringify(event)}`);
      else io.print(eventLine(event));
      count += 1;
    }
    if (io.json) io.write(count === 0 ? '[]\n' : '\n]\n');
    else if (count === 0) io.print(`no events in ${channel}${after > 0 ? ` after seq ${after}` : ''}`);
    return ALREADY_WRITTEN;
  },
};

export const eventsVerify: Command = {
  path: ['events', 'verify'],
  readsOnly: true,
  summary: 'Walk the hash chain of every channel (or one); with --checkpoint, also find events removed from the end.',
  arguments: [],
  options: {
    channel: { type: 'string', description: 'verify only this channel', valueName: 'CHANNEL' },
    checkpoint: {
      type: 'string',
      description:
        'a file `nexus events checkpoint` or `nexus checkpoint` wrote: fail when a channel is now shorter or differs at its seq',
      valueName: 'FILE',
    },
  },
  details:
    'The chain proves each event is unchanged and linked to the one before it, with no gap in seq. It cannot show that ' +
    'the newest events of a channel were removed (what remains is still a valid chain): keep a checkpoint elsewhere and ' +
    'verify against it. Exits 1 when a link is broken or the checkpoint does not hold.',
  async run({ options, io, openEventsLedger }) {
    const file = stringOption(options.checkpoint);
    const checkpoint = file === undefined ? undefined : (await readCheckpointFile(file)).events;
    const result = await openEventsLedger().verify({
      channel: stringOption(options.channel),
      ...(checkpoint ? { checkpoint } : {}),
    });
    const broken = result.firstBroken;
    if (broken) {
      io.print(
        `BROKEN after ${result.checked} good events: ${broken.channel} seq ${broken.seq} (${broken.eventId}): ${broken.reason}`,
      );
    }
    for (const problem of result.checkpointProblems ?? [])
      io.print(`CHECKPOINT ${problem.reason.toUpperCase()}: ${problem.message}`);
    if (result.ok) {
      const anchored = checkpoint ? `; the ${checkpoint.channels.length} channel heads of the checkpoint are all there` : '';
      io.print(`ok: ${result.checked} events in ${result.channels} channels, every link holds${anchored}`);
    } else io.setExitCode(1);
    return result;
  },
};

export const eventsCheckpoint: Command = {
  path: ['events', 'checkpoint'],
  readsOnly: true,
  summary: "Print each channel's head (seq and hash) as JSON, to keep elsewhere and verify against later.",
  arguments: [],
  options: { channel: { type: 'string', description: 'only this channel', valueName: 'CHANNEL' } },
  details:
    'Save the output outside this database (another machine, a commit, a ticket): `nexus events verify --checkpoint FILE` ' +
    'then fails if any channel has since lost events from its end or been rewritten.',
  async run({ options, io, openEventsLedger }) {
    const checkpoint = await openEventsLedger().checkpoint({ channel: stringOption(options.channel) });
    if (checkpoint.channels.length === 0) {
      throw new InvalidInputError('the ledger has no events yet: a checkpoint would anchor nothing.', 'channel');
    }
    // The checkpoint is the output, in either mode: it is meant to be redirected to a file.
    io.write(`${JSON.stringify(checkpoint, null, 2)}\n`);
    return ALREADY_WRITTEN;
  },
};

function eventLine(event: LedgerEvent): string {
  const when = new Date(event.occurredAt).toISOString();
  const text =
    typeof event.payload === 'object' && event.payload !== null && 'text' in event.payload
      ? String((event.payload as { text: unknown }).text)
      : JSON.stringify(event.payload);
  return `#${event.seq}  ${event.id}  ${when}  ${event.author ?? '-'}  ${event.hash.slice(0, 12)}  ${clip(text, 60)}`;
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(`${where} is not valid JSON: ${(error as Error).message}`);
  }
}

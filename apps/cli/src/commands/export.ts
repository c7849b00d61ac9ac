// `nexus export SESSION --format pi|anthropic|nexus`: a session out of the ledger as a pi session
// file (with its compactions and forks as branches), an Anthropic Messages request body (the full
// history, or the context at a turn with --at), or nexus-eval/v1. Writes to stdout or --output.

import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { displayLocation } from '@agent-ledger/store';
import { stringOption, UsageError } from '../arguments.ts';
import { ALREADY_WRITTEN, type Command } from '../command.ts';

const FORMATS = ['pi', 'anthropic', 'nexus'];

export const exportCommand: Command = {
  path: ['export'],
  readsOnly: true,
  summary: 'Write a session as pi JSONL, Anthropic Messages JSON or nexus-eval/v1.',
  arguments: ['<sessionId>'],
  options: {
    format: { type: 'string', description: 'pi (default), anthropic or nexus', valueName: 'NAME' },
    at: {
      type: 'string',
      description: 'anthropic: the context buildContext gives at this turn, not the full history',
      valueName: 'TURN',
    },
    budget: { type: 'string', description: 'anthropic with --at: token budget of that context', valueName: 'N' },
    output: { type: 'string', short: 'o', description: 'write to this file instead of stdout', valueName: 'FILE' },
  },
  details: [
    'pi: the session, then each fork as a branch from its fork point, compactions as compaction entries;',
    '`nexus import` of the file gives the same turns, compactions and forks. anthropic: {messages} with every',
    'raw turn and each compaction summary as a user message where it was written, or {system, messages} at --at.',
    'nexus: nexus-eval/v1 (raw turns only). See docs/import-export.md.',
  ].join('\n'),
  async run({ positionals, options, io, openLedger, dbPath }) {
    const format = stringOption(options.format) ?? 'pi';
    if (!FORMATS.includes(format))
      throw new UsageError(`--format must be pi, anthropic or nexus; got ${JSON.stringify(format)}.`);
    const sessionId = positionals[0] as string;
    const ledger = openLedger();
    const budget = stringOption(options.budget);
    if (budget !== undefined && !/^\d+$/.test(budget))
      throw new UsageError(`--budget must be a whole number of tokens; got ${budget}.`);
    const at = stringOption(options.at);
    if (at !== undefined && format !== 'anthropic') throw new UsageError('--at applies to --format anthropic only.');
    const { exportAnthropic, exportNexus, exportPi } = await import('@agent-ledger/transcripts');
    const chunks: AsyncIterable<string> | Iterable<string> =
      format === 'pi'
        ? exportPi(ledger, sessionId)
        : [
            format === 'nexus'
              ? await exportNexus(ledger, sessionId)
              : await exportAnthropic(ledger, sessionId, {
                  ...(at ? { contextAt: at } : {}),
                  ...(budget ? { budgetTokens: Number(budget) } : {}),
                }),
          ];
    const output = stringOption(options.output);
    if (!output) {
      for await (const chunk of chunks) io.write(chunk);
      return ALREADY_WRITTEN;
    }
    const file = createWriteStream(output);
    let bytes = 0;
    for await (const chunk of chunks) {
      bytes += Buffer.byteLength(chunk);
      if (!file.write(chunk)) await once(file, 'drain');
    }
    file.end();
    await once(file, 'finish');
    io.print(`wrote session ${sessionId} as ${format} to ${output} (${bytes} bytes; ledger ${displayLocation(dbPath)})`);
    return { sessionId, format, output, bytes };
  },
};

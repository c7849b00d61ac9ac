// `nexus export SESSION --format pi|anthropic|nexus`: a session out of the ledger as a pi session
// file (with its compactions and forks as branches), an Anthropic Messages request body (the full
// history, or the context at a turn with --at), or nexus-eval/v1. Writes to stdout or --output.

import { displayLocation } from '@agent-ledger/store';
import { stringOption, UsageError } from '../arguments.ts';
import { ALREADY_WRITTEN, type Command } from '../command.ts';
import { type OutputRule, outputTarget, writeOutputFile } from '../write-output-file.ts';

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
    output: {
      type: 'string',
      short: 'o',
      description: 'write to this file instead of stdout (refused if it exists)',
      valueName: 'FILE',
    },
    force: { type: 'boolean', description: 'with --output: replace the file if it exists' },
  },
  details: [
    'pi: the session, then each fork as a branch from its fork point, compactions as compaction entries;',
    '`nexus import` of the file gives the same turns, compactions and forks. anthropic: {messages} with every',
    'raw turn and each compaction summary as a user message where it was written, or {system, messages} at --at.',
    'nexus: nexus-eval/v1 (raw turns only). --output never overwrites a file unless --force is given, and writes',
    'a temporary file beside it that is renamed into place once whole: a failed export leaves the old file as it was.',
    'See docs/import-export.md.',
  ].join('\n'),
  async run({ positionals, options, io, openLedger, dbPath }) {
    const format = stringOption(options.format) ?? 'pi';
    if (!FORMATS.includes(format))
      throw new UsageError(`--format must be pi, anthropic or nexus; got ${JSON.stringify(format)}.`);
    const sessionId = positionals[0] as string;
    const budget = stringOption(options.budget);
    if (budget !== undefined && !/^\d+$/.test(budget))
      throw new UsageError(`--budget must be a whole number of tokens; got ${budget}.`);
    const at = stringOption(options.at);
    if (at !== undefined && format !== 'anthropic') throw new UsageError('--at applies to --format anthropic only.');
    const output = stringOption(options.output);
    const rule: OutputRule = { flag: '--output', force: options.force === true, forceFlag: '--force' };
    if (rule.force && !output) throw new UsageError('--force applies with --output FILE only.');
    // Refused before any work: an existing file without --force, a folder.
    const target = output ? await outputTarget(output, rule) : undefined;
    const ledger = openLedger();
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
    if (!output || !target) {
      for await (const chunk of chunks) io.write(chunk);
      return ALREADY_WRITTEN;
    }
    const bytes = await writeOutputFile(target, chunks, rule);
    const replaced = target.kind === 'replace';
    io.print(
      `wrote session ${sessionId} as ${format} to ${output} (${bytes} bytes${replaced ? ', replacing the file that was there' : ''}; ` +
        `ledger ${displayLocation(dbPath)})`,
    );
    return { sessionId, format, output, bytes, replaced };
  },
};

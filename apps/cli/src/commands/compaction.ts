// `nexus compact` and `nexus fork`.

import type { CompactionTrigger } from '@agent-ledger/core';
import { integerOption, stringOption, UsageError } from '../arguments.ts';
import { chooseSummarizer } from '../choose-summarizer.ts';
import type { Command } from '../command.ts';
import { TURN_OR_SESSION, turnIdOrHead } from '../turn-or-head.ts';
import { SETTINGS_OPTIONS, settingsFromOptions } from './session.ts';

const TRIGGERS = new Set(['manual', 'threshold', 'overflow']);

export const compactCommand: Command = {
  path: ['compact'],
  summary: 'Compact a session now: summarize its older turns into a compaction turn.',
  arguments: ['<sessionId>'],
  options: {
    instructions: { type: 'string', description: 'what the summary must keep', valueName: 'TEXT' },
    strategy: {
      type: 'string',
      description: 'flat or union-find (default: the session’s strategy, else flat)',
      valueName: 'NAME',
    },
    trigger: { type: 'string', description: 'recorded reason: manual (default), threshold or overflow', valueName: 'WHY' },
    'summary-tokens': { type: 'string', description: 'size limit of the summary', valueName: 'N' },
    'if-needed': { type: 'boolean', description: 'only compact when the session is over its threshold' },
    summarizer: {
      type: 'string',
      description: 'anthropic or extractive (default: anthropic when ANTHROPIC_API_KEY is set, else extractive)',
      valueName: 'NAME',
    },
  },
  details:
    'Nothing is deleted: the compaction turn records what it summarized and where raw turns resume. ' +
    'One compaction of a session runs at a time, across processes: another one started meanwhile waits and reports the same compaction, without calling its summarizer.',
  async run({ positionals, options, io, env, openLedger, commandLine }) {
    const ledger = openLedger({ summarizer: chooseSummarizer(env, { name: stringOption(options.summarizer) }) });
    const sessionId = positionals[0] as string;
    const trigger = stringOption(options.trigger) ?? 'manual';
    if (!TRIGGERS.has(trigger)) throw new UsageError(`--trigger must be manual, threshold or overflow, got "${trigger}".`);
    if (options['if-needed'] === true && !(await ledger.shouldCompact(sessionId))) {
      io.print('not compacted: the context is under the threshold');
      return { compacted: false, usage: await ledger.contextUsage(sessionId) };
    }
    const compaction = await ledger.compact(sessionId, {
      trigger: trigger as CompactionTrigger,
      instructions: stringOption(options.instructions),
      strategy: stringOption(options.strategy),
      summaryTokens: integerOption(options['summary-tokens'], 'summary-tokens'),
    });
    io.print(
      `compaction ${compaction.id}: summarized through ${compaction.summarizedThroughTurnId}, raw turns from ${compaction.firstKeptTurnId ?? '(none)'}`,
    );
    io.print(
      `context ${compaction.tokensBefore} → ${compaction.tokensAfter} tokens (${compaction.strategy}, ${compaction.summarizer} summarizer)`,
    );
    const topics = compaction.metadata?.topics;
    if (Array.isArray(topics)) io.print(`${topics.length} topics; \`${commandLine(`topics ${sessionId}`)}\` lists them`);
    return compaction;
  },
};

export const forkCommand: Command = {
  path: ['fork'],
  summary: "Start a new session from any turn, or a session's head (copy-on-write: nothing is copied).",
  arguments: [TURN_OR_SESSION],
  options: {
    full: { type: 'boolean', description: 'rebuild the fork’s context from raw turns, ignoring inherited compactions' },
    label: { type: 'string', description: 'a name for the new session', valueName: 'TEXT' },
    ...SETTINGS_OPTIONS,
  },
  details:
    'Settings not given are the source session’s. A window learned from the model API (after a "prompt is too long") ' +
    'carries over unless --context-window is given, which sets a new one.',
  async run({ positionals, options, io, openLedger }) {
    const settings = settingsFromOptions(options);
    const ledger = openLedger();
    const fork = await ledger.forkFrom(await turnIdOrHead(ledger, positionals[0] as string), {
      full: options.full === true,
      label: stringOption(options.label),
      ...(Object.keys(settings).length > 0 ? { settings } : {}),
    });
    io.print(`forked session ${fork.session.id} at ${fork.session.headTurnId}`);
    if (fork.forkPointSummarizedBy) io.print(`that turn was summarized by compaction ${fork.forkPointSummarizedBy}`);
    io.print(
      fork.baseCompactionId ? `its context starts from compaction ${fork.baseCompactionId}` : 'its context starts from raw turns',
    );
    return {
      sessionId: fork.session.id,
      headTurnId: fork.session.headTurnId,
      baseCompactionId: fork.baseCompactionId,
      forkPointSummarizedBy: fork.forkPointSummarizedBy,
      full: fork.session.ignoreCompactionsThroughDepth !== null,
    };
  },
};

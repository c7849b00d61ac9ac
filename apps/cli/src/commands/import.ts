// `nexus import <file>`: replay a nexus-eval/v1 conversation as a runtime would.

import { readFileSync } from 'node:fs';
import { importConversation, parseConversation } from '@nexus/agents-ledger';
import { InvalidInputError } from '@nexus/core';
import { stringOption } from '../arguments.ts';
import type { Command } from '../command.ts';
import { SETTINGS_OPTIONS, settingsFromOptions } from './session.ts';

export const importCommand: Command = {
  path: ['import'],
  summary: 'Replay a nexus-eval/v1 conversation file into a new session, compacting on threshold.',
  arguments: ['<file>'],
  options: {
    strategy: { type: 'string', description: 'compaction strategy (default flat)', valueName: 'NAME' },
    label: { type: 'string', description: 'session label (default: the file’s id)', valueName: 'TEXT' },
    ...SETTINGS_OPTIONS,
  },
  details: 'Small --context-window/--reserve/--keep values make a short conversation compact several times.',
  async run({ positionals, options, io, openLedger }) {
    const path = positionals[0] as string;
    let text: string;
    try {
      text = readFileSync(path === '-' ? '/dev/stdin' : path, 'utf8');
    } catch (error) {
      throw new InvalidInputError(`cannot read ${path}: ${(error as Error).message}`);
    }
    const conversation = parseConversation(text, path);
    const result = await importConversation(openLedger(), conversation, {
      label: stringOption(options.label),
      settings: settingsFromOptions(options),
      strategy: stringOption(options.strategy),
      onProgress: (done, total, compactions) => io.progress(`importing ${done}/${total} messages, ${compactions} compactions`),
    });
    io.progress('\n');
    io.print(
      `imported ${result.turns} messages into session ${result.sessionId}: ${result.compactions} compactions, head ${result.headTurnId}`,
    );
    return result;
  },
};

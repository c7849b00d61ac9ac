// `nexus turn append`: from flags, or from a JSON file (one turn or an array, in one transaction).

import type { AppendTurnInput } from '@agent-ledger/agents-ledger';
import { InvalidInputError, type Role } from '@agent-ledger/core';
import { stringOption, UsageError } from '../arguments.ts';
import type { Command } from '../command.ts';
import { readInputText } from '../read-input.ts';

export const turnAppend: Command = {
  path: ['turn', 'append'],
  summary: 'Append a turn (or several from a JSON file) at the session head.',
  arguments: ['<sessionId>'],
  options: {
    role: { type: 'string', description: 'user or assistant (default user)', valueName: 'ROLE' },
    text: { type: 'string', description: 'the message text', valueName: 'TEXT' },
    file: {
      type: 'string',
      description: 'JSON file with {role, content} or an array of them; - for stdin (a pipe, file or socket)',
      valueName: 'FILE',
    },
    'expect-head': { type: 'string', description: 'fail unless the head is this turn (compare-and-set)', valueName: 'TURN' },
    model: { type: 'string', description: 'model that produced the turn', valueName: 'NAME' },
    event: { type: 'string', multiple: true, description: 'an event this turn cites (repeatable)', valueName: 'EVENT_ID' },
  },
  details: 'Content in a file may be a string or Anthropic content blocks (text, tool_use, tool_result).',
  async run({ positionals, options, io, openLedger }) {
    const sessionId = positionals[0] as string;
    const expectedHeadTurnId = stringOption(options['expect-head']);
    let inputs: AppendTurnInput[];
    if (typeof options.file === 'string') {
      const text = await readInputText({
        file: options.file,
        stdin: io.stdin,
        flag: '--file -',
        example: `echo '{"role":"user","content":"…"}' | nexus turn append ${sessionId} --file -`,
      });
      inputs = parseTurns(text, options.file === '-' ? 'standard input' : options.file);
    } else if (typeof options.text === 'string') {
      inputs = [
        { role: (stringOption(options.role) ?? 'user') as Role, content: options.text, model: stringOption(options.model) },
      ];
    } else {
      throw new UsageError('give the turn with --text TEXT or --file FILE.');
    }
    if (expectedHeadTurnId !== undefined && inputs[0]) inputs[0] = { ...inputs[0], expectedHeadTurnId };
    const cited = Array.isArray(options.event) ? options.event : [];
    if (cited.length > 0) inputs = inputs.map((input) => ({ ...input, eventIds: [...(input.eventIds ?? []), ...cited] }));
    const turns = await openLedger().appendTurns(sessionId, inputs);
    for (const turn of turns) io.print(`appended ${turn.id} (${turn.role}, ${turn.tokenCount} tokens)`);
    return turns.length === 1 ? turns[0] : turns;
  },
};

/** The turns in a --file's JSON: one {role, content} or an array of them. */
function parseTurns(text: string, path: string): AppendTurnInput[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  const items = Array.isArray(value) ? value : [value];
  return items.map((item, index) => {
    if (typeof item !== 'object' || item === null) throw new InvalidInputError(`${path}: item ${index} must be an object.`);
    return item as AppendTurnInput;
  });
}

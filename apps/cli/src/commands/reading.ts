// `nexus context`, `nexus history`, `nexus tree`: read-only views. `nexus context --retrieve` ranks by
// stored vectors too when NEXUS_EMBEDDINGS_* name a model (embedder-settings.ts); the ledger, opened
// read-only, sends the query alone and says which turns had no vector (context/semantic-query.ts).

import type { MissingVectors, SessionTree } from '@agent-ledger/agents-ledger';
import type { Embedder } from '@agent-ledger/core';
import { integerOption, stringOption } from '../arguments.ts';
import { ALREADY_WRITTEN, type Command } from '../command.ts';
import { configuredEmbedder, EMBEDDINGS_ENVIRONMENT_HELP } from '../embedder-settings.ts';
import { contextText, turnLine } from '../render.ts';
import { TURN_OR_SESSION, turnIdOrHead } from '../turn-or-head.ts';

export const context: Command = {
  path: ['context'],
  readsOnly: true,
  summary: 'Show the context that would be sent to the model at a turn (a session id: at its head).',
  arguments: [TURN_OR_SESSION],
  options: {
    budget: {
      type: 'string',
      description:
        'token budget; older turns are left out to fit (at least the newest user turn is kept: a smaller budget is refused)',
      valueName: 'N',
    },
    system: { type: 'string', description: 'your system prompt, placed before the summary', valueName: 'TEXT' },
    session: { type: 'string', description: 'view as this session (for a fork made with --full)', valueName: 'ID' },
    full: { type: 'boolean', description: 'ignore compactions: rebuild from raw turns' },
    query: {
      type: 'string',
      description: 'the incoming message: with union-find, the topics nearest it are injected first',
      valueName: 'TEXT',
    },
    retrieve: {
      type: 'boolean',
      description: 'with --query: also retrieve the raw turns that best match it from the whole line (hybrid context)',
    },
  },
  details:
    'JSON output is { system, messages, tokens, ... }: system and messages are ready for the Messages API. ' +
    `${EMBEDDINGS_ENVIRONMENT_HELP} This command reads only: with --retrieve it ranks by the vectors \`nexus embed\` ` +
    '(or embedding at append) stored and sends the endpoint the query alone; turns of the line without a vector are ' +
    'ranked by bm25 only, and it says how many.',
  async run({ positionals, options, io, openLedger, env }) {
    const budgetTokens = integerOption(options.budget, 'budget'); // a usage mistake first, before the database
    const query = stringOption(options.query);
    const embedder = await contextEmbedder(env, options.retrieve === true ? query : undefined);
    const ledger = openLedger(embedder ? { embedder } : {});
    const built = await ledger.buildContext(await turnIdOrHead(ledger, positionals[0] as string), {
      budgetTokens,
      systemPrompt: stringOption(options.system),
      sessionId: stringOption(options.session),
      full: options.full === true,
      query,
      retrieval: options.retrieve === true,
    });
    io.print(contextText(built));
    if (built.missingVectors) io.print(missingVectorsHint(built.missingVectors));
    return built;
  },
};

/** The embedder NEXUS_EMBEDDINGS_* configure, only when a query is retrieved for (nothing is loaded otherwise). */
async function contextEmbedder(
  env: Readonly<Record<string, string | undefined>>,
  retrievedFor: string | undefined,
): Promise<Embedder | undefined> {
  if (retrievedFor === undefined || retrievedFor.trim() === '') return undefined;
  return configuredEmbedder(env);
}

function missingVectorsHint({ model, turns, rankedByMeaning }: MissingVectors): string {
  const embed = (them: string) => `\`nexus embed\` (with the same settings) stores ${them}`;
  if (!rankedByMeaning)
    return `turns of this line have no vector of ${model} yet, so this context ranked by bm25 alone: ${embed('them')}`;
  if (turns === 1) return `1 turn of this line has no vector of ${model} yet, so only bm25 ranked it: ${embed('it')}`;
  return `${turns} turns of this line have no vector of ${model} yet, so only bm25 ranked them: ${embed('them')}`;
}

export const history: Command = {
  path: ['history'],
  readsOnly: true,
  summary: 'List every turn from the root to a turn (a session id: its head), compactions included, oldest first.',
  arguments: [TURN_OR_SESSION],
  options: {},
  async run({ positionals, io, openLedger }) {
    // Streams in both modes: a JSON array written element by element, never held whole.
    let count = 0;
    const ledger = openLedger();
    for await (const turn of ledger.getFullHistory(await turnIdOrHead(ledger, positionals[0] as string))) {
      if (io.json) io.write(`${count === 0 ? '[\n' : ',\n'}${JSON.stringify(turn)}`);
      else io.print(turnLine(turn));
      count += 1;
    }
    if (io.json) io.write(count === 0 ? '[]\n' : '\n]\n');
    return ALREADY_WRITTEN;
  },
};

export const treeCommand: Command = {
  path: ['tree'],
  readsOnly: true,
  summary: 'Show a session and its forks.',
  arguments: ['<sessionId>'],
  options: {},
  async run({ positionals, io, openLedger }) {
    const tree = await openLedger().tree(positionals[0] as string);
    const walk = (node: SessionTree, indent: string) => {
      const { session } = node;
      const from = session.forkedFromTurnId
        ? ` ← forked at ${session.forkedFromTurnId}${session.ignoreCompactionsThroughDepth !== null ? ' (full)' : ''}`
        : '';
      io.print(
        `${indent}${session.id}${session.label ? ` ${session.label}` : ''}  ${node.ownTurns} own turns, head ${session.headTurnId ?? '(empty)'}${from}`,
      );
      for (const fork of node.forks) walk(fork, `${indent}  `);
    };
    walk(tree, '');
    return tree;
  },
};

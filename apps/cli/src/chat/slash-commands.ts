// The slash commands of `nexus chat`: each reads or changes the chat's session through the ledger
// and prints lines. They never throw for a person's mistake: the chat loop prints the error and
// carries on.

import type { AgentsLedger, SessionTree } from '@agent-ledger/agents-ledger';
import { InvalidInputError } from '@agent-ledger/core';
import type { ChatRuntime } from '@agent-ledger/runtime';
import { clip, contextText, turnLine } from '../render.ts';

export interface ChatState {
  sessionId: string;
  ledger: AgentsLedger;
  runtime: ChatRuntime;
  print(line?: string): void;
}

interface SlashCommand {
  usage: string;
  summary: string;
  run(state: ChatState, argument: string): Promise<'exit' | undefined>;
}

export const SLASH_COMMANDS: Record<string, SlashCommand> = {
  compact: {
    usage: '/compact [instructions]',
    summary: 'compact now; the summary keeps what the instructions ask',
    async run(state, instructions) {
      // The runtime's compaction notice says what happened; nothing to add here.
      await state.runtime.compact(state.sessionId, instructions ? { instructions } : {});
      return undefined;
    },
  },
  context: {
    usage: '/context [message]',
    summary: 'what the model is sent next (for that message: with the turns retrieved for it)',
    async run(state, message) {
      const session = await state.ledger.getSession(state.sessionId);
      if (!session.headTurnId) return void state.print('· the session is empty');
      state.print(contextText(await state.runtime.contextFor(state.sessionId, message ? { query: message } : {})));
      return undefined;
    },
  },
  history: {
    usage: '/history',
    summary: 'every turn of this session’s line, compactions included',
    async run(state) {
      const session = await state.ledger.getSession(state.sessionId);
      if (!session.headTurnId) return void state.print('· the session is empty');
      for await (const turn of state.ledger.getFullHistory(session.headTurnId)) state.print(turnLine(turn));
      return undefined;
    },
  },
  fork: {
    usage: '/fork <turnId>',
    summary: 'continue from an earlier turn in a new session (the chat switches to it)',
    async run(state, turnId) {
      if (!turnId) throw new InvalidInputError('/fork needs a turn id; /history lists them.');
      const fork = await state.ledger.forkFrom(turnId, { label: 'chat fork' });
      state.print(
        `· forked ${fork.session.id} at ${turnId}` +
          (fork.baseCompactionId ? ` (context from compaction ${fork.baseCompactionId})` : '') +
          `; now chatting in ${fork.session.id}`,
      );
      state.sessionId = fork.session.id;
      return undefined;
    },
  },
  tree: {
    usage: '/tree',
    summary: 'this conversation’s sessions and forks',
    async run(state) {
      let root = await state.ledger.getSession(state.sessionId);
      while (root.parentSessionId) root = await state.ledger.getSession(root.parentSessionId);
      const walk = (node: SessionTree, indent: string) => {
        const { session } = node;
        const here = session.id === state.sessionId ? '  ← you are here' : '';
        const from = session.forkedFromTurnId ? ` forked at ${session.forkedFromTurnId}` : '';
        state.print(
          `${indent}${session.id}${session.label ? ` ${session.label}` : ''}  ${node.ownTurns} own turns${from}${here}`,
        );
        for (const child of node.forks) walk(child, `${indent}  `);
      };
      walk(await state.ledger.tree(root.id), '');
      return undefined;
    },
  },
  search: {
    usage: '/search <text>',
    summary: 'search the whole history, compacted or not',
    async run(state, text) {
      if (!text) throw new InvalidInputError('/search needs some words to look for.');
      const { hits } = await state.ledger.search(text, { sessionId: state.sessionId, includeForks: true, limit: 8 });
      if (hits.length === 0) state.print(`· no match for ${JSON.stringify(text)}`);
      for (const hit of hits) state.print(`· ${hit.turnId}${hit.via ? ` (via ${hit.via})` : ''}  ${clip(hit.snippet, 100)}`);
      return undefined;
    },
  },
  topics: {
    usage: '/topics',
    summary: 'the topics of a union-find compaction',
    async run(state) {
      const topics = await state.ledger.topics(state.sessionId);
      if (topics.length === 0) state.print('· no topics: the session has no union-find compaction yet');
      for (const topic of topics) {
        state.print(`· ${topic.id}  ${topic.members} turns${topic.dropped ? ' (dropped)' : ''}  ${clip(topic.preview, 80)}`);
      }
      return undefined;
    },
  },
  expand: {
    usage: '/expand <topicId>',
    summary: 'the turns a topic stands for',
    async run(state, clusterId) {
      if (!clusterId) throw new InvalidInputError('/expand needs a topic id; /topics lists them.');
      for (const turn of await state.ledger.expandTopic(clusterId, { sessionId: state.sessionId })) state.print(turnLine(turn));
      return undefined;
    },
  },
  help: {
    usage: '/help',
    summary: 'this list',
    async run(state) {
      for (const command of Object.values(SLASH_COMMANDS)) state.print(`  ${command.usage.padEnd(24)} ${command.summary}`);
      return undefined;
    },
  },
  exit: {
    usage: '/exit',
    summary: 'leave (end of input does the same)',
    async run() {
      return 'exit';
    },
  },
};

/** Runs `/name argument`; an unknown name is a person's typo, answered with the list. */
export async function runSlashCommand(state: ChatState, line: string): Promise<'exit' | undefined> {
  const [name = '', ...rest] = line.slice(1).split(/\s+/);
  const command = SLASH_COMMANDS[name.toLowerCase()];
  if (!command) {
    throw new InvalidInputError(
      `Unknown command /${name}. Commands: ${Object.keys(SLASH_COMMANDS)
        .map((key) => `/${key}`)
        .join(' ')}`,
    );
  }
  return command.run(state, rest.join(' ').trim());
}

// The work of `nexus demo` (commands/demo.ts holds its options and help): replays the conversation
// that ships with the CLI into a fresh database with a small context window, so it compacts several
// times, then shows what a user needs to see it worked: turns, compactions and their pointers, the
// context that would be sent, and a fork from a turn a compaction already summarized.

import { existsSync, readFileSync, rmSync } from 'node:fs';
import { type AgentsLedger, importConversation, openAgentsLedger, parseConversation } from '@agent-ledger/agents-ledger';
import { type CompactionTurn, InvalidInputError, isCompaction, sequentialIds } from '@agent-ledger/core';
import { integerOption } from '../arguments.ts';
import type { CommandInput, CommandIo } from '../command.ts';
import { clip, contextText, turnLine } from '../render.ts';

const CONVERSATION_FILE = new URL('../demo/conversation.json', import.meta.url);
const FORK_LABEL = 'what-if: pg_upgrade instead';
const DEMO_SETTINGS = { contextWindow: 1600, reserveTokens: 300, keepRecentTokens: 400 };

export async function runDemoCommand({ options, io, dbPath, dbPathGiven }: CommandInput): Promise<unknown> {
  const path = dbPathGiven ? dbPath : './nexus-demo.db';
  if (existsSync(path)) {
    await assertDemoDatabase(path);
    for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  }
  const ledger = openAgentsLedger(path, { generateId: sequentialIds() });
  try {
    return await runDemo({ ledger, io, path, budget: integerOption(options.budget, 'budget') ?? 900 });
  } finally {
    await ledger.close();
  }
}

function loadDemoConversation() {
  return parseConversation(readFileSync(CONVERSATION_FILE, 'utf8'), 'demo conversation');
}

/** Refuses to delete a database unless every session in it is one the demo writes. */
async function assertDemoDatabase(path: string): Promise<void> {
  const labels: Array<string | null> = [];
  try {
    const ledger = openAgentsLedger(path, { readonly: true });
    try {
      for (let offset = 0; ; offset += 100) {
        const page = await ledger.listSessions({ limit: 100, offset });
        labels.push(...page.map((session) => session.label));
        if (page.length < 100) break;
      }
    } finally {
      await ledger.close();
    }
  } catch {
    throw new InvalidInputError(
      `refusing to replace ${path}: it is not a ledger database the demo wrote. Pass --db with a new file.`,
    );
  }
  const demoLabels = new Set([loadDemoConversation().id, FORK_LABEL]);
  if (labels.some((label) => label === null || !demoLabels.has(label))) {
    throw new InvalidInputError(
      `refusing to replace ${path}: it holds sessions the demo did not write. Pass --db with a new file.`,
    );
  }
}

/** What every step of the demo works with. */
interface DemoRun {
  ledger: AgentsLedger;
  io: CommandIo;
  /** The database file, for the commands the demo suggests. */
  path: string;
  /** Tokens of the contexts it shows. */
  budget: number;
}

type DemoConversation = ReturnType<typeof loadDemoConversation>;
type ImportedConversation = Awaited<ReturnType<typeof importConversation>>;

async function runDemo(demo: DemoRun) {
  const { io, path } = demo;
  const conversation = loadDemoConversation();
  const imported = await replayConversation(demo, conversation);
  const head = imported.headTurnId as string;
  const compactions = await showFullHistory(demo, imported);
  await showCompactions(demo, compactions);
  const context = await showContext(demo, head);
  const fork = await showFork(demo, { conversation, imported });
  await showSessionTree(demo, imported.sessionId);

  io.print('');
  io.print(`Explore it: nexus history ${head} --db ${path}   ·   nexus context ${head} --budget 600 --db ${path}`);
  return {
    sessionId: imported.sessionId,
    headTurnId: head,
    turns: imported.turns,
    compactions: compactions.map((compaction) => ({
      id: compaction.id,
      summarizedThroughTurnId: compaction.summarizedThroughTurnId,
      firstKeptTurnId: compaction.firstKeptTurnId,
      tokensBefore: compaction.tokensBefore,
      tokensAfter: compaction.tokensAfter,
    })),
    context: { tokens: context.tokens, messages: context.messages.length },
    fork,
  };
}

async function replayConversation({ ledger, io, path }: DemoRun, conversation: DemoConversation): Promise<ImportedConversation> {
  io.print(`== 1. Replaying ${conversation.messages.length} messages of "${conversation.id}" into ${path}`);
  io.print(
    `   context window ${DEMO_SETTINGS.contextWindow} tokens, reserve ${DEMO_SETTINGS.reserveTokens}, keep ${DEMO_SETTINGS.keepRecentTokens} raw: compaction runs on threshold`,
  );
  return importConversation(ledger, conversation, {
    settings: DEMO_SETTINGS,
    onCompaction: (compactionId, messageId) => io.print(`   … after ${messageId}: compaction ${compactionId} written`),
  });
}

/** Prints every turn of the line, compactions included, and returns the compactions. */
async function showFullHistory({ ledger, io }: DemoRun, imported: ImportedConversation): Promise<CompactionTurn[]> {
  io.print('');
  io.print(`== 2. The full history (${imported.turns} turns + ${imported.compactions} compaction turns; nothing was deleted)`);
  const compactions: CompactionTurn[] = [];
  for await (const turn of ledger.getFullHistory(imported.headTurnId as string)) {
    if (isCompaction(turn)) compactions.push(turn);
    io.print(`   ${turnLine(turn, 80)}`);
  }
  return compactions;
}

async function showCompactions({ ledger, io }: DemoRun, compactions: readonly CompactionTurn[]): Promise<void> {
  io.print('');
  io.print('== 3. Each compaction is a turn that says what it summarized');
  for (const compaction of compactions) {
    const covered = await ledger.getSummarizedTurns(compaction.id);
    io.print(
      `   ${compaction.id}: summarizedThroughTurnId=${compaction.summarizedThroughTurnId} firstKeptTurnId=${compaction.firstKeptTurnId ?? '-'} ` +
        `tokensBefore=${compaction.tokensBefore} tokensAfter=${compaction.tokensAfter}; stands in for ${covered.length} turns (${covered[0]?.id}…${covered.at(-1)?.id})`,
    );
  }
  const latest = compactions.at(-1);
  if (latest) {
    io.print('');
    io.print(`   Latest summary (${latest.id}), each line citing its source turn:`);
    for (const line of latest.summary.split('\n')) io.print(`   | ${clip(line, 110)}`);
  }
}

async function showContext({ ledger, io, budget }: DemoRun, head: string) {
  io.print('');
  io.print(`== 4. The context that would be sent to the model now (budget ${budget} tokens)`);
  const context = await ledger.buildContext(head, { budgetTokens: budget });
  for (const line of contextText(context).split('\n')) io.print(`   ${clip(line, 120)}`);
  return context;
}

/** Forks from a turn a compaction already summarized, appends to the fork and shows its context. */
async function showFork(
  { ledger, io, path, budget }: DemoRun,
  { conversation, imported }: { conversation: DemoConversation; imported: ImportedConversation },
) {
  const forkMessage = conversation.messages.find((message) => message.id === 'm13') ?? conversation.messages[12];
  const forkTurnId = forkMessage ? imported.turnIds[forkMessage.id] : undefined;
  io.print('');
  io.print(`== 5. Fork from ${forkTurnId} (message ${forkMessage?.id}), which a compaction already summarized`);
  const fork = await ledger.forkFrom(forkTurnId as string, { label: FORK_LABEL });
  io.print(`   new session ${fork.session.id}, head ${fork.session.headTurnId}; no turn copied`);
  io.print(
    `   summarized in the source by ${fork.forkPointSummarizedBy ?? '(nothing yet)'}; fork context starts from ${fork.baseCompactionId ?? 'raw turns'}`,
  );
  const forkTurn = await ledger.appendTurn(fork.session.id, {
    role: 'user',
    content: 'Alternative plan: what if we used pg_upgrade --link during a 20-minute maintenance window instead?',
  });
  const forkContext = await ledger.buildContext(forkTurn.id, { budgetTokens: budget });
  io.print(
    `   appended ${forkTurn.id} to the fork; its context holds ${forkContext.messages.length} messages, ${forkContext.tokens} tokens:`,
  );
  const lines = contextText(forkContext).split('\n');
  const shown = lines.slice(0, 14);
  // Never end on a bare "── role" header whose text was cut.
  while (shown.at(-1)?.startsWith('── ')) shown.pop();
  for (const line of shown) io.print(`   ${clip(line, 120)}`);
  if (shown.length < lines.length)
    io.print(`   … ${lines.length - shown.length} more lines (nexus context ${forkTurn.id} --db ${path})`);
  return { sessionId: fork.session.id, forkedFromTurnId: forkTurnId, appendedTurnId: forkTurn.id };
}

async function showSessionTree({ ledger, io }: DemoRun, sessionId: string): Promise<void> {
  io.print('');
  io.print('== 6. The session tree');
  const tree = await ledger.tree(sessionId);
  io.print(`   ${tree.session.id} (${tree.ownTurns} turns, head ${tree.session.headTurnId})`);
  for (const child of tree.forks)
    io.print(
      `   └─ ${child.session.id} "${child.session.label}" forked at ${child.session.forkedFromTurnId}, ${child.ownTurns} own turn`,
    );
}

// `nexus chat`: a terminal chat on the ledger. Every line on stdin is a message or a slash command;
// it works at a prompt and piped (lines are echoed so the output reads as a transcript), and ends
// at end of input after any background compaction has landed.

import { createInterface } from 'node:readline';
import type { AgentsLedger } from '@agent-ledger/agents-ledger';
import { LedgerError, type Session } from '@agent-ledger/core';
import type { RuntimeNotice } from '@agent-ledger/runtime';
import { stringOption, UsageError } from '../arguments.ts';
import type { ChatState, runSlashCommand } from '../chat/slash-commands.ts';
import { messageForCli } from '../cli-conventions.ts';
import type { Command, CommandInput, CommandIo } from '../command.ts';
import { configuredEmbedder, EMBEDDINGS_ENVIRONMENT_HELP } from '../embedder-settings.ts';
import { clip } from '../render.ts';
import { SETTINGS_OPTIONS, settingsFromOptions } from './session.ts';

export const chatCommand: Command = {
  path: ['chat'],
  summary: 'Chat in a session: messages and /commands on stdin, compaction shown as it happens.',
  arguments: [],
  options: {
    session: { type: 'string', description: 'continue this session (default: a new one)', valueName: 'ID' },
    strategy: {
      type: 'string',
      description: 'compaction strategy of a new session: flat (default) or union-find',
      valueName: 'NAME',
    },
    model: {
      type: 'string',
      description: 'Anthropic chat model (default $NEXUS_CHAT_MODEL, else claude-sonnet-4-6)',
      valueName: 'NAME',
    },
    offline: { type: 'boolean', description: 'use the offline model even when ANTHROPIC_API_KEY is set' },
    'count-tokens': {
      type: 'boolean',
      description: "with a key: count each prompt with the API's count-tokens endpoint before sending it",
    },
    system: { type: 'string', description: 'system prompt placed before the summary', valueName: 'TEXT' },
    timeout: {
      type: 'string',
      description:
        'seconds a model request may wait for its answer, or go silent part-way through it, before it fails (default $NEXUS_MODEL_TIMEOUT, else 60)',
      valueName: 'SECONDS',
    },
    ...SETTINGS_OPTIONS,
  },
  details:
    'With ANTHROPIC_API_KEY set (and ANTHROPIC_BASE_URL for a proxy), replies come from Anthropic and summaries from ' +
    '$NEXUS_SUMMARY_MODEL (default claude-haiku-4-5); without a key a labelled offline model answers. ' +
    'Commands: /compact [instructions], /context [message], /history, /fork <turnId>, /tree, /search <text>, /topics, ' +
    '/expand <topicId>, /help, /exit. Small windows show compaction quickly: --context-window 2000 --reserve 200 --keep 400. ' +
    `Each prompt recalls earlier turns that match the message. ${EMBEDDINGS_ENVIRONMENT_HELP}`,
  async run(input) {
    const { options, io, env } = input;
    if (io.json)
      throw new UsageError('nexus chat is interactive and has no --json output; use `nexus context` or `nexus history --json`.');
    const timeoutSeconds = timeoutOption(options.timeout ?? env.NEXUS_MODEL_TIMEOUT, options.timeout === undefined);
    // The runtime and the model SDK load only when a chat starts (they are most of the CLI's code).
    const [{ createChatRuntime }, { chooseModels }, { runSlashCommand }] = await Promise.all([
      import('@agent-ledger/runtime'),
      import('../chat/choose-models.ts'),
      import('../chat/slash-commands.ts'),
    ]);
    const choice = chooseModels(env, {
      offline: options.offline === true,
      model: stringOption(options.model),
      ...(timeoutSeconds !== undefined ? { timeoutMs: timeoutSeconds * 1000 } : {}),
    });
    const embedder = await configuredEmbedder(env);
    const ledger = input.openLedger({ summarizer: choice.summarizer, ...(embedder ? { embedder } : {}) });
    const events = input.openEventsLedger();
    const { session, requested } = await openChatSession(ledger, options);
    const state: ChatState = { sessionId: session.id, ledger, runtime: undefined as never, print: (line) => io.print(line) };
    state.runtime = createChatRuntime({
      ledger,
      events,
      model: choice.model,
      countTokensBeforeSending: options['count-tokens'] === true,
      ...(stringOption(options.system) ? { systemPrompt: stringOption(options.system) } : {}),
      onNotice: (notice) => printNotice(notice, io.print),
    });
    printGreeting(state, { session, continued: Boolean(requested), modelDescription: choice.description });
    if (embedder) io.print(`recall ranks turns by meaning too: ${embedder.model} at ${embedder.endpoint}`);
    const counts = await chatLoop(state, {
      io,
      runSlashCommand,
      timeoutSeconds: timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
      database: { path: input.dbPath, given: input.dbPathGiven },
    });
    return finishChat(state, { ...counts, io, commandLine: input.commandLine });
  },
};

/** The session to chat in: the one --session names, or a new one with the settings given. */
async function openChatSession(
  ledger: AgentsLedger,
  options: CommandInput['options'],
): Promise<{ session: Session; requested: string | undefined }> {
  const requested = stringOption(options.session);
  const newSessionOnly = ['strategy', 'context-window', 'reserve', 'keep'].filter((name) => options[name] !== undefined);
  if (requested && newSessionOnly.length > 0) {
    throw new UsageError(
      `--${newSessionOnly.join(', --')} set${newSessionOnly.length === 1 ? 's' : ''} up a new session; session ${requested} keeps its own settings (\`nexus session show ${requested}\`).`,
    );
  }
  const session = requested
    ? await ledger.getSession(requested)
    : await ledger.createSession({
        label: 'chat',
        strategy: stringOption(options.strategy),
        settings: settingsFromOptions(options),
      });
  return { session, requested };
}

function printGreeting(state: ChatState, chat: { session: Session; continued: boolean; modelDescription: string }): void {
  const { session } = chat;
  state.print(`nexus chat · session ${session.id}${chat.continued ? ' (continued)' : ' (new)'} · ${chat.modelDescription}`);
  const { contextWindow, reserveTokens } = session.settings;
  state.print(
    `window ${contextWindow} tokens (${reserveTokens} reserved for the reply, ${state.runtime.overheadTokens} for tool definitions and system prompt), ` +
      `compaction above ${contextWindow - reserveTokens - state.runtime.overheadTokens}; /help lists commands`,
  );
}

interface ChatLoopOptions {
  io: CommandIo;
  runSlashCommand: typeof runSlashCommand;
  timeoutSeconds: number;
  /** Where the ledger is, for error messages that name it. */
  database: { path: string; given: boolean };
}

interface ChatCounts {
  /** Messages the model answered. */
  turns: number;
  /** Messages that ended in an error (they are in the ledger, unanswered). */
  unanswered: number;
}

/** Reads stdin line by line until its end or /exit: each line is a message or a slash command. */
async function chatLoop(
  state: ChatState,
  { io, runSlashCommand, timeoutSeconds, database }: ChatLoopOptions,
): Promise<ChatCounts> {
  const interactive = Boolean((io.stdin as { isTTY?: boolean }).isTTY);
  const lines = createInterface({ input: io.stdin, terminal: false });
  const prompt = () => {
    if (interactive) io.write('you> ');
  };
  prompt();
  let turns = 0;
  let unanswered = 0;
  for await (const raw of lines) {
    const line = raw.trim();
    if (line === '') {
      prompt();
      continue;
    }
    if (!interactive) io.print(`you> ${line}`);
    try {
      if (line.startsWith('/')) {
        if ((await runSlashCommand(state, line)) === 'exit') break;
      } else {
        const result = await whileWaiting(state.runtime.runTurn(state.sessionId, line), { interactive, io, timeoutSeconds });
        turns += 1;
        if (result.overflowCompaction)
          io.print(`· the prompt was too long: compacted (${result.overflowCompaction.id}) and retried`);
        io.print(`assistant> ${result.text || '(no text)'}`);
      }
    } catch (error) {
      if (!LedgerError.isInstance(error)) throw error;
      if (!line.startsWith('/')) unanswered += 1;
      io.print(`error: ${messageForCli(error, database, Object.keys(chatCommand.options))}`);
    }
    prompt();
  }
  lines.close();
  return { turns, unanswered };
}

/** Waits for a background compaction to land, then says how to resume and whether anything went unanswered. */
async function finishChat(
  state: ChatState,
  { turns, unanswered, io, commandLine }: ChatCounts & { io: CommandIo; commandLine: CommandInput['commandLine'] },
): Promise<{ sessionId: string; headTurnId: Session['headTurnId']; turns: number; unanswered: number }> {
  if (state.runtime.compactionInFlight(state.sessionId)) io.print('· waiting for the compaction in progress to land…');
  await state.runtime.idle();
  const final = await state.ledger.getSession(state.sessionId);
  io.print(
    `bye · session ${final.id}, head ${final.headTurnId ?? '(empty)'} · resume with: ${commandLine(`chat --session ${final.id}`)}`,
  );
  if (unanswered > 0) {
    // A script piping lines in must be able to tell that some were never answered.
    io.print(
      `${unanswered} of ${turns + unanswered} messages went unanswered (each error is above); they are in the ledger, and /exit then \`${commandLine(`chat --session ${final.id}`)}\` retries in the same session.`,
    );
    io.setExitCode(1);
  }
  return { sessionId: final.id, headTurnId: final.headTurnId, turns, unanswered };
}

/** What one model request may wait (for its headers, and between bytes of its body) unless --timeout or $NEXUS_MODEL_TIMEOUT says otherwise. */
const DEFAULT_TIMEOUT_SECONDS = 60;
/** After this long without an answer the terminal says it is still waiting. */
const QUIET_MS = 2000;

function timeoutOption(value: unknown, fromEnvironment: boolean): number | undefined {
  if (value === undefined || value === '') return undefined;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    const where = fromEnvironment ? '$NEXUS_MODEL_TIMEOUT' : '--timeout';
    throw new UsageError(`${where} takes a number of seconds above 0, got "${String(value)}".`);
  }
  return seconds;
}

/**
 * Awaits a turn, and says so when the model takes more than a couple of seconds: a progress line
 * that counts up at a prompt, one line when piped (a transcript should not fill with counters).
 */
async function whileWaiting<T>(
  work: Promise<T>,
  options: { interactive: boolean; io: CommandIo; timeoutSeconds: number },
): Promise<T> {
  const started = Date.now();
  let announced = false;
  const timer = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    const text = `· waiting for the model: ${seconds} s (a request times out after ${options.timeoutSeconds} s and is retried up to twice; --timeout changes it)`;
    if (options.interactive) options.io.progress(text);
    else if (!announced) options.io.print(text);
    announced = true;
  }, QUIET_MS);
  try {
    return await work;
  } finally {
    clearInterval(timer);
    if (announced && options.interactive) options.io.progress('\n');
  }
}

function printNotice(notice: RuntimeNotice, print: (line: string) => void): void {
  switch (notice.type) {
    case 'compaction-started':
      print(`· compacting in the background (${notice.trigger}, context ${notice.contextTokens} tokens); the chat goes on`);
      return;
    case 'compaction-finished': {
      const { compaction } = notice;
      print(
        `· compaction ${compaction.id} landed (${compaction.trigger}): turns through ${compaction.summarizedThroughTurnId} summarized, ` +
          `context ${compaction.tokensBefore} → ${compaction.tokensAfter} tokens (saved ${notice.savedTokens}; ${compaction.strategy}, ${compaction.summarizer})`,
      );
      return;
    }
    case 'compaction-failed':
      print(`· compaction failed, every turn kept: ${notice.error.message}`);
      return;
    case 'compaction-skipped':
      return; // anti-thrash waits are routine; /context shows the state when asked
    case 'window-learned': {
      const { settings, calibration } = notice;
      if (notice.trigger === 'accepted-prompt') {
        print(
          `· the model answered a prompt the learned window said it would refuse: this session's window is back to ${settings.contextWindow} tokens by this ledger's count ` +
            `(the model counted ${calibration?.promptTokens ?? 'as many tokens as'} where the ledger estimated ${calibration?.estimatedTokens ?? 'them'})`,
        );
        return;
      }
      print(
        `· the model said the prompt was too long: this session's window is now ${settings.contextWindow} tokens by this ledger's count ` +
          `(reserve ${settings.reserveTokens}, keep ${settings.keepRecentTokens}; the model counted ${calibration?.promptTokens} where the ledger estimated ${calibration?.estimatedTokens})`,
      );
      return;
    }
    case 'overflow-doubted': {
      const { doubt } = notice;
      print(
        `· the model said the prompt was too long (${doubt.promptTokens} tokens${doubt.limitTokens === null ? '' : ` > ${doubt.limitTokens}`}), ` +
          `which would leave a window of ${doubt.impliedWindowTokens} tokens, but it answered a prompt of ${doubt.acceptedTokens}: not believed, sent again as it was`,
      );
      return;
    }
    case 'tool-call':
      print(`· tool ${notice.name} ${clip(JSON.stringify(notice.input), 80)}${notice.isError ? ' (error)' : ''}`);
      return;
  }
}

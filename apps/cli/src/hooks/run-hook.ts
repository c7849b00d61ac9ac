// `nexus hook <claude-code|codex> <event>`: what Claude Code and Codex run on their hook events
// (hooks install writes the entries). Reads the event on stdin; on a stop, a compaction or the end
// of a session it imports the new lines of the session's transcript (the incremental importer); on a
// prompt it catches up the same way, then gives back what the session's last compaction dropped and
// the prompt needs; after a compaction or a resume it says where the full history is.
//
// A hook never hurts the session it serves: whatever fails (no ledger, a locked or damaged file, a
// PostgreSQL server down, garbage on stdin, a slow disk), it exits 0 with one line on stderr and one
// in the hooks log, prints nothing partial, and answers within its time budget.

import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { openAgentsLedger } from '@agent-ledger/agents-ledger';
import { displayLocation } from '@agent-ledger/store';
import { importTranscripts, markInjected } from '@agent-ledger/transcripts';
import type { MainIo } from '../main-io.ts';
import { HOOK_EVENTS, HOOK_TOOLS, type HookEvent, type HookInput, type HookTool, parseHookInput, readAll } from './hook-input.ts';
import { appendHookLog, defaultHookLog, nexusHome } from './hook-log.ts';
import { DEFAULT_RECALL_CHARS, recallDropped } from './recall-dropped.ts';

export interface HookOptions {
  tool: HookTool;
  event: HookEvent;
  /** The ledger: a SQLite file or a postgres:// URL. */
  db: string;
  maxChars: number;
  log: string;
  /** The whole hook's time budget, and how long it waits for another import of the same file. */
  budgetMs: number;
  waitMs: number;
}

/** Events on the prompt path: the user waits for them. */
const BLOCKING: ReadonlySet<HookEvent> = new Set(['user-prompt-submit', 'session-start']);
const EVENT_NAMES: Record<HookEvent, string> = {
  'session-start': 'SessionStart',
  'user-prompt-submit': 'UserPromptSubmit',
  stop: 'Stop',
  'subagent-stop': 'SubagentStop',
  'pre-compact': 'PreCompact',
  'post-compact': 'PostCompact',
  'session-end': 'SessionEnd',
};

export const HOOK_HELP = [
  'Usage: nexus hook <claude-code|codex> <event> [--db FILE|URL] [--max-chars N] [--log FILE]',
  '',
  'What Claude Code and Codex run on their hook events (`nexus hooks install` writes the entries); the event JSON comes',
  `on stdin. Events: ${HOOK_EVENTS.join(', ')}. Stops, compactions and session ends import the new lines of the`,
  "session's transcript; a prompt also gets back (as additionalContext) the turns from before the session's last",
  'compaction that answer it; a compaction or a resume gets a note on where the full history is. It always exits 0:',
  'a failure is one line on stderr and in the log (default ~/.nexus/hooks.log, or $NEXUS_HOOK_LOG). docs/claude-code.md.',
  '',
  'Options:',
  '  --db FILE|URL   the ledger (default $NEXUS_DB, else ~/.nexus/ledger.db)',
  `  --max-chars N   the most a prompt's recall may add (default ${DEFAULT_RECALL_CHARS})`,
  '  --log FILE      the hooks log',
].join('\n');

/** Runs one hook; always resolves 0 (exit 2 would block the user's prompt). */
export async function runHook(argv: string[], io: MainIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout(`${HOOK_HELP}\n`);
    return 0;
  }
  const started = Date.now();
  const options = hookOptions(argv, io.env);
  const label = `${argv[0] ?? '?'} ${argv[1] ?? '?'}`;
  try {
    if (typeof options === 'string') throw new Error(options);
    const answer = await withinBudget(handle(options, io), options.budgetMs);
    if (answer === TIMED_OUT) throw new Error(`gave up after ${options.budgetMs} ms (the ledger was busy or slow)`);
    if (answer.output) io.stdout(`${JSON.stringify(answer.output)}\n`);
    appendHookLog(options.log, `${label} ok ${Date.now() - started}ms ${answer.note}`);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`nexus hook: ${message}\n`);
    appendHookLog(
      typeof options === 'string' ? defaultHookLog(io.env) : options.log,
      `${label} failed ${Date.now() - started}ms ${message}`,
    );
  }
  return 0;
}

const TIMED_OUT = Symbol('timed out');

async function withinBudget<T>(work: Promise<T>, budgetMs: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), budgetMs);
  });
  work.catch(() => undefined); // a failure after the budget is logged by nobody, and harms nothing
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

function hookOptions(argv: string[], env: Record<string, string | undefined>): HookOptions | string {
  const [tool, event] = argv as [string | undefined, string | undefined];
  if (!HOOK_TOOLS.includes(tool as HookTool)) return `unknown tool "${tool}": ${HOOK_TOOLS.join(' or ')}`;
  if (!HOOK_EVENTS.includes(event as HookEvent)) return `unknown event "${event}": ${HOOK_EVENTS.join(', ')}`;
  const flag = (name: string) => {
    const index = argv.indexOf(`--${name}`);
    if (index >= 0) return argv[index + 1];
    return argv.find((each) => each.startsWith(`--${name}=`))?.slice(name.length + 3);
  };
  const maxChars = Number(flag('max-chars') ?? DEFAULT_RECALL_CHARS);
  const blocking = BLOCKING.has(event as HookEvent);
  return {
    tool: tool as HookTool,
    event: event as HookEvent,
    db: flag('db') || env.NEXUS_DB || path.join(nexusHome(env), 'ledger.db'),
    maxChars: Number.isInteger(maxChars) && maxChars > 0 ? maxChars : DEFAULT_RECALL_CHARS,
    log: flag('log') ?? defaultHookLog(env),
    // The prompt path answers in a few seconds whatever happens; the rest may take their time.
    budgetMs: blocking ? 5_000 : 25_000,
    waitMs: blocking ? 1_500 : 20_000,
  };
}

interface HookAnswer {
  output?: { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
  note: string;
}

async function handle(options: HookOptions, io: MainIo): Promise<HookAnswer> {
  const input = parseHookInput(await readAll(io.stdin));
  if (!/^postgres(ql)?:\/\//i.test(options.db)) mkdirSync(path.dirname(path.resolve(options.db)), { recursive: true });
  const ledger = openAgentsLedger(options.db);
  try {
    const imported = await catchUp(ledger, options, input);
    if (options.event === 'user-prompt-submit') return { ...(await promptRecall(ledger, options, input)), note: imported };
    if (options.event === 'session-start' && (input.source === 'compact' || input.source === 'resume'))
      return { output: context(options, ledgerNote(options)), note: `${imported}; note given` };
    return { note: imported };
  } finally {
    await ledger.close();
  }
}

/**
 * Imports the new lines of the session's transcript, then of its subagents' (Claude Code keeps them
 * in `<session>/subagents/`). A subagent forks from the Task call that started it, and that call's
 * round is held back until its result is written, after the subagent stops: so SubagentStop imports
 * the parent alone and the subagent waits for the next Stop, as a batch import of the finished
 * files would order them.
 */
async function catchUp(ledger: ReturnType<typeof openAgentsLedger>, options: HookOptions, input: HookInput): Promise<string> {
  if (!input.transcriptPath) return 'no transcript_path';
  const transcript = path.resolve(input.cwd ?? '.', input.transcriptPath);
  if (!existsSync(transcript)) return `no transcript yet at ${transcript}`;
  const files = options.event === 'subagent-stop' ? [transcript] : [transcript, ...subagentTranscripts(transcript)];
  const result = await importTranscripts({ ledger, paths: files, busyWaitMs: options.waitMs });
  if (result.busy.length > 0) return 'another import of the transcript was running';
  return `imported ${result.turns} turns, ${result.compactions} compactions, ${result.forks} forks`;
}

/** The subagent transcripts Claude Code keeps beside a session's (none for Codex), in name order. */
function subagentTranscripts(transcript: string): string[] {
  const folder = path.join(transcript.replace(/\.jsonl$/, ''), 'subagents');
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((name) => name.endsWith('.jsonl'))
    .sort()
    .map((name) => path.join(folder, name));
}

async function promptRecall(
  ledger: ReturnType<typeof openAgentsLedger>,
  options: HookOptions,
  input: HookInput,
): Promise<Omit<HookAnswer, 'note'>> {
  if (!input.prompt || !input.sessionId) return {};
  const recall = await recallDropped(ledger, {
    sourceKey: `${options.tool}:${input.sessionId}`,
    prompt: input.prompt,
    maxChars: options.maxChars,
  });
  return recall ? { output: context(options, recall.text) } : {};
}

function context(options: HookOptions, text: string): NonNullable<HookAnswer['output']> {
  return { hookSpecificOutput: { hookEventName: EVENT_NAMES[options.event], additionalContext: text } };
}

function ledgerNote(options: HookOptions): string {
  return markInjected(
    `This session's whole history, including what compaction summarized away, is kept in the nexus ledger (${displayLocation(options.db)}). ` +
      'The nexus MCP tools read it: search_history finds turns by their words (compacted or not), expand returns a turn, a ' +
      'compaction or a topic in full, get_context builds the context at a turn.',
  );
}

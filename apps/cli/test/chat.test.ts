// `nexus chat` end to end. The offline and Anthropic runs are child processes of the installed bin
// with piped stdin, driven line by line: each step waits for the output it depends on (a compaction
// landing, the ids /history printed), so nothing rests on how fast a background compaction is. The
// Anthropic run uses the real SDK against the loopback Messages API. Slash-command mistakes and
// usage errors run in-process through main().

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { openAgentsLedger } from '@agent-ledger/agents-ledger';
import { contentText, type Turn } from '@agent-ledger/core';
import {
  type LoopbackApi,
  messageText,
  type RecordedRequest,
  type Responder,
  startLoopbackApi,
} from '@agent-ledger/loopback-api';
import { DEFAULT_CHAT_MODEL } from '@agent-ledger/runtime';
import { DEFAULT_SUMMARY_MODEL, SUMMARY_SYSTEM_PROMPT } from '@agent-ledger/summarizers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILT_CLI } from './built-cli.ts';
import { runCli, tempFolder } from './run-cli.ts';

const BIN = BUILT_CLI;
/** Longest wait for one expected line; a failing step reports the output so far instead of hanging. */
const WAIT_MS = 20_000;

// Ten facts of about 60 tokens a round trip: with the window below, the tenth crosses the threshold.
const FACTS = [
  'The billing service runs on host bravo-7 and its database password rotates every 14 days per policy.',
  'Our staging cluster lives in region eu-central-1 and uses kubernetes version 1.29 with three worker nodes.',
  'The release train leaves every Thursday at 16:00 UTC and needs two approvals from the platform team.',
  'Incident INC-4471 was caused by an expired certificate on the edge proxy called lighthouse.',
  'The analytics warehouse is snowflake account xq-9921 and nightly loads start at 02:30 UTC sharp.',
  'Our on-call rotation uses pagerduty schedule P7QX2 and handoffs happen on Monday mornings.',
  'The mobile app bundle id is com.example.nimbus and the minimum iOS version is sixteen.',
  'Feature flags live in launchdarkly project orion with environments dev, stage and prod.',
  'The search cluster runs opensearch 2.11 with five data nodes and snapshots go to bucket s3://snap-archive.',
  'Backups of the ledger are retained for ninety days in cold storage tier glacier deep archive.',
];
// The loopback echo is shorter than the offline model's reply: two more facts reach the threshold.
const MORE_FACTS = [
  'The payments gateway talks to stripe through the egress proxy pluto on port 8443 with mutual TLS.',
  'Our design docs live in the confluence space ARCH and every decision gets an ADR number like ADR-112.',
];
const QUESTION = 'Which host runs the billing service?';

// Compaction above 600 tokens; the model is sent at most 700 − 100 − ~250 (the search_history
// definition) = ~350. With `--keep 200` the summary target is 200 tokens, which leaves too little of
// those 350 for a question and its tool round ("The newest message does not fit"); `--keep 300` fits.
const SMALL_WINDOW = ['--context-window', '700', '--reserve', '100', '--keep', '300'];

let temp: ReturnType<typeof tempFolder>;
const children: ChildProcessWithoutNullStreams[] = [];
let api: LoopbackApi | undefined;
beforeEach(() => {
  temp = tempFolder();
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill();
  await api?.close();
  api = undefined;
  temp.cleanup();
});

interface ChatChild {
  /** Everything the child has written to stdout so far. */
  readonly stdout: string;
  /** Writes each line to the child's stdin. */
  send(...lines: string[]): void;
  /** The first match of `pattern` in stdout from offset `from` on, once it is there. */
  waitFor(pattern: RegExp, from?: number): Promise<RegExpExecArray>;
  /** Ends stdin and waits for the exit. */
  finish(): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** Starts `nexus chat` as a child process with piped stdin (so lines are echoed as `you> …`). */
function startChat(args: string[], env: NodeJS.ProcessEnv): ChatChild {
  const child = spawn(process.execPath, [BIN, 'chat', ...args], { env, cwd: temp.folder });
  children.push(child);
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of listeners) listener();
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    changed();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => {
    child.on('close', (code) => {
      resolve(code);
      changed();
    });
  });
  return {
    get stdout() {
      return stdout;
    },
    send(...lines) {
      child.stdin.write(lines.map((line) => `${line}\n`).join(''));
    },
    waitFor(pattern, from = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = pattern.exec(stdout.slice(from));
          if (found) {
            done();
            resolve(found);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            done();
            reject(new Error(`nexus chat exited before printing ${pattern}.\nstdout:\n${stdout}\nstderr:\n${stderr}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no ${pattern} within ${WAIT_MS} ms.\nstdout:\n${stdout}\nstderr:\n${stderr}`));
        }, WAIT_MS);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
    async finish() {
      child.stdin.end();
      const code = await exited;
      return { code, stdout, stderr };
    },
  };
}

/** The parent's environment without any Anthropic or nexus settings, plus `extra`. */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'NEXUS_CHAT_MODEL', 'NEXUS_SUMMARY_MODEL', 'NEXUS_DB']) {
    delete env[name];
  }
  return { ...env, ...extra };
}

function escapeRegExp(text: string): RegExp {
  return new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
}

/** The lines of stdout between two echoed inputs (what the first command printed). */
function outputBetween(stdout: string, command: string, next: string): string[] {
  const start = stdout.indexOf(`you> ${command}\n`);
  const end = stdout.indexOf(`you> ${next}\n`, start);
  if (start < 0 || end < 0) throw new Error(`no "${command}" then "${next}" in:\n${stdout}`);
  return stdout
    .slice(start + `you> ${command}\n`.length, end)
    .split('\n')
    .filter((line) => line !== '');
}

interface HistoryLine {
  id: string;
  kind: string;
  text: string;
}

/** `t_x  user       text` / `t_x  COMPACTION  summarized through …`, as /history prints them. */
function parseHistory(lines: string[]): HistoryLine[] {
  return lines.flatMap((line) => {
    const match = /^(t_\w+) {2}(user|assistant|COMPACTION)\s+(.*)$/.exec(line);
    return match ? [{ id: match[1] as string, kind: match[2] as string, text: match[3] as string }] : [];
  });
}

/** The reply texts the chat printed, in order. */
function replies(stdout: string): string[] {
  return stdout.split('\n').flatMap((line) => (line.startsWith('assistant> ') ? [line.slice('assistant> '.length)] : []));
}

async function historyOf(dbPath: string, sessionId: string): Promise<{ turns: Turn[]; problems: unknown[] }> {
  const ledger = openAgentsLedger(dbPath);
  try {
    const session = await ledger.getSession(sessionId);
    const turns: Turn[] = [];
    for await (const turn of ledger.getFullHistory(session.headTurnId as string)) turns.push(turn);
    return { turns, problems: await ledger.doctor() };
  } finally {
    ledger.close();
  }
}

function textOf(turn: Turn): string {
  return turn.turnType === 'normal' ? contentText(turn.content.filter((block) => block.type === 'text')) : '';
}

describe('nexus chat offline, as a child process with piped stdin', () => {
  it('compacts in the background, recalls a compacted fact through search_history, forks, and keeps every turn', async () => {
    const chat = startChat(['--db', temp.dbPath, ...SMALL_WINDOW], childEnv());
    const banner = await chat.waitFor(/^nexus chat · session (s_\w+) \(new\) · offline model \(ANTHROPIC_API_KEY is not set\)/m);
    const sessionId = banner[1] as string;
    const windowLine = await chat.waitFor(
      /^window 700 tokens \(100 reserved for the reply, (\d+) for tool definitions and system prompt\), compaction above (\d+); \/help lists commands$/m,
    );
    expect(Number(windowLine[2])).toBe(700 - 100 - Number(windowLine[1]));

    chat.send(...FACTS);
    await chat.waitFor(escapeRegExp(`assistant> [offline model] Noted: "${FACTS[9]?.slice(0, 40)}`));
    const started = await chat.waitFor(/^· compacting in the background \(threshold, context (\d+) tokens\); the chat goes on$/m);
    expect(Number(started[1])).toBeGreaterThan(Number(windowLine[2]));
    const landed = await chat.waitFor(
      /^· compaction (t_\w+) landed \(threshold\): turns through (t_\w+) summarized, context (\d+) → (\d+) tokens \(saved (\d+); flat, extractive\)$/m,
    );
    const [, compactionId, summarizedThrough, before, after, saved] = landed;
    expect(Number(after)).toBeLessThan(Number(before));
    expect(Number(saved)).toBe(Number(before) - Number(after));

    // The compaction has landed: the billing fact is only in the summary (or not even there) now.
    let mark = chat.stdout.length;
    chat.send(QUESTION);
    await chat.waitFor(/^· tool search_history \{"query":"host runs billing service","limit":3\}$/m, mark);
    const answer = await chat.waitFor(/^assistant> \[offline model\] From the history: (.*)$/m, mark);
    expect(answer[1]).toContain('bravo-7');

    // /history, then /search as a marker: everything between them is the history.
    mark = chat.stdout.length;
    chat.send('/history', '/search lighthouse');
    const hit = await chat.waitFor(/^· (t_\w+) \(via (t_\w+)\) {2}(.*)$/m, mark);
    const history = parseHistory(outputBetween(chat.stdout, '/history', '/search lighthouse'));
    expect(history.find((line) => line.kind === 'COMPACTION' && line.id === compactionId)?.text).toMatch(
      new RegExp(`^summarized through ${summarizedThrough}, raw from t_\\w+, ${before} → ${after} tokens \\(flat, threshold\\)$`),
    );
    const userLines = history.filter((line) => line.kind === 'user');
    for (const fact of FACTS) expect(userLines.some((line) => fact.startsWith(line.text.replace(/…$/, '')))).toBe(true);
    const lighthouseTurn = userLines.find((line) => line.text.includes('lighthouse'));
    // The lighthouse turn was summarized: search finds it through the compaction standing for it (the
    // first one, or a later one that folded it in if that has landed by now).
    const landedIds = [...chat.stdout.matchAll(/^· compaction (t_\w+) landed/gm)].map((match) => match[1]);
    expect(landedIds).toContain(hit[1]);
    expect(hit.slice(2)).toEqual([lighthouseTurn?.id, expect.stringContaining('[lighthouse]')]);

    // Fork at the reply to the third fact, a turn the compaction summarized.
    const forkPoint = history.filter((line) => line.kind === 'assistant')[2]?.id as string;
    mark = chat.stdout.length;
    chat.send(`/fork ${forkPoint}`, 'The fork goes another way from here.', '/tree');
    const forked = await chat.waitFor(/^· forked (s_\w+) at (t_\w+); now chatting in (s_\w+)$/m, mark);
    const forkId = forked[1] as string;
    expect(forked.slice(2)).toEqual([forkPoint, forkId]);
    // The fork's line is the first six turns and the new message, with no summary.
    await chat.waitFor(
      /^assistant> \[offline model\] Noted: "The fork goes another way from here\."\. I was given 7 messages and no summary\.$/m,
      mark,
    );

    const run = await chat.finish();
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const tree = run.stdout.slice(run.stdout.indexOf('you> /tree\n')).split('\n').slice(1, 3);
    expect(tree[0]).toMatch(new RegExp(`^${sessionId} chat {2}\\d+ own turns$`));
    expect(tree[1]).toBe(`  ${forkId} chat fork  2 own turns forked at ${forkPoint}  ← you are here`);
    const bye = /^bye · session (s_\w+), head (t_\w+) · resume with: nexus chat --session (s_\w+) --db \S+$/m.exec(run.stdout);
    expect(bye?.[1]).toBe(forkId);
    expect(bye?.[3]).toBe(forkId);

    // The database holds every turn: each message sent, each reply printed, the compaction.
    const original = await historyOf(temp.dbPath, sessionId);
    const fork = await historyOf(temp.dbPath, forkId);
    expect(original.problems).toEqual([]);
    const userTexts = original.turns.filter((turn) => turn.turnType === 'normal' && turn.role === 'user').map(textOf);
    expect(userTexts.filter((text) => text !== '')).toEqual([...FACTS, QUESTION]);
    const compactions = original.turns.filter((turn) => turn.turnType === 'compaction');
    expect(compactions.map((turn) => turn.id)).toContain(compactionId);
    for (const compaction of compactions) expect(compaction).toMatchObject({ summarizer: 'extractive', strategy: 'flat' });
    const printed = replies(run.stdout);
    expect(printed).toHaveLength(FACTS.length + 2);
    const stored = [...original.turns, ...fork.turns].map(textOf);
    for (const reply of printed) expect(stored).toContain(reply);
    expect(fork.turns.slice(0, 6).map((turn) => turn.id)).toEqual(original.turns.slice(0, 6).map((turn) => turn.id));
    expect(fork.turns.slice(6).map(textOf)).toEqual(['The fork goes another way from here.', printed.at(-1)]);
    expect(bye?.[2]).toBe(fork.turns.at(-1)?.id);
  });
});

describe('nexus chat with the Anthropic SDK against the loopback Messages API', () => {
  const SUMMARY = 'The user listed their infrastructure: billing runs on host bravo-7; the edge proxy is lighthouse.';
  const FAILING = 'This message meets a server error.';
  /**
   * Keep 100 under a 350-token threshold (not SMALL_WINDOW's 300). A background compaction's cut is
   * planned before the question is sent, so whenever it lands, the question's tool round and the two
   * messages after it (about 180 tokens) are more than it kept: /compact always has turns to
   * summarize, and the context (about 310 tokens) stays under the threshold, so no background
   * compaction starts in between. With keep 300, whether /compact found anything depended on when the
   * background compaction landed.
   */
  const WINDOW = ['--context-window', '700', '--reserve', '100', '--keep', '100'];

  const isSummaryRequest = (request: RecordedRequest) => request.body.system === SUMMARY_SYSTEM_PROMPT;
  const lastMessage = (request: RecordedRequest) => request.body.messages.at(-1);
  /** The last text of the last message (two user turns in a row may arrive as one message). */
  const lastText = (request: RecordedRequest) => {
    const content = lastMessage(request)?.content ?? '';
    if (typeof content === 'string') return content;
    const texts = content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
    return texts.at(-1) ?? '';
  };

  /** Summaries for the summarizer; for the chat a tool round for the question, a 500 for FAILING, else an echo. */
  const respond: Responder = (request) => {
    if (isSummaryRequest(request)) return { kind: 'text', text: SUMMARY };
    const content = lastMessage(request)?.content;
    const result = Array.isArray(content) ? content.find((block) => block.type === 'tool_result') : undefined;
    if (result) return { kind: 'text', text: `(loopback) From the tool: ${messageText({ role: 'user', content: [result] })}` };
    const said = lastText(request);
    if (said === QUESTION) {
      return {
        kind: 'content',
        content: [{ type: 'tool_use', id: 'toolu_loopback_1', name: 'search_history', input: { query: 'billing host' } }],
      };
    }
    if (said === FAILING) {
      return {
        kind: 'error',
        status: 500,
        errorType: 'api_error',
        message: 'Internal server error',
        headers: { 'retry-after': '0' },
      };
    }
    return { kind: 'text', text: `(loopback) Noted: ${said}` };
  };

  it('answers from the API, summarizes with it (instructions included), survives a 500, and exits 1 saying one message went unanswered', async () => {
    api = await startLoopbackApi({ respond });
    const server = api;
    const chat = startChat(
      ['--db', temp.dbPath, ...WINDOW],
      childEnv({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url }),
    );
    const banner = await chat.waitFor(/^nexus chat · session (s_\w+) \(new\) · (.*)$/m);
    const sessionId = banner[1] as string;
    expect(banner[2]).toBe(
      `Anthropic ${DEFAULT_CHAT_MODEL} at ${server.url}; Anthropic summarizer (extractive when the API fails)`,
    );

    chat.send(...FACTS, ...MORE_FACTS);
    await chat.waitFor(escapeRegExp(`assistant> (loopback) Noted: ${MORE_FACTS[1]}`));
    const threshold = await chat.waitFor(/^· compaction (t_\w+) landed \(threshold\): .*\(saved \d+; flat, (\S+)\)$/m);
    expect(threshold[2]).toBe(`anthropic/${DEFAULT_SUMMARY_MODEL}`);

    // A tool round through the SDK: the model asks for search_history, the runtime runs it.
    let mark = chat.stdout.length;
    chat.send(QUESTION);
    await chat.waitFor(/^· tool search_history \{"query":"billing host"\}$/m, mark);
    const recalled = await chat.waitFor(/^assistant> \(loopback\) From the tool: (.*)$/m, mark);
    expect(recalled[1]).toContain('bravo-7');

    // 500 on every attempt (the first and the SDK's two retries): an error line, then the chat goes on.
    mark = chat.stdout.length;
    chat.send(FAILING, 'Still there?');
    const failure = await chat.waitFor(/^error: (.*)$/m, mark);
    expect(failure[1]).toBe(`The model ${DEFAULT_CHAT_MODEL} could not answer: HTTP 500 api_error: Internal server error.`);
    await chat.waitFor(/^assistant> \(loopback\) Noted: Still there\?$/m, mark);

    mark = chat.stdout.length;
    chat.send('/compact keep the schema decisions');
    const manual = await chat.waitFor(/^· compaction (t_\w+) landed \(manual\): .*\(saved \d+; flat, (\S+)\)$/m, mark);
    expect(manual[2]).toBe(`anthropic/${DEFAULT_SUMMARY_MODEL}`);

    const run = await chat.finish();
    // The failed line was never answered: a script piping lines in is told so (issue 13).
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^1 of \d+ messages went unanswered/m);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(new RegExp(`^bye · session ${sessionId}, head t_\\w+ · `, 'm'));
    // Every reply printed came from the server.
    for (const reply of replies(run.stdout)) expect(reply).toMatch(/^\(loopback\) /);

    const summaries = server.requests.filter(isSummaryRequest);
    const chats = server.requests.filter((request) => !isSummaryRequest(request));
    for (const request of summaries) expect(request.body.model).toBe(DEFAULT_SUMMARY_MODEL);
    const instructed = summaries.filter((request) => lastText(request).includes('<instructions>'));
    expect(instructed).toHaveLength(1);
    expect(lastText(instructed[0] as RecordedRequest)).toContain('<instructions>\nkeep the schema decisions\n</instructions>');
    for (const request of chats) {
      expect(request.body.model).toBe(DEFAULT_CHAT_MODEL);
      expect(request.body.tools?.map((tool) => tool.name)).toContain('search_history');
      expect(JSON.stringify(request.headers)).toContain('test-key');
    }
    expect(chats.filter((request) => lastText(request) === FAILING)).toHaveLength(3);

    const { turns, problems } = await historyOf(temp.dbPath, sessionId);
    expect(problems).toEqual([]);
    const compactions = turns.filter((turn) => turn.turnType === 'compaction');
    expect(compactions.map((turn) => turn.id)).toEqual(expect.arrayContaining([threshold[1], manual[1]]));
    for (const compaction of compactions) {
      expect(compaction).toMatchObject({ summarizer: `anthropic/${DEFAULT_SUMMARY_MODEL}`, summary: SUMMARY });
    }
    // The message the API never answered is kept, unanswered, like every other.
    const userTexts = turns.filter((turn) => turn.turnType === 'normal' && turn.role === 'user').map(textOf);
    expect(userTexts.filter((text) => text !== '')).toEqual([...FACTS, ...MORE_FACTS, QUESTION, FAILING, 'Still there?']);
  });
});

describe('nexus chat mistakes and usage', () => {
  it('answers an unknown command, /fork without an id and /expand of an unknown topic with an error line, and goes on', async () => {
    const run = await runCli(['chat', '--db', temp.dbPath], {
      stdin: ['/unknowncommand', '/fork', '/fork t_nope', '/expand c_nope', '/search', 'hello there', '/exit', 'never read'].join(
        '\n',
      ),
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const lines = run.stdout.split('\n');
    const after = (input: string) => lines[lines.indexOf(`you> ${input}`) + 1];
    expect(after('/unknowncommand')).toBe(
      'error: Unknown command /unknowncommand. Commands: /compact /context /history /fork /tree /search /topics /expand /help /exit',
    );
    expect(after('/fork')).toBe('error: /fork needs a turn id; /history lists them.');
    expect(after('/fork t_nope')).toMatch(/^error: No turn with id "t_nope"/);
    expect(after('/expand c_nope')).toMatch(/^error: No topic "c_nope"/);
    expect(after('/search')).toBe('error: /search needs some words to look for.');
    expect(after('hello there')).toBe('assistant> [offline model] Noted: "hello there". I was given 1 messages and no summary.');
    // /exit ends the chat: the line after it is never read.
    expect(run.stdout).not.toContain('never read');
    expect(lines.at(-2)).toMatch(/^bye · session s_\w+, head t_\w+ · resume with: nexus chat --session s_\w+ --db \S+$/);
  });

  it('lists union-find topics and expands one in a continued session', async () => {
    const first = await runCli(['chat', '--db', temp.dbPath, '--strategy', 'union-find', ...SMALL_WINDOW], {
      stdin: FACTS.join('\n'),
    });
    expect(first.code).toBe(0);
    const sessionId = /session (s_\w+) \(new\)/.exec(first.stdout)?.[1] as string;
    expect(first.stdout).toMatch(/· compaction t_\w+ landed \(threshold\): .*union-find, extractive\)/);

    const topics = await runCli(['chat', '--db', temp.dbPath, '--session', sessionId], { stdin: '/topics\n' });
    expect(topics.stdout).toContain(`nexus chat · session ${sessionId} (continued) · offline model`);
    // Which turns share a topic depends on where the background compactions cut, so every topic is
    // expanded: each lists as many turns as /topics said, and one holds the first fact.
    const listed = [...topics.stdout.matchAll(/^· (t_\w+) {2}(\d+) turns/gm)].map((match) => ({
      id: match[1] as string,
      members: Number(match[2]),
    }));
    expect(listed.length).toBeGreaterThan(0);
    const script = `${listed.map((topic) => `/expand ${topic.id}`).join('\n')}\n/exit\n`;
    const expand = await runCli(['chat', '--db', temp.dbPath, '--session', sessionId], { stdin: script });
    expect(expand.code).toBe(0);
    const expanded = listed.map((topic, index) =>
      outputBetween(
        expand.stdout,
        `/expand ${topic.id}`,
        index + 1 < listed.length ? `/expand ${listed[index + 1]?.id}` : '/exit',
      ),
    );
    expect(expanded.map((lines) => lines.length)).toEqual(listed.map((topic) => topic.members));
    expect(expanded.flat().some((line) => /^t_\w+ {2}user {7}The billing service runs on host bravo-7/.test(line))).toBe(true);
  });

  it('refuses --json with a usage error (exit code 2)', async () => {
    const run = await runCli(['chat', '--db', temp.dbPath, '--json']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('nexus chat is interactive and has no --json output');
    expect(run.json()).toEqual({ error: { code: 'INVALID_INPUT', message: expect.stringContaining('nexus history --json') } });
  });

  it('fails with exit code 1 for a session that does not exist', async () => {
    const run = await runCli(['chat', '--db', temp.dbPath, '--session', 's_missing'], { stdin: 'hello\n' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^nexus: .*s_missing/);
  });

  it('prints help that lists the slash commands, exit code 0', async () => {
    const run = await runCli(['chat', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: nexus chat/);
    for (const command of ['/compact [instructions]', '/fork <turnId>', '/search <text>', '/exit']) {
      expect(run.stdout).toContain(command);
    }
  });
});

describe('nexus chat compaction threshold', () => {
  // The model gets at most window − reserve − tool definitions; compacting only above window −
  // reserve would let turns fall out of its context with no summary standing for them.
  it('starts compacting before turns leave the model context unsummarized', async () => {
    const run = await runCli(['chat', '--db', temp.dbPath, ...SMALL_WINDOW], { stdin: FACTS.join('\n') });
    expect(run.code).toBe(0);
    const beforeCompaction = run.stdout.slice(0, run.stdout.indexOf('· compacting in the background'));
    const shortChanged = replies(beforeCompaction).filter((reply, index) => {
      const given = /I was given (\d+) messages and no summary\.$/.exec(reply);
      return given !== null && Number(given[1]) < 2 * index + 1;
    });
    // At most the one turn that crosses the limit may lose its oldest turns before the compaction starts.
    expect(shortChanged.length).toBeLessThanOrEqual(1);
  });
});

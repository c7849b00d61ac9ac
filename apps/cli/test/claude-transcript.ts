// A Claude Code session transcript written line by line, as Claude Code writes it (the shapes of
// packages/transcripts' fixtures): prompts, replies, a tool round, a compact_boundary with its
// summary. For the live-capture tests, which append these lines while firing the hooks.

export type TranscriptLine = Record<string, unknown>;

/** What the exchanges talk about; the fourth holds the fact a compaction will drop. */
const TOPICS: Array<[string, string]> = [
  ['Why does the checkout test fail one run in ten?', 'The cart fixture seeds from random.random(); pin the seed to 1234.'],
  ['Pinned. Now the payment retry test times out after 30 s.', 'The retry loop sleeps 45 s; lower RETRY_BACKOFF_SECONDS to 5.'],
  ['Where do we keep the release checklist?', 'In docs/release.md, next to the changelog.'],
  [
    'Which cache does staging use, for the record?',
    'The staging cache is redis-quokka-7.staging.internal on port 6390; production uses the managed one.',
  ],
  ['Bump the tax rounding test to cover half-cents.', 'Added cases for 0.005 and 0.015 in test_tax_rounding.py.'],
  ['Is the invoice PDF renderer still on the old font?', 'Yes, it embeds Inter 3.19; the upgrade is tracked in SHOP-412.'],
  ['What does the nightly job do at 02:00?', 'It rebuilds the search index and prunes carts older than 30 days.'],
  ['Who owns the payments dashboard?', 'Priya owns it; alerts go to the #payments-oncall channel.'],
  ['How long do refunds take to settle?', 'Three to five business days with the current acquirer.'],
  ['Can we drop Node 18 from CI?', 'Yes: every service runs Node 20 now; remove the 18 job from ci.yml.'],
  ['Which region hosts the order database?', 'eu-west-1, with a read replica in eu-central-1.'],
  ['What is left before the release?', 'The checklist in docs/release.md: tag, changelog, and the smoke test.'],
];

export interface ClaudeSession {
  id: string;
  /** `count` prompt/reply exchanges (the third one with a tool round), each as the lines Claude Code writes. */
  exchanges(count: number): Array<{ prompt: string; lines: TranscriptLine[] }>;
  /** A compaction: the boundary and the summary line, summarizing everything before. */
  compaction(summary: string): TranscriptLine[];
  userLine(text: string): TranscriptLine;
  assistantLine(text: string): TranscriptLine;
  /**
   * A Task round with a subagent: the parent's call, the subagent's own transcript (its file under
   * `<session>/subagents/agent-<id>.jsonl`, written while the call is open), then the call's result
   * and the parent's reply.
   */
  subagentRound(
    agentId: string,
    task: string,
    finding: string,
  ): { call: TranscriptLine[]; agent: TranscriptLine[]; result: TranscriptLine[] };
}

export function claudeSession(options: { id: string; cwd: string }): ClaudeSession {
  let parent: string | null = null;
  let counter = 0;
  let time = Date.parse('2026-05-04T09:00:00.000Z');
  const base = {
    isSidechain: false,
    userType: 'external',
    cwd: options.cwd,
    sessionId: options.id,
    version: '2.1.12',
    gitBranch: 'main',
  };
  const next = (fields: TranscriptLine): TranscriptLine => {
    counter += 1;
    time += 60_000;
    const uuid = `${options.id.slice(-4)}-l${counter}`;
    const line = { parentUuid: parent, ...base, ...fields, uuid, timestamp: new Date(time).toISOString() };
    parent = uuid;
    return line;
  };
  const userLine = (content: unknown) => next({ type: 'user', message: { role: 'user', content } });
  const assistantLine = (content: unknown[]) =>
    next({ type: 'assistant', message: { id: `msg_${counter + 1}`, role: 'assistant', model: 'claude-sonnet-4-5', content } });

  return {
    id: options.id,
    exchanges(count) {
      return Array.from({ length: count }, (_, index) => {
        const [prompt, reply] = TOPICS[index % TOPICS.length] as [string, string];
        const lines = [userLine(prompt)];
        if (index === 2) {
          const call = `toolu_${options.id.slice(-4)}_${index}`;
          lines.push(
            assistantLine([{ type: 'tool_use', id: call, name: 'Read', input: { file_path: 'docs/release.md' } }]),
            userLine([{ type: 'tool_result', tool_use_id: call, content: '# Release\n1. tag\n2. changelog' }]),
          );
        }
        lines.push(assistantLine([{ type: 'text', text: reply }]));
        return { prompt, lines };
      });
    },
    compaction(summary) {
      const last = parent;
      const boundary = next({
        type: 'system',
        subtype: 'compact_boundary',
        content: 'Conversation compacted',
        level: 'info',
        isMeta: false,
        logicalParentUuid: last,
        compactMetadata: { trigger: 'auto', preTokens: 150_000, postTokens: 9_000 },
      });
      boundary.parentUuid = null;
      const summaryLine = next({
        type: 'user',
        isCompactSummary: true,
        isVisibleInTranscriptOnly: true,
        message: { role: 'user', content: `This session is being continued from a previous conversation. ${summary}` },
      });
      return [boundary, summaryLine];
    },
    userLine: (text) => userLine(text),
    assistantLine: (text) => assistantLine([{ type: 'text', text }]),
    subagentRound(agentId, task, finding) {
      const callId = `toolu_task_${agentId}`;
      const call = [assistantLine([{ type: 'tool_use', id: callId, name: 'Task', input: { description: task, prompt: task } }])];
      // The subagent's lines: a chain of their own, in its own file, timed while the call is open.
      let agentParent: string | null = null;
      const agentLine = (type: 'user' | 'assistant', content: unknown): TranscriptLine => {
        time += 1_000;
        counter += 1;
        const uuid = `${agentId}-l${counter}`;
        const message =
          type === 'user'
            ? { role: 'user', content }
            : { id: `msg_${agentId}_${counter}`, role: 'assistant', model: 'claude-haiku-4-5', content };
        const line = {
          parentUuid: agentParent,
          ...base,
          isSidechain: true,
          agentId,
          type,
          message,
          uuid,
          timestamp: new Date(time).toISOString(),
        };
        agentParent = uuid;
        return line;
      };
      const agent = [agentLine('user', task), agentLine('assistant', [{ type: 'text', text: finding }])];
      const result = [
        userLine([{ type: 'tool_result', tool_use_id: callId, content: finding }]),
        assistantLine([{ type: 'text', text: `The subagent found: ${finding}` }]),
      ];
      return { call, agent, result };
    },
  };
}

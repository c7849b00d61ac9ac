// What a coding agent's hook hands `nexus hook` on stdin (Claude Code and Codex share the field
// names this reads): which session, its transcript, and what happened. Anything else is ignored; a
// field of the wrong type is treated as absent, so a new version of either tool cannot break a hook.

/** The tools whose hooks nexus serves. */
export const HOOK_TOOLS = ['claude-code', 'codex'] as const;
export type HookTool = (typeof HOOK_TOOLS)[number];

/** The events `nexus hook <tool> <event>` answers, as the installer names them. */
export const HOOK_EVENTS = [
  'session-start',
  'user-prompt-submit',
  'stop',
  'subagent-stop',
  'pre-compact',
  'post-compact',
  'session-end',
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

export interface HookInput {
  sessionId?: string;
  transcriptPath?: string;
  /** SubagentStop: the subagent's own transcript. */
  agentTranscriptPath?: string;
  /** UserPromptSubmit: what the user typed. */
  prompt?: string;
  /** SessionStart: startup, resume, clear, compact (fork on Claude Code). */
  source?: string;
  cwd?: string;
}

/** The largest stdin a hook reads: a hook event is a few kilobytes; more is not one. */
export const MAX_INPUT_BYTES = 4 * 1024 * 1024;

/** Parses a hook's stdin; throws a one-line Error for anything that is not a JSON object. */
export function parseHookInput(text: string): HookInput {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`stdin is not the hook's JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('stdin is not a JSON object');
  const fields = value as Record<string, unknown>;
  const text_ = (name: string) =>
    typeof fields[name] === 'string' && fields[name] !== '' ? (fields[name] as string) : undefined;
  return {
    sessionId: text_('session_id'),
    transcriptPath: text_('transcript_path'),
    agentTranscriptPath: text_('agent_transcript_path'),
    prompt: text_('prompt'),
    source: text_('source'),
    cwd: text_('cwd'),
  };
}

/** Reads all of stdin as text, refusing more than MAX_INPUT_BYTES. */
export async function readAll(input: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > MAX_INPUT_BYTES) throw new Error(`stdin is over ${MAX_INPUT_BYTES} bytes: not a hook event`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

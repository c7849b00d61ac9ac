// `nexus mcp`: the ledger as an MCP server, so any MCP client (Claude Code, Cursor, …) can recall
// what its compactions dropped (by words, or by meaning when the ledger has an embedder). Four
// read-only tools, registered with the SDK's McpServer; the work is in mcp-tools.ts. A LedgerError
// becomes a tool result with isError (the model can read it and fix its call); anything else is the
// SDK's protocol error.

import type { AgentsLedger } from '@agent-ledger/agents-ledger';
import { LedgerError } from '@agent-ledger/core';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  DEFAULT_CONTEXT_BUDGET,
  expand,
  getContext,
  listSessions,
  MAX_EXPAND_TURNS,
  MAX_TURN_CHARS,
  MAX_TURN_CHARS_LIMIT,
  searchHistory,
} from './mcp-tools.ts';

export interface McpServerOptions {
  ledger: AgentsLedger;
  /**
   * Set when the ledger has no embedder, saying how to give it one in the caller's terms: search_history's
   * mode "semantic" is then described as unavailable and refused with this text (HttpAppOptions.noEmbedderAdvice).
   */
  noEmbedderAdvice?: string;
  name?: string;
  version?: string;
}

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
const id = z.string().min(1).max(200);

export function createMcpServer(options: McpServerOptions): McpServer {
  const { ledger } = options;
  const server = new McpServer({ name: options.name ?? 'nexus', version: options.version ?? '0.1.0' });
  registerSearchHistory(server, ledger, options.noEmbedderAdvice);
  registerExpand(server, ledger);
  registerGetContext(server, ledger);
  registerListSessions(server, ledger);
  return server;
}

function registerSearchHistory(server: McpServer, ledger: AgentsLedger, noEmbedderAdvice: string | undefined): void {
  // A model should not be offered what this server cannot do: the mode says when it is off.
  const semantic =
    noEmbedderAdvice === undefined
      ? '"semantic" ranks turns by meaning (stored vectors): use it when words found nothing because the turn may be phrased differently (a synonym, a paraphrase, another language)'
      : '"semantic" (by meaning) is not available on this server: it has no embedding model';
  server.registerTool(
    'search_history',
    {
      title: 'Search the conversation history',
      description:
        'Full-text search over every recorded turn, including turns a compaction summarized away. A hit inside a ' +
        'summarized turn is reported as the compaction standing for it, with `via` = the turn that matched: `expand` the ' +
        '`via` id to read that turn, or the compaction id to read the turns its summary covers. Ask as you would ask a ' +
        'person: the question\'s content words are searched (no syntax). With mode "semantic" the turns nearest the ' +
        'question in meaning come back instead, each with its similarity (no `via`, no cursor).',
      inputSchema: {
        query: z.string().min(1).max(2000).describe('what to look for: words, or a question'),
        mode: z.enum(['words', 'semantic']).optional().describe(`"words" (default) matches words; ${semantic}`),
        session: id.optional().describe('only this session’s line (its own turns and those it forked from)'),
        raw: z.boolean().optional().describe('report the matching turns themselves rather than their compactions'),
        limit: z.number().int().min(1).max(50).optional().describe('hits to return (default 10)'),
        cursor: z.string().min(1).max(2000).optional().describe('nextCursor of a previous call'),
      },
      annotations: { title: 'Search history', ...READ_ONLY },
    },
    async (input) => answer(() => searchHistory(ledger, input, noEmbedderAdvice)),
  );
}

function registerExpand(server: McpServer, ledger: AgentsLedger): void {
  server.registerTool(
    'expand',
    {
      title: 'Expand a compaction, topic or turn',
      description:
        'A compaction id → the turns its summary stands for; a topic id (from get_context or a union-find session) → ' +
        `its member turns; any other turn id → that turn. At most ${MAX_EXPAND_TURNS} turns per call; page with offset.`,
      inputSchema: {
        id: id.describe('a compaction, topic or turn id (a session id stands for its head turn)'),
        session: id.optional().describe('view topics as this session (a fork); default: the session of the id'),
        offset: z.number().int().min(0).optional(),
        limit: z.number().int().min(1).max(MAX_EXPAND_TURNS).optional(),
        maxChars: z
          .number()
          .int()
          .min(100)
          .max(MAX_TURN_CHARS_LIMIT)
          .optional()
          .describe(`characters of each turn's text (default ${MAX_TURN_CHARS}); longer text is cut with a note`),
      },
      annotations: { title: 'Expand', ...READ_ONLY },
    },
    async (input) => answer(() => expand(ledger, input)),
  );
}

function registerGetContext(server: McpServer, ledger: AgentsLedger): void {
  server.registerTool(
    'get_context',
    {
      title: 'The context at a turn',
      description:
        'What a model would be sent at a turn: the system text (summary, topics) and the messages, within a token ' +
        `budget (default ${DEFAULT_CONTEXT_BUDGET}). With a query, the topics nearest to it are chosen first; with ` +
        'retrieve, the turns from anywhere in the history that best answer the query come first (the hybrid context).',
      inputSchema: {
        turnId: id.optional().describe('the turn (a session id stands for its head); default: the head of `session`'),
        session: id.optional(),
        budget: z.number().int().min(1).max(10_000_000).optional().describe(`tokens (default ${DEFAULT_CONTEXT_BUDGET})`),
        query: z.string().max(10_000).optional().describe('the message the context is for'),
        retrieve: z.boolean().optional().describe('recall the turns that best answer the query (needs query)'),
      },
      annotations: { title: 'Get context', ...READ_ONLY },
    },
    async (input) => answer(() => getContext(ledger, input)),
  );
}

function registerListSessions(server: McpServer, ledger: AgentsLedger): void {
  server.registerTool(
    'list_sessions',
    {
      title: 'List sessions',
      description: 'Recorded sessions, newest first, with their head turn and the session they were forked from.',
      inputSchema: { limit: z.number().int().min(1).max(500).optional(), offset: z.number().int().min(0).optional() },
      annotations: { title: 'List sessions', ...READ_ONLY },
    },
    async (input) => answer(() => listSessions(ledger, input)),
  );
}

async function answer(work: () => Promise<Record<string, unknown>>): Promise<CallToolResult> {
  try {
    const result = await work();
    return { content: [{ type: 'text', text: JSON.stringify(result, null, 2) }], structuredContent: result };
  } catch (error) {
    if (!LedgerError.isInstance(error)) throw error;
    return { content: [{ type: 'text', text: `${error.code}: ${inToolTerms(error)}` }], isError: true };
  }
}

/** The library's advice (listSessions(), getFullHistory()) said as the tools a model can call. */
function inToolTerms(error: LedgerError): string {
  const fields = error as LedgerError & Partial<Record<'turnId' | 'sessionId', string>>;
  switch (error.code) {
    case 'TURN_NOT_FOUND':
      return `No turn with id "${fields.turnId}". list_sessions gives each session's head turn; search_history finds turns by their words.`;
    case 'SESSION_NOT_FOUND':
      return `No session with id "${fields.sessionId}". list_sessions lists the sessions in this ledger.`;
    case 'INVALID_INPUT':
      // The tools' option is `budget`; the library's is budgetTokens.
      return error.message.replaceAll('budgetTokens', 'budget');
    case 'CLUSTER_NOT_FOUND':
      return error.message.replace('topics(sessionId) lists topic ids', 'expand takes a turn id or a topic id from get_context');
    default:
      return error.message;
  }
}

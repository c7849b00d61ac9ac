// @agent-ledger/server: the ledgers over HTTP (hono) and MCP (stdio), and the web viewer's files.

export { isLoopbackHost, tokensMatch } from './access-guard.ts';
export { DEFAULT_HOST, DEFAULT_MAX_BODY_BYTES, DEFAULT_PORT } from './defaults.ts';
export type { HeadContentionOptions } from './head-contention.ts';
export { createHttpApp, type HttpAppOptions } from './http-app.ts';
export { type ErrorBody, errorBody, HttpError, statusOf } from './http-errors.ts';
export { createMcpServer, type McpServerOptions } from './mcp-server.ts';
export { type McpStdioOptions, serveMcpOverStdio } from './mcp-stdio.ts';
export { DEFAULT_CONTEXT_BUDGET, MAX_EXPAND_TURNS, MAX_TURN_CHARS } from './mcp-tools.ts';
export { EMBEDDER_NOT_CONFIGURED, type MeaningHitView, type MeaningSearchView } from './meaning-search.ts';
export { API_ROUTES, openApiDocument } from './openapi.ts';
export { type SessionSignal, SessionSignals } from './session-signals.ts';
export { DEFAULT_HEARTBEAT_MS, DEFAULT_POLL_INTERVAL_MS } from './session-stream.ts';
export {
  DEFAULT_CLOSE_GRACE_MS,
  type HttpServerOptions,
  type RunningHttpServer,
  startHttpServer,
} from './start-http-server.ts';
export { DEFAULT_VIEWER_DIRECTORY } from './viewer-files.ts';

// What `nexus hooks install | uninstall | status` share across tools: the options, the report, the
// command a hook entry runs and the MCP server entry, and how nexus recognises its own entries.

import path from 'node:path';
import { shellQuote } from '../cli-conventions.ts';
import { isJsonObject } from './settings-file.ts';

export interface SetupOptions {
  scope: string;
  /** The user's home (settings live under it). */
  home: string;
  /** The project folder, for project and local scope. */
  project: string;
  /** The ledger the hooks write to: an absolute SQLite path or a postgres:// URL. */
  db: string;
  /** How a hook runs nexus: `nexus` when that is this one on PATH, else its absolute path. */
  nexus: string;
  /** Register the MCP server too (default). */
  mcp: boolean;
}

export interface SetupReport {
  lines: string[];
  changed: boolean;
}

export interface StatusLine {
  tool: 'claude-code' | 'codex';
  scope: string;
  file: string;
  /** The tool's events a nexus hook is installed on. */
  events: string[];
  mcp: boolean;
  /** One of the installed commands, to show which nexus and ledger they use. */
  command?: string;
  problem?: string;
}

/** The shell command a hook entry runs (shell form: both tools run it through a shell). */
export function hookCommand(options: SetupOptions, tool: 'claude-code' | 'codex', event: string): string {
  return `${shellQuote(options.nexus)} hook ${tool} ${event} --db ${shellQuote(options.db)}`;
}

export function mcpServerEntry(options: SetupOptions): { type: 'stdio'; command: string; args: string[] } {
  return { type: 'stdio', command: options.nexus, args: ['mcp', '--db', options.db] };
}

/** An MCP server entry nexus hooks install wrote: it runs `nexus mcp` (whatever path to nexus). */
export function isOurMcpServer(value: unknown): boolean {
  if (!isJsonObject(value) || typeof value.command !== 'string' || !Array.isArray(value.args)) return false;
  return /^nexus(\.js)?$/.test(path.basename(value.command)) && value.args[0] === 'mcp';
}

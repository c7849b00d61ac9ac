// `nexus hooks install | uninstall | status`: puts nexus into Claude Code's and Codex's hooks (and
// registers its MCP server), takes exactly that out again, and says what is installed where. The
// hooks then run `nexus hook <tool> <event>` (hooks/run-hook.ts) on every prompt, stop and compaction.

import { existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { displayLocation } from '@agent-ledger/store';
import { stringOption, UsageError } from '../arguments.ts';
import type { Command, CommandInput } from '../command.ts';
import type { SetupOptions, SetupReport, StatusLine } from '../hooks/setup-types.ts';

const TOOLS = ['claude-code', 'codex'];
const SCOPES: Record<string, readonly string[]> = { 'claude-code': ['user', 'project', 'local'], codex: ['user', 'project'] };

const COMMON_OPTIONS = {
  scope: {
    type: 'string',
    description: 'user (default: every project), project (.claude/ or .codex/ in --project) or local (Claude Code only)',
    valueName: 'SCOPE',
  },
  project: { type: 'string', description: 'the project folder for project and local scope (default: here)', valueName: 'DIR' },
} as const;

export const hooksInstall: Command = {
  path: ['hooks', 'install'],
  summary: 'Hook nexus into Claude Code or Codex: every session imported as it happens, recall after compaction.',
  arguments: ['<claude-code|codex>'],
  options: {
    ...COMMON_OPTIONS,
    command: { type: 'string', description: 'how the hooks run nexus (default: this nexus, by its path)', valueName: 'PATH' },
    'no-mcp': { type: 'boolean', description: 'do not register the nexus MCP server' },
  },
  details: [
    "Merges into the scope's settings (Claude Code: ~/.claude/settings.json, .claude/settings.json, .claude/settings.local.json;",
    'Codex: ~/.codex/hooks.json or .codex/hooks.json) without removing or duplicating anything; a second install changes',
    'nothing. Hooks write to --db (default ~/.nexus/ledger.db, made absolute). Also registers the MCP server `nexus` for',
    'the same scope (~/.claude.json or .mcp.json; Codex: config.toml). Undo with `nexus hooks uninstall`. docs/claude-code.md.',
  ].join('\n'),
  run: async (input) => setup(input, 'install'),
};

export const hooksUninstall: Command = {
  path: ['hooks', 'uninstall'],
  summary: 'Take out exactly what `nexus hooks install` put into Claude Code or Codex.',
  arguments: ['<claude-code|codex>'],
  options: { ...COMMON_OPTIONS },
  details: 'Removes the handlers that run `nexus hook` and the MCP server it registered; nothing else is touched.',
  run: async (input) => setup(input, 'uninstall'),
};

export const hooksStatus: Command = {
  path: ['hooks', 'status'],
  summary: 'Say where nexus is hooked into Claude Code and Codex, and with which ledger.',
  arguments: [],
  options: { project: COMMON_OPTIONS.project },
  async run({ options, io, env }) {
    const { claudeCodeStatus } = await import('../hooks/claude-code-setup.ts');
    const { codexStatus } = await import('../hooks/codex-setup.ts');
    const where = { home: env.HOME || homedir(), project: path.resolve(stringOption(options.project) ?? '.') };
    const lines: StatusLine[] = [...claudeCodeStatus(where), ...codexStatus(where)];
    for (const line of lines) io.print(statusText(line));
    return lines;
  },
};

function statusText(line: StatusLine): string {
  const head = `${line.tool.padEnd(11)} ${line.scope.padEnd(7)}`;
  if (line.problem) return `${head} ${line.problem}`;
  if (line.events.length === 0) return `${head} not installed (${line.file})`;
  const db = /--db (\S+|'[^']*')$/.exec(line.command ?? '')?.[1];
  return `${head} ${line.events.length} hooks (${line.events.join(', ')}) in ${line.file}${db ? `, ledger ${displayLocation(db)}` : ''}${line.mcp ? '; MCP server registered' : ''}`;
}

async function setup(input: CommandInput, action: 'install' | 'uninstall'): Promise<SetupReport> {
  const { positionals, options, io, env, dbPath, dbPathGiven } = input;
  const tool = positionals[0] as string;
  if (!TOOLS.includes(tool)) throw new UsageError(`nexus hooks ${action} takes claude-code or codex, not "${tool}".`);
  const scope = stringOption(options.scope) ?? 'user';
  if (!SCOPES[tool]?.includes(scope)) throw new UsageError(`--scope for ${tool} is ${SCOPES[tool]?.join(', ')}; got "${scope}".`);
  const home = env.HOME || homedir();
  const setupOptions: SetupOptions = {
    scope,
    home,
    project: path.resolve(stringOption(options.project) ?? '.'),
    db: ledgerLocation(dbPathGiven ? dbPath : env.NEXUS_DB || path.join(home, '.nexus', 'ledger.db')),
    nexus: stringOption(options.command) ?? nexusExecutable(env),
    mcp: options['no-mcp'] !== true,
  };
  if (action === 'install') refuseCommittedPassword(setupOptions.db, scope);
  const modules =
    tool === 'claude-code'
      ? await import('../hooks/claude-code-setup.ts').then((module) => ({
          install: module.installClaudeCode,
          uninstall: module.uninstallClaudeCode,
        }))
      : await import('../hooks/codex-setup.ts').then((module) => ({
          install: module.installCodex,
          uninstall: module.uninstallCodex,
        }));
  const report = modules[action](setupOptions);
  if (action === 'install')
    report.lines.unshift(`nexus hooks for ${tool} (${scope} scope), writing to ${displayLocation(setupOptions.db)}:`);
  for (const line of report.lines) io.print(line);
  return report;
}

/**
 * Project scope writes the hooks into files a team commits (.claude/settings.json, .mcp.json,
 * .codex/): a database password there would be published with them.
 */
function refuseCommittedPassword(db: string, scope: string): void {
  if (scope !== 'project' || !/^[a-z][a-z0-9+.-]*:\/\/[^/@]*:[^/@]*@/i.test(db)) return;
  throw new UsageError(
    `--db ${displayLocation(db)} holds a password, and project scope writes it into files that are usually committed. ` +
      'Give the URL without the password and set PGPASSWORD where the agent runs (or use ~/.pgpass), or install with --scope user or local.',
  );
}

/** A SQLite path made absolute (a hook runs in whatever folder the agent is in); a URL as it is. */
function ledgerLocation(location: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(location) ? location : path.resolve(location);
}

/**
 * How a hook should run this nexus: the `nexus` on PATH when it is this one (npm keeps that link
 * where it is across upgrades), else the path of this script. Absolute either way: a hook's PATH may
 * not be the user's shell's.
 */
export function nexusExecutable(env: Record<string, string | undefined>, script = process.argv[1] ?? ''): string {
  const self = safeRealpath(script);
  for (const folder of (env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(folder, 'nexus');
    if (folder && existsSync(candidate) && safeRealpath(candidate) === self) return candidate;
  }
  return self;
}

function safeRealpath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

// Where Codex reads hooks (hooks.json, the same shape as Claude Code's) and MCP servers (config.toml,
// [mcp_servers.nexus]), per scope: ~/.codex for user scope, <project>/.codex for project scope. The
// TOML is edited as text between two marker comments, so the user's own formatting and comments stay
// as they are; smol-toml only checks that the file parses and whether a `nexus` server exists.
// Codex runs a new or changed hook only after the user trusts it in /hooks. ../shared INTEGRATIONS F2.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { InvalidInputError } from '@agent-ledger/core';
import { parse } from 'smol-toml';
import { addHooks, type HookSpec, ourHooks, removeHooks } from './hook-entries.ts';
import {
  isJsonObject,
  type JsonObject,
  objectAt,
  readJsonObject,
  writeJsonObject,
  writeTextAtomically,
} from './settings-file.ts';
import { hookCommand, type SetupOptions, type SetupReport, type StatusLine } from './setup-types.ts';

export const CODEX_SCOPES = ['user', 'project'] as const;

/** Codex's hooks all run in the foreground (background handlers depend on its version); SessionEnd gets at most 3 s. */
const EVENTS: Array<Omit<HookSpec, 'command'> & { name: string }> = [
  { name: 'session-start', event: 'SessionStart', matcher: 'compact|resume', timeout: 10 },
  { name: 'user-prompt-submit', event: 'UserPromptSubmit', timeout: 10 },
  { name: 'stop', event: 'Stop', timeout: 30 },
  { name: 'subagent-stop', event: 'SubagentStop', timeout: 30 },
  { name: 'pre-compact', event: 'PreCompact', timeout: 30 },
  { name: 'post-compact', event: 'PostCompact', timeout: 30 },
  { name: 'session-end', event: 'SessionEnd', timeout: 3 },
];

const BLOCK_START = '# >>> nexus: added by `nexus hooks install codex` (`nexus hooks uninstall codex` removes this block)';
const BLOCK_END = '# <<< nexus';

export const TRUST_STEP =
  'Codex runs a hook only once you trust it: open Codex, type /hooks and trust the nexus hooks (again after they change).';

function codexFolder(options: Pick<SetupOptions, 'scope' | 'home' | 'project'>): string {
  return options.scope === 'user' ? path.join(options.home, '.codex') : path.join(options.project, '.codex');
}

export function installCodex(options: SetupOptions): SetupReport {
  const file = path.join(codexFolder(options), 'hooks.json');
  const settings = readJsonObject(file);
  const hooks = objectAt(settings, 'hooks', file);
  const specs = EVENTS.map(({ name, ...spec }) => ({ ...spec, command: hookCommand(options, 'codex', name) }));
  const changes = addHooks(hooks, specs, 'codex', file);
  const wrote = changes.added.length + changes.updated.length > 0;
  if (wrote) writeJsonObject(file, settings);
  const report: SetupReport = {
    lines: [
      wrote
        ? `hooks: ${[...changes.added, ...changes.updated].join(', ')} in ${file}`
        : `hooks: already installed in ${file} (nothing changed)`,
    ],
    changed: wrote,
  };
  if (options.mcp) report.lines.push(installMcpBlock(options, report));
  report.lines.push(TRUST_STEP);
  return report;
}

function installMcpBlock(options: SetupOptions, report: SetupReport): string {
  const file = path.join(codexFolder(options), 'config.toml');
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const block = mcpBlock(options);
  const current = ourBlock(text);
  if (current === block) return `MCP: [mcp_servers.nexus] in ${file} already set`;
  const without = current ? text.replace(current, '') : text;
  if (mcpServers(without, file).nexus !== undefined)
    return `MCP: ${file} has an [mcp_servers.nexus] that is not this one; left as it is`;
  const next = `${without.replace(/\s*$/, '')}${without.trim() === '' ? '' : '\n\n'}${block}\n`;
  mcpServers(next, file); // what is written must parse
  writeTextAtomically(file, next);
  report.changed = true;
  return `MCP: [mcp_servers.nexus] ${current ? 'updated in' : 'added to'} ${file}`;
}

function mcpBlock(options: SetupOptions): string {
  return [
    BLOCK_START,
    '[mcp_servers.nexus]',
    `command = ${JSON.stringify(options.nexus)}`,
    `args = ${JSON.stringify(['mcp', '--db', options.db])}`,
    BLOCK_END,
  ].join('\n');
}

/** Our block in the file's text, markers included, or undefined. */
function ourBlock(text: string): string | undefined {
  const start = text.indexOf(BLOCK_START);
  if (start < 0) return undefined;
  const end = text.indexOf(BLOCK_END, start);
  return end < 0 ? undefined : text.slice(start, end + BLOCK_END.length);
}

function mcpServers(text: string, file: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = parse(text);
  } catch (error) {
    throw new InvalidInputError(
      `${file} is not valid TOML (${(error as Error).message.split('\n')[0]}): fix it by hand; nothing was changed.`,
    );
  }
  const servers = isJsonObject(parsed) ? parsed.mcp_servers : undefined;
  return isJsonObject(servers) ? servers : {};
}

export function uninstallCodex(options: SetupOptions): SetupReport {
  const file = path.join(codexFolder(options), 'hooks.json');
  const settings = readJsonObject(file);
  const report: SetupReport = { lines: [], changed: false };
  const removed = isJsonObject(settings.hooks) ? removeHooks(settings.hooks, 'codex', file) : [];
  if (removed.length > 0) {
    if (isJsonObject(settings.hooks) && Object.keys(settings.hooks).length === 0) delete settings.hooks;
    writeJsonObject(file, settings);
    report.changed = true;
  }
  report.lines.push(
    removed.length > 0 ? `hooks: removed from ${file} (${removed.join(', ')})` : `hooks: none of nexus's in ${file}`,
  );
  const config = path.join(codexFolder(options), 'config.toml');
  const text = existsSync(config) ? readFileSync(config, 'utf8') : '';
  const block = ourBlock(text);
  if (block) {
    writeTextAtomically(
      config,
      `${text
        .replace(block, '')
        .replace(/\n{3,}/g, '\n\n')
        .replace(/^\s+/, '')
        .replace(/\s*$/, '')}\n`,
    );
    report.changed = true;
    report.lines.push(`MCP: [mcp_servers.nexus] removed from ${config}`);
  }
  return report;
}

export function codexStatus(options: Omit<SetupOptions, 'scope' | 'db' | 'nexus' | 'mcp'>): StatusLine[] {
  return CODEX_SCOPES.map((scope) => {
    const file = path.join(codexFolder({ ...options, scope }), 'hooks.json');
    try {
      const settings = readJsonObject(file);
      const ours = ourHooks(isJsonObject(settings.hooks) ? settings.hooks : {}, 'codex');
      const config = path.join(codexFolder({ ...options, scope }), 'config.toml');
      const mcp = existsSync(config) && ourBlock(readFileSync(config, 'utf8')) !== undefined;
      return { tool: 'codex', scope, file, events: ours.map((hook) => hook.event), mcp, command: ours[0]?.command };
    } catch (error) {
      return { tool: 'codex', scope, file, events: [], mcp: false, problem: (error as Error).message };
    }
  });
}

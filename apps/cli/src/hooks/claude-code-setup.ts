// Where Claude Code reads hooks and MCP servers, per scope, and what `nexus hooks install
// claude-code` writes there (hooks: settings.json of the scope; the MCP server: ~/.claude.json for
// user and local scope, the project's .mcp.json for project scope). ../shared INTEGRATIONS F1.

import path from 'node:path';
import { addHooks, type HookChanges, type HookSpec, ourHooks, removeHooks } from './hook-entries.ts';
import { isJsonObject, type JsonObject, objectAt, readJsonObject, writeJsonObject } from './settings-file.ts';
import {
  hookCommand,
  isOurMcpServer,
  mcpServerEntry,
  type SetupOptions,
  type SetupReport,
  type StatusLine,
} from './setup-types.ts';

export const CLAUDE_SCOPES = ['user', 'project', 'local'] as const;

/** Each event, how Claude Code runs it: the prompt path in the foreground, imports in the background. */
const EVENTS: Array<Omit<HookSpec, 'command'> & { name: string }> = [
  { name: 'session-start', event: 'SessionStart', matcher: 'compact|resume', timeout: 10 },
  { name: 'user-prompt-submit', event: 'UserPromptSubmit', timeout: 10 },
  { name: 'stop', event: 'Stop', timeout: 60, async: true },
  { name: 'subagent-stop', event: 'SubagentStop', timeout: 60, async: true },
  { name: 'pre-compact', event: 'PreCompact', timeout: 60 },
  { name: 'post-compact', event: 'PostCompact', timeout: 60, async: true },
  { name: 'session-end', event: 'SessionEnd', timeout: 10 },
];

export function claudeSettingsFile(options: Pick<SetupOptions, 'scope' | 'home' | 'project'>): string {
  if (options.scope === 'user') return path.join(options.home, '.claude', 'settings.json');
  return path.join(options.project, '.claude', options.scope === 'local' ? 'settings.local.json' : 'settings.json');
}

/** The file and the object in it that holds `mcpServers` for the scope. */
function mcpHome(options: Pick<SetupOptions, 'scope' | 'home' | 'project'>): {
  file: string;
  servers: (root: JsonObject) => JsonObject;
} {
  if (options.scope === 'project') {
    const file = path.join(options.project, '.mcp.json');
    return { file, servers: (root) => objectAt(root, 'mcpServers', file) };
  }
  const file = path.join(options.home, '.claude.json');
  if (options.scope === 'user') return { file, servers: (root) => objectAt(root, 'mcpServers', file) };
  return {
    file,
    servers: (root) => objectAt(objectAt(objectAt(root, 'projects', file), options.project, file), 'mcpServers', file),
  };
}

export function installClaudeCode(options: SetupOptions): SetupReport {
  const file = claudeSettingsFile(options);
  const settings = readJsonObject(file);
  const hooks = objectAt(settings, 'hooks', file);
  const specs = EVENTS.map(({ name, ...spec }) => ({ ...spec, command: hookCommand(options, 'claude-code', name) }));
  const changes: HookChanges = addHooks(hooks, specs, 'claude-code', file);
  if (changes.added.length + changes.updated.length > 0) writeJsonObject(file, settings);
  const report: SetupReport = { lines: [hooksLine(file, changes)], changed: changes.added.length + changes.updated.length > 0 };
  if (options.mcp) {
    const mcp = mcpHome(options);
    const root = readJsonObject(mcp.file);
    const servers = mcp.servers(root);
    const wanted = mcpServerEntry(options);
    const current = servers.nexus;
    if (current !== undefined && !isOurMcpServer(current)) {
      report.lines.push(`MCP: ${mcp.file} has an MCP server named "nexus" that is not this one; left as it is`);
    } else if (JSON.stringify(current) === JSON.stringify(wanted)) {
      report.lines.push(`MCP: server "nexus" in ${mcp.file} already set`);
    } else {
      servers.nexus = wanted;
      writeJsonObject(mcp.file, root);
      report.changed = true;
      report.lines.push(`MCP: server "nexus" ${current === undefined ? 'added to' : 'updated in'} ${mcp.file}`);
    }
  }
  report.lines.push(
    'Claude Code picks the change up on its own (new sessions, and running ones through its settings watcher); in a folder it has not trusted yet it holds hooks back until you accept the trust dialog.',
  );
  return report;
}

export function uninstallClaudeCode(options: SetupOptions): SetupReport {
  const file = claudeSettingsFile(options);
  const settings = readJsonObject(file);
  const report: SetupReport = { lines: [], changed: false };
  const hooks = settings.hooks;
  const removed = isJsonObject(hooks) ? removeHooks(hooks, 'claude-code', file) : [];
  if (removed.length > 0) {
    if (isJsonObject(hooks) && Object.keys(hooks).length === 0) delete settings.hooks;
    writeJsonObject(file, settings);
    report.changed = true;
  }
  report.lines.push(
    removed.length > 0 ? `hooks: removed from ${file} (${removed.join(', ')})` : `hooks: none of nexus's in ${file}`,
  );
  const mcp = mcpHome(options);
  const root = readJsonObject(mcp.file);
  const servers = mcp.servers(root);
  if (isOurMcpServer(servers.nexus)) {
    delete servers.nexus;
    writeJsonObject(mcp.file, pruneEmpty(root, options));
    report.changed = true;
    report.lines.push(`MCP: server "nexus" removed from ${mcp.file}`);
  }
  return report;
}

/** After a removal: the empty objects install made (mcpServers, a project entry) go too. */
function pruneEmpty(root: JsonObject, options: SetupOptions): JsonObject {
  const prune = (parent: JsonObject, key: string) => {
    const value = parent[key];
    if (isJsonObject(value) && Object.keys(value).length === 0) delete parent[key];
  };
  if (options.scope === 'local') {
    const projects = root.projects;
    const project = isJsonObject(projects) ? projects[options.project] : undefined;
    if (isJsonObject(project)) prune(project, 'mcpServers');
    if (isJsonObject(projects)) prune(projects, options.project);
    prune(root, 'projects');
  } else prune(root, 'mcpServers');
  return root;
}

export function claudeCodeStatus(options: Omit<SetupOptions, 'scope' | 'db' | 'nexus' | 'mcp'>): StatusLine[] {
  return CLAUDE_SCOPES.map((scope) => {
    const file = claudeSettingsFile({ ...options, scope });
    let hooks: JsonObject = {};
    let mcp: unknown;
    try {
      const settings = readJsonObject(file);
      hooks = isJsonObject(settings.hooks) ? settings.hooks : {};
      const home = mcpHome({ ...options, scope });
      const root = readJsonObject(home.file);
      mcp = home.servers(structuredClone(root)).nexus;
    } catch (error) {
      return { tool: 'claude-code', scope, file, events: [], mcp: false, problem: (error as Error).message };
    }
    const ours = ourHooks(hooks, 'claude-code');
    return {
      tool: 'claude-code',
      scope,
      file,
      events: ours.map((hook) => hook.event),
      mcp: isOurMcpServer(mcp),
      command: ours[0]?.command,
    };
  });
}

function hooksLine(file: string, changes: HookChanges): string {
  if (changes.added.length + changes.updated.length === 0) return `hooks: already installed in ${file} (nothing changed)`;
  const parts = [
    changes.added.length > 0 ? `added ${changes.added.join(', ')}` : '',
    changes.updated.length > 0 ? `updated ${changes.updated.join(', ')}` : '',
  ].filter(Boolean);
  return `hooks: ${parts.join('; ')} in ${file}`;
}

// `nexus hooks install | uninstall | status` on settings files that already hold the user's own
// hooks and settings: merged into, never removed from or duplicated; a second install changes no
// byte; uninstall gives back the file as it was; each scope writes its own file; Codex's config.toml
// keeps its comments; a file that is not what it should be is refused with nothing changed.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILT_CLI } from './built-cli.ts';
import { runCliWith, tempFolder } from './run-cli.ts';

let temp: ReturnType<typeof tempFolder>;
let home = '';
let project = '';
beforeEach(() => {
  temp = tempFolder();
  home = path.join(temp.folder, 'home');
  project = path.join(temp.folder, 'project');
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  mkdirSync(project, { recursive: true });
});
afterEach(() => temp.cleanup());

/** `nexus hooks …` in the scratch home and project; an install names the built CLI as the command hooks run. */
const hooks = (...argv: string[]) =>
  runCliWith(['hooks', ...argv, ...(argv[0] === 'install' ? ['--command', BUILT_CLI] : []), '--project', project], {
    env: { HOME: home },
  });
const read = (file: string) => readFileSync(file, 'utf8');

const USER_SETTINGS = `${JSON.stringify(
  {
    model: 'opus',
    permissions: { allow: ['Bash(npm test)'] },
    hooks: {
      Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './check.sh' }] }],
    },
  },
  null,
  2,
)}\n`;

describe('nexus hooks install claude-code', () => {
  it("merges into the user's settings, changes nothing the second time, and uninstall gives the file back", async () => {
    const settings = path.join(home, '.claude', 'settings.json');
    writeFileSync(settings, USER_SETTINGS);
    writeFileSync(
      path.join(home, '.claude.json'),
      `${JSON.stringify({ numStartups: 7, mcpServers: { other: { command: 'x' } } }, null, 2)}\n`,
    );

    const first = await hooks('install', 'claude-code');
    expect(first.code, first.stderr).toBe(0);
    const installed = JSON.parse(read(settings));
    // The user's own settings and hooks are all there, nexus's added beside them.
    expect(installed.model).toBe('opus');
    expect(installed.permissions).toEqual({ allow: ['Bash(npm test)'] });
    expect(installed.hooks.PreToolUse).toEqual([{ matcher: 'Bash', hooks: [{ type: 'command', command: './check.sh' }] }]);
    expect(installed.hooks.Stop[0]).toEqual({ hooks: [{ type: 'command', command: 'notify-send done' }] });
    expect(installed.hooks.Stop[1].hooks[0]).toMatchObject({
      command: expect.stringContaining('hook claude-code stop'),
      async: true,
    });
    for (const event of ['SessionStart', 'UserPromptSubmit', 'Stop', 'SubagentStop', 'PreCompact', 'PostCompact', 'SessionEnd'])
      expect(JSON.stringify(installed.hooks[event]), event).toContain(`--db ${path.join(home, '.nexus', 'ledger.db')}`);
    expect(installed.hooks.SessionStart[0].matcher).toBe('compact|resume');
    const claudeJson = JSON.parse(read(path.join(home, '.claude.json')));
    expect(claudeJson.numStartups).toBe(7);
    expect(claudeJson.mcpServers.other).toEqual({ command: 'x' });
    expect(claudeJson.mcpServers.nexus).toEqual({
      type: 'stdio',
      command: BUILT_CLI,
      args: ['mcp', '--db', path.join(home, '.nexus', 'ledger.db')],
    });

    const before = read(settings);
    const again = await hooks('install', 'claude-code');
    expect(again.stdout).toContain('already installed');
    expect(read(settings)).toBe(before);

    const status = await hooks('status');
    expect(status.stdout).toMatch(/claude-code user {4}7 hooks .*MCP server registered/);
    expect(status.stdout).toMatch(/codex {7}user {4}not installed/);

    const removed = await hooks('uninstall', 'claude-code');
    expect(removed.code).toBe(0);
    expect(read(settings)).toBe(USER_SETTINGS);
    expect(JSON.parse(read(path.join(home, '.claude.json')))).toEqual({
      numStartups: 7,
      mcpServers: { other: { command: 'x' } },
    });
  });

  it('brings an older install up to date in place (another ledger), without a second handler', async () => {
    await hooks('install', 'claude-code');
    const moved = await runCliWith(
      ['hooks', 'install', 'claude-code', '--command', BUILT_CLI, '--db', path.join(temp.folder, 'team.db')],
      {
        env: { HOME: home },
      },
    );
    expect(moved.stdout).toMatch(/updated SessionStart, UserPromptSubmit/);
    const installed = JSON.parse(read(path.join(home, '.claude', 'settings.json')));
    expect(installed.hooks.UserPromptSubmit).toHaveLength(1);
    expect(installed.hooks.UserPromptSubmit[0].hooks).toHaveLength(1);
    expect(installed.hooks.UserPromptSubmit[0].hooks[0].command).toContain(path.join(temp.folder, 'team.db'));
  });

  it('writes each scope to its own file: project settings and .mcp.json, local settings and its project in ~/.claude.json', async () => {
    expect((await hooks('install', 'claude-code', '--scope', 'project')).code).toBe(0);
    expect(JSON.parse(read(path.join(project, '.claude', 'settings.json'))).hooks.Stop).toHaveLength(1);
    expect(JSON.parse(read(path.join(project, '.mcp.json'))).mcpServers.nexus.args[0]).toBe('mcp');
    expect((await hooks('install', 'claude-code', '--scope', 'local')).code).toBe(0);
    expect(JSON.parse(read(path.join(project, '.claude', 'settings.local.json'))).hooks.Stop).toHaveLength(1);
    expect(JSON.parse(read(path.join(home, '.claude.json'))).projects[project].mcpServers.nexus.command).toBe(BUILT_CLI);
    expect(existsSync(path.join(home, '.claude', 'settings.json'))).toBe(false);
    await hooks('uninstall', 'claude-code', '--scope', 'local');
    expect(JSON.parse(read(path.join(home, '.claude.json')))).toEqual({});
  });

  it('refuses settings that are not a JSON object, and a scope or tool it does not know, changing nothing', async () => {
    const settings = path.join(home, '.claude', 'settings.json');
    writeFileSync(settings, '{ "model": "opus", ');
    const broken = await hooks('install', 'claude-code');
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(`${settings} is not valid JSON`);
    expect(read(settings)).toBe('{ "model": "opus", ');
    expect((await hooks('install', 'claude-code', '--scope', 'team')).code).toBe(2);
    expect((await hooks('install', 'cursor')).code).toBe(2);
  });

  it('keeps a PostgreSQL password out of files a team commits, and out of what it prints', async () => {
    const url = 'postgres://nexus:s3cret-pw@db.internal:5432/ledger';
    const refused = await hooks('install', 'claude-code', '--scope', 'project', '--db', url);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('PGPASSWORD');
    expect(refused.stderr).not.toContain('s3cret-pw');
    expect(existsSync(path.join(project, '.claude', 'settings.json'))).toBe(false);
    expect(existsSync(path.join(project, '.mcp.json'))).toBe(false);
    // Without the password, project scope is fine; in the user's own settings the password may stay,
    // but neither install nor status prints it.
    expect(
      (await hooks('install', 'claude-code', '--scope', 'project', '--db', 'postgres://nexus@db.internal/ledger')).code,
    ).toBe(0);
    const user = await hooks('install', 'claude-code', '--db', url);
    expect(user.code, user.stderr).toBe(0);
    expect(read(path.join(home, '.claude', 'settings.json'))).toContain('s3cret-pw');
    const status = await hooks('status');
    expect(`${user.stdout}${status.stdout}`).not.toContain('s3cret-pw');
    expect(status.stdout).toContain('postgres://nexus:***@db.internal:5432/ledger');
  });

  it('leaves an MCP server named nexus that is not its own alone', async () => {
    writeFileSync(
      path.join(home, '.claude.json'),
      JSON.stringify({ mcpServers: { nexus: { command: 'docker', args: ['run', 'nexus'] } } }),
    );
    const run = await hooks('install', 'claude-code');
    expect(run.stdout).toContain('that is not this one; left as it is');
    expect(JSON.parse(read(path.join(home, '.claude.json'))).mcpServers.nexus.command).toBe('docker');
    await hooks('uninstall', 'claude-code');
    expect(JSON.parse(read(path.join(home, '.claude.json'))).mcpServers.nexus.command).toBe('docker');
  });
});

describe('nexus hooks install codex', () => {
  it("writes hooks.json and a marked block in config.toml, keeping the user's TOML as it is, and says to trust the hooks", async () => {
    const config = path.join(home, '.codex', 'config.toml');
    mkdirSync(path.dirname(config), { recursive: true });
    const userToml = '# my settings\nmodel = "gpt-5"  # the default\n\n[mcp_servers.github]\ncommand = "gh-mcp"\n';
    writeFileSync(config, userToml);
    const run = await hooks('install', 'codex');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('/hooks');
    const toml = read(config);
    expect(toml.startsWith(userToml.trimEnd())).toBe(true);
    expect(toml).toContain('[mcp_servers.nexus]');
    const installed = JSON.parse(read(path.join(home, '.codex', 'hooks.json')));
    expect(installed.hooks.UserPromptSubmit[0].hooks[0].command).toContain('hook codex user-prompt-submit');
    expect(installed.hooks.SessionEnd[0].hooks[0].timeout).toBeLessThanOrEqual(3);
    const before = read(config);
    await hooks('install', 'codex');
    expect(read(config)).toBe(before);
    await hooks('uninstall', 'codex');
    expect(read(config)).toBe(userToml);
    expect(JSON.parse(read(path.join(home, '.codex', 'hooks.json')))).toEqual({});
  });

  it('refuses a config.toml that does not parse, changing nothing', async () => {
    const config = path.join(home, '.codex', 'config.toml');
    mkdirSync(path.dirname(config), { recursive: true });
    writeFileSync(config, 'model = "gpt-5\n');
    const run = await hooks('install', 'codex');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is not valid TOML');
    expect(read(config)).toBe('model = "gpt-5\n');
  });
});

// Every `nexus …` command line that README.md and docs/ show exists: its words name a command (or a
// command group) whose own --help answers, and every option it uses is one that command takes. The
// pages cannot drift from the CLI again (a page once told people to run `nexus session new`).

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commandGroups, findCommand, GLOBAL_OPTIONS } from '../src/arguments.ts';
import { COMMANDS } from '../src/commands/index.ts';
import { runCli } from './run-cli.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const PAGES = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

interface ShownCommand {
  page: string;
  text: string;
  words: string[];
  options: string[];
}

/** The text of code blocks and inline code spans: where pages show what to type. */
function codeOf(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/```[^\n]*\n([\s\S]*?)```/g)].map((match) => match[1] as string);
  const prose = markdown.replace(/```[\s\S]*?```/g, '');
  const spans = [...prose.matchAll(/`([^`\n]+)`/g)].map((match) => match[1] as string);
  return [...blocks.flatMap((block) => block.split('\n')), ...spans];
}

/** `nexus <words> [--options]` in a line of code: words up to the first option or placeholder. */
export function shownCommands(page: string, markdown: string): ShownCommand[] {
  const found: ShownCommand[] = [];
  for (const line of codeOf(markdown)) {
    // Where a shell reads a command: the line's start (after a prompt and VAR=value), or after
    // `&&`, `|`, `;`, `$(`, a launcher's `--` (`claude mcp add nexus -- nexus mcp`) or a package
    // manager (`pnpm nexus`, `npm run nexus -- …`).
    const commandStart =
      /(?:^\s*(?:\$\s+)?(?:[A-Z_]+=\S*\s+)*|&&\s*|\|\s*|;\s*|\s--\s+|\$\()(?:(?:pnpm(?: -s)?|npm run|npx) )?nexus(?: --)?((?: [a-z][\w-]*)+)((?: [^\s|;&`)]+)*)/g;
    for (const match of line.matchAll(commandStart)) {
      const words = (match[1] as string).trim().split(' ');
      const rest = (match[2] as string).trim().split(' ');
      const options = rest.filter((token) => /^--[a-z]/.test(token)).map((token) => token.slice(2).split('=')[0] as string);
      found.push({ page, text: `nexus${match[1]}${match[2]}`.trim(), words, options });
    }
  }
  return found;
}

/** The command a line names: the longest command path its words start with (the rest are arguments). */
function commandOf(words: string[]) {
  return findCommand(COMMANDS, words)?.command;
}

const shown = PAGES.flatMap((page) => shownCommands(page, readFileSync(path.join(root, page), 'utf8')));

describe('the nexus commands the docs show', () => {
  it('finds command lines in code blocks and spans, and nothing else', () => {
    const sample = [
      'Run `nexus search redis --limit 3`.',
      '```',
      '$ nexus session list --db x.db | head',
      'nexus: error',
      '    """Talk to the nexus ledger over HTTP."""',
      'NEXUS_DB=x.db nexus doctor && nexus tree s_1',
      'claude mcp add nexus -- nexus mcp',
      'npm run nexus -- history t_1',
      '```',
      'the nexus ledger',
    ].join('\n');
    expect(shownCommands('x.md', sample).map((command) => [command.words, command.options])).toEqual([
      [['session', 'list'], ['db']],
      [['doctor'], []],
      [['tree', 's_1'], []],
      [['mcp'], []],
      [['history', 't_1'], []],
      [['search', 'redis'], ['limit']],
    ]);
    expect(shown.length).toBeGreaterThan(100);
  });

  it('every one names a command or a group of commands', () => {
    const groups = commandGroups(COMMANDS);
    const unknown = shown.filter(
      ({ words }) => !commandOf(words) && !(words.length === 1 && groups.includes(words[0] as string)) && words[0] !== 'help',
    );
    expect(unknown.map(({ page, text }) => `${page}: ${text}`)).toEqual([]);
  });

  it('every option it uses is one its command takes', () => {
    const wrong = shown.flatMap(({ page, text, words, options }) => {
      const command = commandOf(words);
      if (!command) return [];
      const known = new Set([...Object.keys(command.options), ...Object.keys(GLOBAL_OPTIONS)]);
      return options.filter((option) => !known.has(option)).map((option) => `${page}: ${text} (--${option})`);
    });
    expect(wrong).toEqual([]);
  });

  it("each command's --help is its own help", async () => {
    const paths = new Set(shown.flatMap(({ words }) => (commandOf(words) ? [commandOf(words)?.path.join(' ') ?? ''] : [])));
    expect(paths.size).toBeGreaterThan(15);
    for (const commandPath of paths) {
      const run = await runCli([...commandPath.split(' '), '--help']);
      expect(run.code, commandPath).toBe(0);
      expect(run.stdout, commandPath).toMatch(new RegExp(`^Usage: nexus ${commandPath} `));
    }
    for (const group of commandGroups(COMMANDS)) {
      const run = await runCli([group]);
      expect(run.stdout).toMatch(new RegExp(`^Usage: nexus ${group} <subcommand>`));
    }
  });
});

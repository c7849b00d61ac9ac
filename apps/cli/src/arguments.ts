// Turns argv into a command and its options, and writes help. Built on node:util parseArgs, so the
// CLI needs no argument-parsing dependency.

import { parseArgs } from 'node:util';
import { InvalidInputError } from '@agent-ledger/core';
import type { Command, OptionSpec } from './command.ts';
import { closest } from './suggest.ts';

export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  db: {
    type: 'string',
    description: 'the ledger: a SQLite file or a postgres:// URL (default ./nexus.db, or $NEXUS_DB)',
    valueName: 'FILE|URL',
  },
  json: { type: 'boolean', description: 'print machine-readable JSON on stdout' },
  help: { type: 'boolean', short: 'h', description: 'show help' },
};

export class UsageError extends InvalidInputError {
  static override readonly marker: string = 'agent-ledger.UsageError';
}

export function findCommand(commands: Command[], argv: string[]): { command: Command; rest: string[] } | null {
  let best: { command: Command; rest: string[] } | null = null;
  for (const command of commands) {
    const matches = command.path.every((word, index) => argv[index] === word);
    if (matches && (!best || command.path.length > best.command.path.length)) {
      best = { command, rest: argv.slice(command.path.length) };
    }
  }
  return best;
}

export function parseCommandArguments(command: Command, argv: string[]) {
  const specs = { ...GLOBAL_OPTIONS, ...command.options };
  try {
    const parsed = parseArgs({
      args: argv,
      options: Object.fromEntries(
        Object.entries(specs).map(([name, spec]) => [
          name,
          { type: spec.type, ...(spec.short ? { short: spec.short } : {}), ...(spec.multiple ? { multiple: true } : {}) },
        ]),
      ),
      allowPositionals: true,
      strict: true,
    });
    return { positionals: parsed.positionals, options: parsed.values as Record<string, string | boolean | string[] | undefined> };
  } catch (error) {
    throw new UsageError(`${parseErrorText(error, command, specs)} See \`nexus ${command.path.join(' ')} --help\`.`);
  }
}

/** node:util's parseArgs errors, said in the terms of the command line, with the flag meant when it is a typo. */
function parseErrorText(error: unknown, command: Command, specs: Record<string, OptionSpec>): string {
  const { code, message } = error as { code?: string; message?: string };
  const flag = /'(-{1,2}[^' ]+)/.exec(message ?? '')?.[1];
  const where = `\`nexus ${command.path.join(' ')}\``;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag) {
    const meant = closest(flag.replace(/^-+/, ''), Object.keys(specs));
    return `unknown option ${flag} for ${where}.${meant ? ` Did you mean --${meant}?` : ''}`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag) {
    const name = flag.replace(/^-+/, '');
    const spec = specs[name];
    return spec?.type === 'string'
      ? `--${name} needs a value (--${name} ${spec.valueName ?? 'VALUE'}).`
      : `--${name} takes no value.`;
  }
  return `${(message ?? String(error)).replace(/\.$/, '')}.`;
}

export function requirePositionals(command: Command, positionals: string[]): void {
  const required = command.arguments.filter((argument) => argument.startsWith('<'));
  if (positionals.length < required.length) {
    throw new UsageError(`missing ${required.slice(positionals.length).join(' ')}. Usage: ${usageLine(command)}`);
  }
  const optional = command.arguments.length - required.length;
  if (positionals.length > required.length + optional && !command.arguments.some((argument) => argument.endsWith('...'))) {
    throw new UsageError(`unexpected argument "${positionals[command.arguments.length]}". Usage: ${usageLine(command)}`);
  }
}

export function usageLine(command: Command): string {
  return ['nexus', ...command.path, ...command.arguments, '[options]'].join(' ');
}

export function commandHelp(command: Command): string {
  const lines = [`Usage: ${usageLine(command)}`, '', command.summary];
  if (command.details) lines.push('', command.details);
  lines.push('', 'Options:', ...optionLines(command.options), '', 'Global options:', ...optionLines(GLOBAL_OPTIONS));
  return lines.join('\n');
}

export function generalHelp(commands: Command[]): string {
  const width = Math.max(...commands.map((command) => command.path.join(' ').length));
  return [
    'nexus — an agents ledger that keeps every turn and still sends the model a small context.',
    '',
    'Usage: nexus <command> [arguments] [options]',
    '',
    'Commands:',
    ...commands.map((command) => `  ${command.path.join(' ').padEnd(width)}  ${command.summary}`),
    '',
    'Global options:',
    ...optionLines({ ...GLOBAL_OPTIONS, version: { type: 'boolean', description: 'print the version (nexus --version)' } }),
    '',
    'Run `nexus <command> --help` for a command’s options.',
    'Exit status: 0 done, 1 the command failed (the reason is on stderr), 2 a usage mistake (unknown command or',
    'option, missing argument, bad option value).',
  ].join('\n');
}

/** The commands that start with `group` (`nexus session` → create, list, show). */
export function groupHelp(commands: Command[], group: string): string {
  const members = commands.filter((command) => command.path[0] === group && command.path.length > 1);
  const width = Math.max(...members.map((command) => command.path.join(' ').length));
  return [
    `Usage: nexus ${group} <subcommand> [arguments] [options]`,
    '',
    'Subcommands:',
    ...members.map((command) => `  nexus ${command.path.join(' ').padEnd(width)}  ${command.summary}`),
    '',
    `Run \`nexus ${group} <subcommand> --help\` for its options.`,
  ].join('\n');
}

/** The first words of commands that have subcommands: session, events, turn. */
export function commandGroups(commands: Command[]): string[] {
  return [...new Set(commands.filter((command) => command.path.length > 1).map((command) => command.path[0] as string))];
}

function optionLines(options: Record<string, OptionSpec>): string[] {
  const rendered = Object.entries(options).map(([name, spec]) => {
    const flag = `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.type === 'string' ? ` ${spec.valueName ?? 'VALUE'}` : ''}`;
    return [flag, spec.description] as const;
  });
  if (rendered.length === 0) return ['  (none)'];
  const width = Math.max(...rendered.map(([flag]) => flag.length));
  return rendered.map(([flag, description]) => `  ${flag.padEnd(width)}  ${description}`);
}

export function integerOption(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (typeof value !== 'string' || !Number.isInteger(number) || number < 0) {
    throw new UsageError(`--${name} takes a whole number, got "${String(value)}".`);
  }
  return number;
}

export function stringOption(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A time given as ISO 8601 or as milliseconds since the epoch. */
export function timeOption(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  const time = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (Number.isNaN(time)) throw new UsageError(`--${name} takes an ISO 8601 time or ms since the epoch, got "${text}".`);
  return time;
}

// Runs the CLI in-process with captured output, against a real database file in a temp folder.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { main } from '../src/main.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  json(): unknown;
}

export function tempFolder(): { folder: string; dbPath: string; cleanup(): void } {
  const folder = mkdtempSync(path.join(tmpdir(), 'nexus-cli-'));
  return { folder, dbPath: path.join(folder, 'ledger.db'), cleanup: () => rmSync(folder, { recursive: true, force: true }) };
}

export async function runCli(argv: string[], options: { stdin?: string } = {}): Promise<CliRun> {
  return runCliWith(argv, options);
}

/** runCli with an environment of its own (HOME for the hooks' settings, say). */
export async function runCliWith(
  argv: string[],
  options: { stdin?: string; env?: Record<string, string> } = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    stdin: Readable.from([options.stdin ?? '']),
    stderrIsTerminal: false,
    env: options.env ?? {},
  });
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}

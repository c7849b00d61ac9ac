// Reading what a command is given as `--file FILE` or `--file -`: `-` is standard input read as the
// stream the process was handed, whatever it is (a pipe, a file, a socket), never /dev/stdin opened
// by path (Linux refuses that for a socket: ENXIO). A terminal is refused: the command would sit
// waiting for someone to type JSON.

import { readFile } from 'node:fs/promises';
import { InvalidInputError } from '@agent-ledger/core';
import { UsageError } from './arguments.ts';

export interface InputSource {
  /** The path given with the flag, or `-` for standard input. */
  file: string;
  stdin: NodeJS.ReadableStream;
  /** The flag, as the message on a terminal names it: `--file -`. */
  flag: string;
  /** What a person would pipe in instead, for that message: `echo '{…}' | nexus turn append S --file -`. */
  example: string;
}

/** The whole text of a file, or of standard input for `-`. */
export async function readInputText({ file, stdin, flag, example }: InputSource): Promise<string> {
  if (file !== '-') {
    try {
      return await readFile(file, 'utf8');
    } catch (error) {
      throw new InvalidInputError(`cannot read ${file}: ${(error as Error).message}`);
    }
  }
  if ((stdin as { isTTY?: boolean }).isTTY === true) {
    throw new UsageError(
      `${flag} reads standard input, which is a terminal here: pipe the JSON in (\`${example}\`) or name a file.`,
    );
  }
  return readStream(stdin);
}

async function readStream(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  try {
    // Bytes first, decoded once: a character split across two chunks stays whole.
    for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  } catch (error) {
    throw new InvalidInputError(`cannot read standard input: ${(error as Error).message}`);
  }
  return Buffer.concat(chunks).toString('utf8');
}

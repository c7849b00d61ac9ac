// The hooks' own log: one line per hook run (what ran, how long, what came of it), since a hook's
// stderr is seen by no one when all is well and by the user only as a one-line notice otherwise.
// ~/.nexus/hooks.log by default ($NEXUS_HOOK_LOG or --log moves it); it is rotated at 5 MB.

import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

const ROTATE_BYTES = 5 * 1024 * 1024;

/** Where hooks keep their files by default: the ledger, the log. */
export function nexusHome(env: Record<string, string | undefined>): string {
  return path.join(env.HOME || homedir(), '.nexus');
}

export function defaultHookLog(env: Record<string, string | undefined>): string {
  return env.NEXUS_HOOK_LOG || path.join(nexusHome(env), 'hooks.log');
}

/** Appends one line; never throws (a log that cannot be written must not fail the hook). */
export function appendHookLog(file: string, line: string): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    try {
      if (statSync(file).size > ROTATE_BYTES) renameSync(file, `${file}.1`);
    } catch {
      // no log yet
    }
    appendFileSync(file, `${new Date().toISOString()} ${line.replace(/\s+/g, ' ')}\n`);
  } catch {
    // nowhere to write: the hook still answers
  }
}

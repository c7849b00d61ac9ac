// Writing a file a person named with -o/--output: never over an existing file unless they said
// --force, and never half a file where a good one was. The text goes to a temporary file beside the
// target, is flushed to disk, and is then moved into place in one rename (or hard-linked, when the
// file must not exist: link refuses a name that another process took meanwhile). A failed or
// interrupted write leaves the old file as it was; a process killed mid-write (^C, kill) at worst
// leaves the temporary file, named `.NAME.<pid>-<random>.partial`, beside it.

import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { type BigIntStats, createWriteStream, statSync } from 'node:fs';
import { chmod, link, open, realpath, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { InvalidInputError } from '@agent-ledger/core';
import { UsageError } from './arguments.ts';

/** What is at the path now, and so how it is written. */
export type OutputTarget =
  /** Nothing: a new file, which must still not exist when it is moved into place. */
  | { kind: 'new'; path: string }
  /** A file --force replaces: written beside its real path (a link to it stays a link), its mode kept. */
  | { kind: 'replace'; path: string; mode: number }
  /** A FIFO, a terminal, /dev/stdout: nothing to overwrite or rename over; written straight. */
  | { kind: 'stream'; path: string };

export interface OutputRule {
  /** The flag that named the file and the one that allows replacing it, for the messages. */
  flag: string;
  force: boolean;
  forceFlag: string;
}

/**
 * Checks the target before any work: an existing file without --force and a folder are usage
 * mistakes (exit 2), said before the command spends time on what it would write.
 */
export async function outputTarget(file: string, rule: OutputRule): Promise<OutputTarget> {
  let stats: BigIntStats;
  try {
    // bigint: a plain statSync of a FIFO makes Node 20's module loader stop following symlinks
    // for the packages it loads next (nodejs/node#51142); the bigint variant leaves that alone.
    stats = statSync(file, { bigint: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'new', path: file };
    throw new InvalidInputError(`cannot write ${file}: ${(error as Error).message}`);
  }
  if (stats.isDirectory()) throw new UsageError(`${rule.flag} ${file} is a folder: name a file in it.`);
  if (!stats.isFile()) return { kind: 'stream', path: file };
  if (!rule.force) throw existsError(file, rule);
  return { kind: 'replace', path: await realpath(file), mode: Number(stats.mode & 0o7777n) };
}

/** Writes `chunks` to the target checked by outputTarget; resolves with the bytes written. */
export async function writeOutputFile(
  target: OutputTarget,
  chunks: AsyncIterable<string> | Iterable<string>,
  rule: OutputRule,
): Promise<number> {
  if (target.kind === 'stream') return writeStraight(target.path, chunks);
  // The name cut short so the temporary name stays within a file system's 255 bytes.
  const name = path.basename(target.path).slice(0, 160);
  const temporary = path.join(path.dirname(target.path), `.${name}.${process.pid}-${randomBytes(4).toString('hex')}.partial`);
  try {
    const bytes = await writeFlushed(temporary, chunks);
    if (target.kind === 'replace') {
      await chmod(temporary, target.mode);
      await rename(temporary, target.path);
    } else await moveIntoNewName(temporary, target.path, rule);
    return bytes;
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    // The file system's refusal (no space, a read-only folder) is said with the path, not as an internal error.
    if ((error as NodeJS.ErrnoException | null)?.syscall === undefined) throw error;
    throw new InvalidInputError(`cannot write ${target.path}: ${(error as Error).message}`);
  }
}

async function writeFlushed(file: string, chunks: AsyncIterable<string> | Iterable<string>): Promise<number> {
  const handle = await open(file, 'wx');
  try {
    let bytes = 0;
    for await (const chunk of chunks) {
      const buffer = Buffer.from(chunk);
      bytes += buffer.length;
      await handle.write(buffer);
    }
    // On disk before the rename: after a crash the name holds the old text or the whole new one.
    await handle.sync();
    return bytes;
  } finally {
    await handle.close();
  }
}

/** The temporary file under the target's name, unless a file took that name since it was checked. */
async function moveIntoNewName(temporary: string, file: string, rule: OutputRule): Promise<void> {
  try {
    await link(temporary, file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw existsError(file, rule);
    // A file system without hard links: check again, then rename (a race of a few microseconds).
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV') throw error;
    if (exists(file)) throw existsError(file, rule);
    await rename(temporary, file);
    return;
  }
  await unlink(temporary);
}

async function writeStraight(file: string, chunks: AsyncIterable<string> | Iterable<string>): Promise<number> {
  const stream = createWriteStream(file, { flags: 'w' });
  let bytes = 0;
  for await (const chunk of chunks) {
    bytes += Buffer.byteLength(chunk);
    if (!stream.write(chunk)) await once(stream, 'drain');
  }
  stream.end();
  await once(stream, 'finish');
  return bytes;
}

function exists(file: string): boolean {
  try {
    statSync(file, { bigint: true });
    return true;
  } catch {
    return false;
  }
}

function existsError(file: string, rule: OutputRule): UsageError {
  return new UsageError(`${file} already exists; it was left as it is. Add ${rule.forceFlag} to replace it, or name a new file.`);
}

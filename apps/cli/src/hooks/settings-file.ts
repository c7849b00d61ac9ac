// Reading and writing the JSON settings files of the tools nexus hooks into (Claude Code's
// settings.json and ~/.claude.json, Codex's hooks.json, a project's .mcp.json). A file that is not a
// JSON object is never written over: the install stops and says which file and why. A write goes to
// a temporary file beside it and is renamed into place, so the tool never reads half a file.

import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { InvalidInputError } from '@agent-ledger/core';

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The file's object, or {} when there is no file yet. */
export function readJsonObject(file: string): JsonObject {
  if (!existsSync(file)) return {};
  const text = readFileSync(file, 'utf8');
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(`${file} is not valid JSON (${(error as Error).message}): fix it by hand; nothing was changed.`);
  }
  if (!isJsonObject(value))
    throw new InvalidInputError(`${file} does not hold a JSON object: fix it by hand; nothing was changed.`);
  return value;
}

/** Writes the object (two-space indent, as the tools write it), atomically. */
export function writeJsonObject(file: string, value: JsonObject): void {
  writeTextAtomically(file, `${JSON.stringify(value, null, 2)}\n`);
}

export function writeTextAtomically(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.nexus-${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
}

/** The object at `key` of `parent`, made when absent; refuses a key holding something else. */
export function objectAt(parent: JsonObject, key: string, file: string): JsonObject {
  const value = parent[key];
  if (value === undefined) {
    const made: JsonObject = {};
    parent[key] = made;
    return made;
  }
  if (!isJsonObject(value))
    throw new InvalidInputError(`"${key}" in ${file} is not an object: fix it by hand; nothing was changed.`);
  return value;
}

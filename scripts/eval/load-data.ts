// Finds the conversation files the evaluation is given and checks each one before anything runs:
// the ledger's parser checks the messages, this module the questions (which it leaves unchecked).
// Every error names the file. One repair: a message id that repeats (LongMemEval haystacks can
// hold one session twice) is renamed `<id>#2`, `#3`… in its later copies, so the file imports
// whole; an evidence id that repeats is ambiguous and refused. Messages are checked by the
// importer's own rules (validateConversation applies them), so a file that loads imports; an empty
// message, which import skips, is listed and dropped from the evidence it is named in (there is no
// text of it to find, and an empty text would be found in every context).

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Conversation, importableContent, validateConversation } from '../../packages/agents-ledger/src/index.ts';

/** A data file the evaluation cannot use: exit code 1, with the file named. */
export class DataError extends Error {}

export interface LoadedConversation {
  file: string;
  conversation: Conversation;
  /** Message ids that appeared more than once; their later copies were renamed `<id>#2`, … */
  repeatedIds: string[];
  /** Empty messages: import skips them, and evidence naming them is left out. */
  emptyMessageIds: string[];
}

/** Files as given, folders searched (recursively, in name order) for *.json. */
export function collectDataFiles(paths: readonly string[]): string[] {
  const files = paths.flatMap((path) => {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch {
      throw new DataError(`${path}: no such file or folder.`);
    }
    if (!isDirectory) return [path];
    const found = jsonFilesUnder(path);
    if (found.length === 0) throw new DataError(`${path}: the folder holds no .json file.`);
    return found;
  });
  return [...new Set(files)];
}

function jsonFilesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true })
    .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0))
    .flatMap((entry) => {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) return jsonFilesUnder(path);
      return entry.name.endsWith('.json') ? [path] : [];
    });
}

export function loadConversationFile(file: string): LoadedConversation {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new DataError(`${file}: cannot be read (${(error as Error).message}).`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DataError(`${file}: not valid JSON (${(error as Error).message}).`);
  }
  const repeatedIds = renameRepeatedIds(value);
  let conversation: Conversation;
  try {
    // The validator's messages start with the file name it is given.
    conversation = validateConversation(value, file);
  } catch (error) {
    throw new DataError(`${(error as Error).message} (the evaluation reads nexus-eval/v1 files, see ../shared/data/README.md)`);
  }
  checkQuestions(conversation, file);
  const ambiguous = conversation.questions.flatMap((question) =>
    Array.isArray(question.evidence) ? question.evidence.filter((id) => repeatedIds.includes(id)) : [],
  );
  if (ambiguous.length > 0) {
    throw new DataError(`${file}: evidence "${ambiguous[0]}" names a message id that appears more than once.`);
  }
  const empty = new Set(
    conversation.messages.filter((message) => importableContent(message.content) === null).map((message) => message.id),
  );
  if (empty.size > 0) {
    for (const question of conversation.questions) question.evidence = question.evidence.filter((id) => !empty.has(id));
  }
  return { file, conversation, repeatedIds, emptyMessageIds: [...empty] };
}

/** Renames the later copies of a repeated message id in place; returns the ids that repeated. */
function renameRepeatedIds(value: unknown): string[] {
  const messages = (value as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) return [];
  const ids = new Set(messages.map((message) => (message as { id?: unknown } | null)?.id).filter((id) => typeof id === 'string'));
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const message of messages) {
    const id = (message as { id?: unknown } | null)?.id;
    if (typeof id !== 'string' || id === '') continue;
    if (!seen.has(id)) {
      seen.add(id);
      continue;
    }
    repeated.add(id);
    let copy = 2;
    while (ids.has(`${id}#${copy}`)) copy += 1;
    ids.add(`${id}#${copy}`);
    (message as { id: string }).id = `${id}#${copy}`;
  }
  return [...repeated];
}

function checkQuestions(conversation: Conversation, file: string): void {
  const messageIds = new Set(conversation.messages.map((message) => message.id));
  const seen = new Set<string>();
  for (const [index, value] of (conversation.questions as unknown[]).entries()) {
    const where = `${file}: questions[${index}]`;
    if (typeof value !== 'object' || value === null) throw new DataError(`${where} must be an object.`);
    const question = value as Record<string, unknown>;
    if (typeof question.id !== 'string' || question.id === '') throw new DataError(`${where}.id must be a non-empty string.`);
    if (seen.has(question.id)) throw new DataError(`${where}.id "${question.id}" appears twice.`);
    seen.add(question.id);
    if (typeof question.question !== 'string') throw new DataError(`${where}.question must be a string.`);
    if (question.answer !== null && typeof question.answer !== 'string') {
      throw new DataError(`${where}.answer must be a string, or null for an unanswerable question.`);
    }
    if (!Array.isArray(question.evidence) || question.evidence.some((id) => typeof id !== 'string')) {
      throw new DataError(`${where}.evidence must be an array of message ids.`);
    }
    const unknown = (question.evidence as string[]).find((id) => !messageIds.has(id));
    if (unknown !== undefined) throw new DataError(`${where}.evidence names "${unknown}", which is no message of the file.`);
    if (question.category !== undefined && typeof question.category !== 'string') {
      throw new DataError(`${where}.category must be a string when present.`);
    }
    if (question.askedAt !== undefined && question.askedAt !== null) {
      if (typeof question.askedAt !== 'string' || Number.isNaN(Date.parse(question.askedAt))) {
        throw new DataError(`${where}.askedAt must be an ISO 8601 time, got ${JSON.stringify(question.askedAt)}.`);
      }
    }
    if (question.evidenceLevel !== undefined && question.evidenceLevel !== 'turn' && question.evidenceLevel !== 'session') {
      throw new DataError(`${where}.evidenceLevel must be "turn" or "session", got ${JSON.stringify(question.evidenceLevel)}.`);
    }
  }
}

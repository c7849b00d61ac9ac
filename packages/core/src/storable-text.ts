// The one rule for text the ledgers store: every string of an event or a turn (names, payloads,
// content, metadata keys and values) is well-formed Unicode without NUL, or it is refused before
// anything is hashed or written. Nothing is replaced: what was hashed is then exactly what either
// engine stores and reads back. Why refuse and not repair, and why NUL too, is in docs/data-model.md
// ("Text"). Limits on length and shape stay with each ledger's own validation.

import { InvalidInputError } from './errors.ts';

/**
 * A NUL, a high surrogate with no low one after it, or a low surrogate with no high one before it.
 * Without the `u` flag a regular expression works on UTF-16 code units, which is what is wanted.
 */
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Deeper values are refused: the walk must stay bounded, and no ledger accepts this depth anyway. */
const MAX_DEPTH = 256;

/** Where the first character a ledger cannot store sits in `text`, or null when there is none. */
export function unstorableTextIndex(text: string): number | null {
  const match = UNSTORABLE.exec(text);
  return match === null ? null : match.index;
}

/**
 * `text` made storable by replacing what the rule refuses: a lone surrogate becomes U+FFFD and a NUL
 * is dropped. Only for text the ledger writes itself from what a model or a transcript produced (a
 * summary, an imported line), where refusing would lose the rest; input from a caller is refused.
 */
export function toStorableText(text: string): string {
  return unstorableTextIndex(text) === null ? text : text.replace(LONE_SURROGATE, '\ufffd').replaceAll('\0', '');
}

/**
 * Refuses `value` (a string, or any JSON value, walked through its arrays, object keys and object
 * values) when a string in it holds a lone surrogate or a NUL, with an InvalidInputError whose
 * message and `field` name the path (`payload.items[2].text`) and the index of the character.
 */
export function assertStorableText(value: unknown, field: string): void {
  walk(value, { field, segments: [], ancestors: [] });
}

/** Where the walk is: the path is kept as segments and written out only for an error. */
interface Walk {
  field: string;
  segments: Array<string | number>;
  ancestors: object[];
}

function walk(value: unknown, at: Walk): void {
  if (typeof value === 'string') {
    const index = unstorableTextIndex(value);
    if (index !== null) throw unstorableError({ text: value, index, path: pathOf(at), key: null });
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  // A cycle or a runaway depth cannot be stored either; the ledgers' own checks name it better,
  // so this only has to stop.
  if (at.ancestors.includes(value) || at.ancestors.length >= MAX_DEPTH) {
    throw new InvalidInputError(`${pathOf(at)} is nested too deep (or refers back to itself) to store.`, pathOf(at));
  }
  at.ancestors.push(value);
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) walkInto(value[index], index, at);
  } else {
    for (const [key, item] of Object.entries(value)) {
      // JSON drops a key whose value is undefined, so nothing of it would be stored.
      if (item === undefined) continue;
      const keyIndex = unstorableTextIndex(key);
      if (keyIndex !== null) throw unstorableError({ text: key, index: keyIndex, path: pathOf(at), key });
      walkInto(item, key, at);
    }
  }
  at.ancestors.pop();
}

function walkInto(value: unknown, segment: string | number, at: Walk): void {
  at.segments.push(segment);
  walk(value, at);
  at.segments.pop();
}

/** `payload.items[2].text`: the notation canonical JSON's errors use. */
function pathOf(at: Walk): string {
  return at.segments.reduce<string>(
    (path, segment) => (typeof segment === 'number' ? `${path}[${segment}]` : `${path}.${segment}`),
    at.field,
  );
}

interface Unstorable {
  text: string;
  index: number;
  /** The field the error names (its `field`): the string's path, or for a key its object's. */
  path: string;
  /** The key, when the bad string is one (`text` is then the key). */
  key: string | null;
}

function unstorableError({ text, index, path, key }: Unstorable): InvalidInputError {
  const what = key === null ? path : `the key ${JSON.stringify(key.slice(0, 40))} of ${path}`;
  const unit = text.charCodeAt(index);
  const codePoint = `U+${unit.toString(16).toUpperCase().padStart(4, '0')}`;
  const where = `at index ${index} (in UTF-16 code units)`;
  const reason =
    unit === 0
      ? `a NUL (${codePoint}) ${where}, which PostgreSQL cannot store as text; encode binary data (as base64, say) before sending it`
      : `a lone surrogate (${codePoint}) ${where}: half of a character such as an emoji, cut where the text was split; ` +
        'send the whole character, or replace the half with U+FFFD (String.prototype.toWellFormed) before sending';
  return new InvalidInputError(`${what} holds ${reason}.`, path);
}

// One byte-exact encoding of a JSON value (object keys sorted, no whitespace), so the same event or
// turn always hashes the same, whoever wrote it and in whatever key order it arrived. Anything JSON
// cannot hold — cycles, NaN, functions, class instances — is refused with the path to it.

import { InvalidInputError } from './errors.ts';

/** Deeper payloads are refused: real messages nest a handful of levels, and recursion must stay bounded. */
export const MAX_PAYLOAD_DEPTH = 64;

export function canonicalJson(value: unknown, path = 'payload'): string {
  // Every event is encoded on append: the fast encoder builds no paths; when it meets anything JSON
  // cannot hold it gives up, and the careful one below finds the problem and names its path.
  return fastEncode(value, []) ?? encode(value, path, new Set());
}

/** The same encoding as `encode`, or undefined where `encode` would throw. */
function fastEncode(value: unknown, open: object[]): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : undefined;
    case 'object':
      break;
    default:
      return undefined;
  }
  const container = value as object;
  if (open.length >= MAX_PAYLOAD_DEPTH || open.includes(container)) return undefined;
  open.push(container);
  let out: string;
  if (Array.isArray(container)) {
    out = '[';
    for (let index = 0; index < container.length; index += 1) {
      const item: unknown = container[index];
      const encoded = item === undefined ? undefined : fastEncode(item, open);
      if (encoded === undefined) return undefined;
      out += index === 0 ? encoded : `,${encoded}`;
    }
    out += ']';
  } else {
    const prototype = Object.getPrototypeOf(container);
    if (prototype !== Object.prototype && prototype !== null) return undefined;
    const record = container as Record<string, unknown>;
    // The default sort compares UTF-16 code units, as `encode`'s comparator does.
    const keys = Object.keys(record).sort();
    out = '{';
    let first = true;
    for (const key of keys) {
      const item = record[key];
      if (item === undefined) continue;
      const encoded = fastEncode(item, open);
      if (encoded === undefined) return undefined;
      out += `${first ? '' : ','}${JSON.stringify(key)}:${encoded}`;
      first = false;
    }
    out += '}';
  }
  open.pop();
  return out;
}

function encode(value: unknown, path: string, ancestors: Set<object>): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new InvalidInputError(`${path} is ${value}, which JSON cannot hold.`, path);
      return JSON.stringify(value);
    case 'object':
      return encodeContainer(value, path, ancestors);
    default:
      throw new InvalidInputError(`${path} is a ${typeof value}, which JSON cannot hold.`, path);
  }
}

function encodeContainer(value: object, path: string, ancestors: Set<object>): string {
  if (ancestors.has(value)) throw new InvalidInputError(`${path} refers back to itself; JSON cannot hold a cycle.`, path);
  if (ancestors.size >= MAX_PAYLOAD_DEPTH) {
    throw new InvalidInputError(`${path} is nested more than ${MAX_PAYLOAD_DEPTH} levels deep.`, path);
  }
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      const items: string[] = [];
      // An index loop, not map: map skips the holes of a sparse array, which would encode as "[,1]".
      for (let index = 0; index < value.length; index += 1) {
        const item: unknown = value[index];
        const itemPath = `${path}[${index}]`;
        if (item === undefined)
          throw new InvalidInputError(`${itemPath} is undefined (or a hole), which JSON cannot hold.`, itemPath);
        items.push(encode(item, itemPath, ancestors));
      }
      return `[${items.join(',')}]`;
    }
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      throw new InvalidInputError(
        `${path} is a ${prototype?.constructor?.name ?? 'non-plain'} object; payloads are plain JSON.`,
        path,
      );
    }
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${encode(item, `${path}.${key}`, ancestors)}`).join(',')}}`;
  } finally {
    ancestors.delete(value);
  }
}

// One byte-exact encoding of a JSON value (object keys sorted, no whitespace), so the same event
// always hashes the same, whoever wrote it and in whatever key order it arrived.

import { InvalidInputError } from '@nexus/core';

export function canonicalJson(value: unknown, path = 'payload'): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new InvalidInputError(`${path} is ${value}, which JSON cannot hold.`, path);
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map((item, index) => canonicalJson(item, `${path}[${index}]`)).join(',')}]`;
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
      return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item, `${path}.${key}`)}`).join(',')}}`;
    }
    default:
      throw new InvalidInputError(`${path} is a ${typeof value}, which JSON cannot hold.`, path);
  }
}

// Ids are short (they are cited inside summaries and contexts, where every token counts) and
// carry a prefix so a person can tell a turn from a session at a glance.

import { customAlphabet } from 'nanoid';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
// 62^12 ≈ 3e21: a collision among a billion ids has odds of about 1 in 6,000,000.
const randomPart = customAlphabet(ALPHABET, 12);

export type IdKind = 'turn' | 'session' | 'event';
const PREFIX: Record<IdKind, string> = { turn: 't_', session: 's_', event: 'e_' };

export type IdGenerator = (kind: IdKind) => string;

export const generateId: IdGenerator = (kind) => PREFIX[kind] + randomPart();

/** Deterministic ids for tests and reproducible imports: t_000001, t_000002, ... */
export function sequentialIds(): IdGenerator {
  const counters: Record<IdKind, number> = { turn: 0, session: 0, event: 0 };
  return (kind) => {
    counters[kind] += 1;
    return PREFIX[kind] + String(counters[kind]).padStart(6, '0');
  };
}

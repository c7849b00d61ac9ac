// Each error class answers `isInstance` for its own instances and its subclasses' only, from any
// copy of the package (a second copy is what `instanceof` gets wrong and the markers are for).

import { describe, expect, it } from 'vitest';
import * as errors from '../src/errors.ts';
import { HeadConflictError, InvalidInputError, LedgerError, StorageError, TurnNotFoundError } from '../src/errors.ts';

type ErrorClass = typeof LedgerError;
const classes = Object.entries(errors).filter(
  (entry): entry is [string, ErrorClass] => typeof entry[1] === 'function' && entry[1].prototype instanceof Error,
);

describe('ledger errors', () => {
  it('every class declares a marker of its own', () => {
    expect(classes.length).toBeGreaterThan(15);
    const markers = classes.map(([, type]) => type.marker);
    expect(new Set(markers).size).toBe(classes.length);
    for (const [name, type] of classes) expect(type.marker).toBe(`agent-ledger.${name}`);
  });

  it('isInstance tells classes apart and holds up the class chain', () => {
    const missing = new TurnNotFoundError('t1');
    expect(TurnNotFoundError.isInstance(missing)).toBe(true);
    expect(LedgerError.isInstance(missing)).toBe(true);
    expect(InvalidInputError.isInstance(missing)).toBe(false);
    expect(StorageError.isInstance(new Error('plain'))).toBe(false);
    expect(LedgerError.isInstance(null)).toBe(false);
    expect(LedgerError.isInstance('TURN_NOT_FOUND')).toBe(false);
  });

  it('isInstance recognises an error made by a second copy of the package', async () => {
    // A query string makes the module loader evaluate the file again: a second copy of the classes.
    const secondCopy = '../src/errors.ts?second-copy';
    const copy = (await import(/* @vite-ignore */ secondCopy)) as typeof errors;
    expect(copy.HeadConflictError).not.toBe(HeadConflictError);
    const conflict = new copy.HeadConflictError('s1', 'a', 'b');
    expect(conflict instanceof HeadConflictError).toBe(false);
    expect(HeadConflictError.isInstance(conflict)).toBe(true);
    expect(LedgerError.isInstance(conflict)).toBe(true);
    expect(TurnNotFoundError.isInstance(conflict)).toBe(false);
  });

  it('says which errors are worth retrying as they are', () => {
    expect(new HeadConflictError('s1', null, 'x').isRetryable).toBe(true);
    expect(new InvalidInputError('bad').isRetryable).toBe(false);
    expect(new StorageError('disk').isRetryable).toBe(false);
  });
});

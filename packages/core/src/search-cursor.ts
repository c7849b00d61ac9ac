// Search cursors are opaque: the store that ran a search makes them (what they hold is the
// engine's business) and is handed them back. What every engine shares is how a cursor it did not
// make is refused.

import { InvalidInputError } from './errors.ts';

/** The error for a cursor no search returned (malformed, or from another engine). */
export function invalidCursorError(cursor: string): InvalidInputError {
  return new InvalidInputError(
    `"${cursor}" is not a cursor this search returned; pass nextCursor from the previous page.`,
    'cursor',
  );
}

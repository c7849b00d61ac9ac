// The line splitter under `nexus mcp`: lines cut anywhere across chunks come out whole, a line of
// exactly the limit is read and one byte more is reported by its size only, and the line after an
// oversized one is read as usual.

import { describe, expect, it } from 'vitest';
import { BoundedLineSplitter, type LinePiece } from '../src/bounded-lines.ts';

function split(maxLineBytes: number, chunks: string[], end = true): Array<string | number> {
  const pieces: LinePiece[] = [];
  const splitter = new BoundedLineSplitter(maxLineBytes, (piece) => pieces.push(piece));
  for (const chunk of chunks) splitter.push(Buffer.from(chunk));
  if (end) splitter.end();
  return pieces.map((piece) => (piece.kind === 'line' ? piece.bytes.toString() : piece.bytes));
}

describe('BoundedLineSplitter', () => {
  it('joins lines cut across chunks, byte by byte too', () => {
    const text = 'alpha\nbeta\r\n\ngamma';
    expect(split(100, [text])).toEqual(['alpha', 'beta', '', 'gamma']);
    expect(split(100, [...text])).toEqual(['alpha', 'beta', '', 'gamma']);
    // Without the end of input, the last line is not yet a line.
    expect(split(100, [text], false)).toEqual(['alpha', 'beta', '']);
  });

  it('reads a line of exactly the limit and reports a longer one by its size, then goes on', () => {
    expect(split(5, ['12345\n123456\nok\n'])).toEqual(['12345', 6, 'ok']);
    expect(split(5, ['123', '456', '789\n', 'ok'])).toEqual([9, 'ok']);
    // An oversized last line with no newline is still reported.
    expect(split(5, ['ok\n', '1234567'])).toEqual(['ok', 7]);
  });
});

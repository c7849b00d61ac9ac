// Splits a byte stream into newline-ended lines without ever holding more than `maxLineBytes` of
// one line: a longer line is dropped as it streams in, up to its newline, and reported by its size
// only. The caller answers it; the next line is read as usual. The SDK's reader instead buffers the
// whole line and, past its limit, closes the transport, so one large request silenced the server.

export type LinePiece = { kind: 'line'; bytes: Buffer } | { kind: 'oversized'; bytes: number };

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

export class BoundedLineSplitter {
  private chunks: Buffer[] = [];
  private length = 0;
  /** Bytes of the current line seen so far once it went over the limit; -1 while within it. */
  private discarded = -1;

  constructor(
    private readonly maxLineBytes: number,
    private readonly emit: (piece: LinePiece) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      this.take(chunk.subarray(start, newline === -1 ? chunk.length : newline));
      if (newline === -1) return;
      this.finishLine();
      start = newline + 1;
    }
  }

  /** The input ended: a last line without its newline is still a line. */
  end(): void {
    if (this.length > 0 || this.discarded >= 0) this.finishLine();
  }

  private take(part: Buffer): void {
    if (part.length === 0) return;
    if (this.discarded >= 0) {
      this.discarded += part.length;
      return;
    }
    if (this.length + part.length > this.maxLineBytes) {
      this.discarded = this.length + part.length;
      this.chunks = [];
      this.length = 0;
      return;
    }
    this.chunks.push(part);
    this.length += part.length;
  }

  private finishLine(): void {
    const piece: LinePiece =
      this.discarded >= 0 ? { kind: 'oversized', bytes: this.discarded } : { kind: 'line', bytes: this.lineBytes() };
    this.chunks = [];
    this.length = 0;
    this.discarded = -1;
    this.emit(piece);
  }

  /** The line as read, less the \r of a \r\n ending. */
  private lineBytes(): Buffer {
    const line = Buffer.concat(this.chunks, this.length);
    return line.at(-1) === CARRIAGE_RETURN ? line.subarray(0, -1) : line;
  }
}

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into newline-delimited lines of at most `maxBytes` each, holding no more
 * than that at once: a line that grows past it is reported once (`oversized`) as soon as it does,
 * and the rest of it is dropped as it arrives, up to its newline; the next line is read as usual.
 * @internal
 */
export class BoundedLineReader {
  private readonly pending: Buffer[] = [];
  private pendingBytes = 0;
  private discarding = false;

  constructor(
    private readonly maxBytes: number,
    private readonly line: (text: string) => void,
    private readonly oversized: () => void,
  ) {}

  push(data: Buffer | string): void {
    let chunk = typeof data === 'string' ? Buffer.from(data) : data;
    while (chunk.length > 0) {
      const newline = chunk.indexOf(NEWLINE);
      const piece = newline < 0 ? chunk : chunk.subarray(0, newline);
      chunk = newline < 0 ? Buffer.alloc(0) : chunk.subarray(newline + 1);
      if (this.discarding) {
        if (newline >= 0) this.discarding = false;
        continue;
      }
      if (this.pendingBytes + piece.length > this.maxBytes) {
        this.clear();
        this.discarding = newline < 0;
        this.oversized();
        continue;
      }
      if (newline < 0) {
        this.pending.push(piece);
        this.pendingBytes += piece.length;
        continue;
      }
      const text = Buffer.concat([...this.pending, piece]).toString('utf8');
      this.clear();
      this.line(text);
    }
  }

  /** Forgets a line begun and not ended. */
  clear(): void {
    this.pending.length = 0;
    this.pendingBytes = 0;
  }
}

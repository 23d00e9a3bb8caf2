import { Writable } from "node:stream";

/**
 * A writable stream that says it is a terminal of `columns` columns (or not), keeping what is
 * written to it: what a progress bar draws on stderr, without a real terminal.
 */
export class TerminalStream extends Writable {
  readonly chunks: string[] = [];

  constructor(
    readonly isTTY: boolean,
    readonly columns = 100,
  ) {
    super({ decodeStrings: false });
  }

  override _write(chunk: unknown, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.chunks.push(String(chunk));
    done();
  }

  get text(): string {
    return this.chunks.join("");
  }

  /** The bar lines drawn, in order: each write of `\r<line>\x1b[K` (erasures left out). */
  get frames(): string[] {
    return this.chunks.filter((c) => c.startsWith("\r") && c.endsWith("\x1b[K") && c.length > 4).map((c) => c.slice(1, -3));
  }
}

/**
 * A split's writes that have not been acknowledged yet, oldest first. The loop goes on reading
 * while its last output is being written, so records that arrive meanwhile are processed at once
 * rather than after the write's round trip; `written`, the position whose output is all in the
 * sink, moves on only as acknowledgements come back, in order. At most `maxAhead` writes
 * are out per split: past that the loop waits for the oldest, so a slow sink slows reading down
 * instead of queueing output without bound. A failed write fails the loop at its next step.
 */
export class WritesInFlight {
  private readonly pending: Promise<void>[] = [];
  private failure: { error: unknown } | null = null;

  /** `written`: the position the split starts at. */
  constructor(
    public written: unknown,
    private readonly maxAhead = 2,
  ) {}

  /** Adds a write (null: input that produced no output) that covers the input up to `reached`. */
  async add(write: Promise<void> | null, reached: unknown, onAcknowledged: () => void): Promise<void> {
    this.throwIfFailed();
    const previous = this.pending[this.pending.length - 1] ?? Promise.resolve();
    const done = Promise.all([previous, write]).then(
      () => {
        // After a failed write nothing later counts as written: the position stays before it.
        if (this.failure) return;
        this.written = reached;
        onAcknowledged();
      },
      (error: unknown) => {
        this.failure ??= { error };
      },
    );
    this.pending.push(done);
    void done.finally(() => this.pending.splice(this.pending.indexOf(done), 1));
    while (this.pending.length > this.maxAhead) await this.pending[0];
    this.throwIfFailed();
  }

  /** Waits for every write out; throws the first that failed. */
  async drain(): Promise<void> {
    while (this.pending.length > 0) await this.pending[this.pending.length - 1];
    this.throwIfFailed();
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure.error;
  }
}

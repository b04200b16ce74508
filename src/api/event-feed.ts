// The events of one invocation of a run as an async iterable: every iteration starts from the
// invocation's first event and ends when the invocation settles, so a consumer that starts
// iterating late misses nothing. The events are kept in memory for the handle's lifetime.

/** A list that grows until closed, read by any number of async iterators. */
export class EventFeed<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private closed = false;
  private wake: Array<() => void> = [];

  /** Appends one item and wakes waiting readers. */
  push(item: T): void {
    this.items.push(item);
    this.notify();
  }

  /** No more items: every reader ends after the last one. */
  close(): void {
    this.closed = true;
    this.notify();
  }

  private notify(): void {
    const waiting = this.wake;
    this.wake = [];
    for (const w of waiting) w();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let next = 0;
    for (;;) {
      while (next < this.items.length) {
        const recorded = this.items.slice(next);
        next += recorded.length;
        yield* recorded;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => this.wake.push(resolve));
    }
  }
}

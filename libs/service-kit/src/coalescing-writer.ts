/**
 * Writes items to a gRPC stream as few messages as keep it busy: an item is written at once when the stream is free,
 * and the items that come while a message is being written go together in the next one. A grpc-js stream writes one
 * message at a time (the next waits until HTTP/2 has taken the previous, usually the next turn of the event loop), so
 * writing each item as its own message makes an item wait behind all those queued before it; gathered, none waits
 * more than one write (bench/README.md, "Listings over one stream").
 */
export class CoalescingWriter<Item, Message> {
  private queue: Item[] = [];
  private writing = false;

  constructor(
    /** Writes one message; `done` once the stream is ready for the next (a Writable's write callback). */
    private readonly write: (message: Message, done: () => void) => void,
    /** The message carrying these items, in the order they came. */
    private readonly wrap: (items: Item[]) => Message,
    /** Called each time the last queued item has been written. */
    private readonly onIdle: () => void = () => undefined,
  ) {}

  push(item: Item): void {
    this.queue.push(item);
    if (!this.writing) this.flush();
  }

  /** Nothing queued and nothing being written. */
  get idle(): boolean {
    return !this.writing && this.queue.length === 0;
  }

  private flush(): void {
    const items = this.queue;
    this.queue = [];
    this.writing = true;
    this.write(this.wrap(items), () => {
      this.writing = false;
      if (this.queue.length > 0) this.flush();
      else this.onIdle();
    });
  }
}

/** A shell-stream subscriber over a real socket: Acks every Chunk and waits on items, not time. */
import type { Frame, RawRpcClient } from "./helpers.js";

export type ShellItem = Record<string, unknown> & { kind: string };

export class StreamWatch {
  readonly items: ShellItem[] = [];
  readonly chunks: ShellItem[][] = [];
  #waiters: { predicate: (item: ShellItem) => boolean; resolve: (item: ShellItem) => void }[] = [];
  #exit: Frame | undefined;

  private constructor(
    readonly client: RawRpcClient,
    readonly requestId: string,
  ) {}

  /** Opens `tag` with `payload` and keeps reading its Chunks until the socket closes. */
  static open(client: RawRpcClient, requestId: string, tag: string, payload: unknown): StreamWatch {
    const watch = new StreamWatch(client, requestId);
    client.request(requestId, tag, payload);
    void watch.#pump();
    return watch;
  }

  async #pump(): Promise<void> {
    for (;;) {
      const frame = await Promise.race([
        this.client.next((f) => f.requestId === this.requestId),
        this.client.closed.then(() => undefined),
      ]);
      if (!frame) return;
      if (frame._tag === "Exit") {
        this.#exit = frame;
        return;
      }
      const values = (frame as { values?: ShellItem[] }).values ?? [];
      this.chunks.push(values);
      this.client.send({ _tag: "Ack", requestId: this.requestId });
      for (const item of values) {
        this.items.push(item);
        this.#waiters = this.#waiters.filter((waiter) => {
          if (!waiter.predicate(item)) return true;
          waiter.resolve(item);
          return false;
        });
      }
    }
  }

  get exit(): Frame | undefined {
    return this.#exit;
  }

  /** The first item (already received or still to come) that matches. */
  waitFor(predicate: (item: ShellItem) => boolean): Promise<ShellItem> {
    const found = this.items.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => this.#waiters.push({ predicate, resolve }));
  }

  /** Items of one kind, in order. */
  ofKind(kind: string): ShellItem[] {
    return this.items.filter((item) => item.kind === kind);
  }

  /** The highest `sequence` seen so far (the client's resume cursor). */
  get cursor(): number {
    let max = 0;
    for (const item of this.items) {
      const sequence =
        item.kind === "snapshot"
          ? (item.snapshot as { snapshotSequence: number }).snapshotSequence
          : (item.sequence as number | undefined);
      if (typeof sequence === "number" && sequence > max) max = sequence;
    }
    return max;
  }
}

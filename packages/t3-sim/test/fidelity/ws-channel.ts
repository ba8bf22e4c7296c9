/** One real WebSocket to the simulator that logs every frame in wire order. */
import WebSocket from "ws";
import type { Json } from "./fixtures.js";

export type Frame = Json & { _tag: string };

export interface LoggedFrame {
  readonly dir: "sent" | "received";
  readonly frame: Frame;
}

/** The request a frame belongs to (Request.id, or requestId of Ack/Chunk/Exit/Interrupt). */
export function frameRequestId(frame: Frame): string | undefined {
  const id = frame.id ?? frame.requestId;
  return typeof id === "string" ? id : undefined;
}

export class WsChannel {
  /** Every frame sent and received, in the order they crossed this socket. */
  readonly log: LoggedFrame[] = [];
  readonly #inbox: Frame[] = [];
  readonly #waiters: { requestId: string | undefined; resolve: (frame: Frame | undefined) => void }[] = [];
  readonly #closed: Promise<void>;

  private constructor(private readonly socket: WebSocket) {
    socket.on("message", (data) => {
      const frame = JSON.parse(data.toString()) as Frame;
      this.log.push({ dir: "received", frame });
      this.#inbox.push(frame);
      this.#deliver();
    });
    this.#closed = new Promise((resolve) => socket.once("close", () => resolve()));
  }

  static open(url: string, headers: Record<string, string>): Promise<WsChannel> {
    const socket = new WebSocket(url, { headers });
    return new Promise((resolve, reject) => {
      socket.once("open", () => resolve(new WsChannel(socket)));
      socket.once("error", reject);
      socket.once("unexpected-response", (_request, response) => {
        reject(new Error(`upgrade refused with HTTP ${response.statusCode}`));
        response.resume();
      });
    });
  }

  send(frame: Frame): void {
    this.log.push({ dir: "sent", frame });
    this.socket.send(JSON.stringify(frame));
  }

  /**
   * The next unread frame of `requestId` (or the next frame without a request id), or undefined
   * when none arrives within `timeoutMs` — a missing frame is a finding, not a crash.
   */
  receive(requestId: string | undefined, timeoutMs: number): Promise<Frame | undefined> {
    return new Promise((resolve) => {
      const waiter = {
        requestId,
        resolve: (frame: Frame | undefined) => {
          clearTimeout(timer);
          resolve(frame);
        },
      };
      const timer = setTimeout(() => {
        const index = this.#waiters.indexOf(waiter);
        if (index >= 0) this.#waiters.splice(index, 1);
        resolve(undefined);
      }, timeoutMs);
      this.#waiters.push(waiter);
      this.#deliver();
    });
  }

  /** Sends one Request and waits for its Exit (setup steps that are not fixtures). */
  async call(id: string, tag: string, payload: unknown, timeoutMs = 5_000): Promise<Frame | undefined> {
    this.send({ _tag: "Request", id, tag, payload, headers: [] });
    for (;;) {
      const frame = await this.receive(id, timeoutMs);
      if (!frame || frame._tag === "Exit") return frame;
    }
  }

  close(): Promise<void> {
    if (this.socket.readyState !== WebSocket.CLOSED) this.socket.terminate();
    return this.#closed;
  }

  #deliver(): void {
    for (let w = 0; w < this.#waiters.length; ) {
      const waiter = this.#waiters[w];
      if (!waiter) break;
      const index = this.#inbox.findIndex((frame) => frameRequestId(frame) === waiter.requestId);
      const frame = index >= 0 ? this.#inbox.splice(index, 1)[0] : undefined;
      if (frame) {
        this.#waiters.splice(w, 1);
        waiter.resolve(frame);
      } else {
        w++;
      }
    }
  }
}

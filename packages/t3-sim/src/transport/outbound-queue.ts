import type { WebSocket } from "ws";
import type { FaultController } from "./faults.js";

/**
 * The frames one socket still has to send, in order. Each frame waits `latencyMs` (read when it is
 * queued) and nothing leaves while the `hang` fault is on; frames flow again once it is lifted.
 */
export class OutboundQueue {
  readonly #socket: WebSocket;
  readonly #faults: FaultController;
  readonly #frames: { readonly text: string; readonly readyAt: number }[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  readonly #unsubscribe: () => void;

  constructor(socket: WebSocket, faults: FaultController) {
    this.#socket = socket;
    this.#faults = faults;
    this.#unsubscribe = faults.onChange(() => this.#pump());
  }

  send(message: unknown): void {
    if (this.#closed) return;
    this.#frames.push({
      text: JSON.stringify(message),
      readyAt: Date.now() + (this.#faults.current.latencyMs ?? 0),
    });
    this.#pump();
  }

  close(): void {
    this.#closed = true;
    this.#frames.length = 0;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#unsubscribe();
  }

  #pump(): void {
    if (this.#closed || this.#timer || this.#faults.current.hang) return;
    while (this.#frames.length > 0) {
      const head = this.#frames[0];
      if (!head) break;
      const wait = head.readyAt - Date.now();
      if (wait > 0) {
        this.#timer = setTimeout(() => {
          this.#timer = undefined;
          this.#pump();
        }, wait);
        return;
      }
      this.#frames.shift();
      if (this.#socket.readyState === this.#socket.OPEN) this.#socket.send(head.text);
    }
  }
}

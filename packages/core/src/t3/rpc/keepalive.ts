import type { TimerHandle, Timers } from "./timers.js";

/**
 * The keepalive of one socket, like Effect's RPC client: a Ping every `intervalMs`, and the peer
 * is declared dead when the previous Ping is still unanswered at the next tick. Any other
 * traffic does not count: a server busy streaming must still answer Pings.
 */
export class Keepalive {
  readonly #timers: Timers;
  readonly #intervalMs: number;
  readonly #sendPing: () => void;
  readonly #onDead: () => void;
  #timer: TimerHandle | undefined;
  #awaitingPong = false;
  #stopped = false;

  constructor(options: { timers: Timers; intervalMs: number; sendPing(): void; onDead(): void }) {
    this.#timers = options.timers;
    this.#intervalMs = options.intervalMs;
    this.#sendPing = options.sendPing;
    this.#onDead = options.onDead;
  }

  /** Arms the first tick; an interval of 0 or less turns keepalive off. */
  start(): void {
    this.#schedule();
  }

  pong(): void {
    this.#awaitingPong = false;
  }

  stop(): void {
    this.#stopped = true;
    this.#timer?.cancel();
  }

  #schedule(): void {
    if (this.#intervalMs <= 0 || this.#stopped) return;
    this.#timer = this.#timers.setTimeout(() => this.#tick(), this.#intervalMs);
  }

  #tick(): void {
    if (this.#stopped) return;
    if (this.#awaitingPong) {
      this.stop();
      this.#onDead();
      return;
    }
    this.#awaitingPong = true;
    this.#sendPing();
    this.#schedule();
  }
}

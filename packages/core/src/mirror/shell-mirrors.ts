import type { ConnectedEnvironment } from "../environments/connection.js";
import { ConnectorError } from "../errors.js";
import { systemTimers, type Timers } from "../t3/rpc/timers.js";
import type { ShellSnapshot } from "../t3/wire/shell.js";
import { ShellMirror } from "./shell-mirror.js";

/** How long a starting mirror holds the next one back at most. */
export const MIRROR_START_TURN_MS = 5_000;

export interface ShellMirrorsOptions {
  log?: (line: string) => void;
  reconnectDelayMs?: number;
  maxReconnectAttempts?: number;
  timers?: Timers;
  probeTimeoutMs?: number;
}

/** One read of a whole shell, and where it came from. */
export type ShellRead =
  | { source: "mirror"; shell: ShellSnapshot; mirror: ShellMirror; version: number }
  | { source: "http"; shell: ShellSnapshot };

/**
 * The shell mirrors of a process, one per verified connection. A mirror starts on the first read
 * of its connection and ends with it (dropped, re-verified into a new connection, or closed with
 * the registry), so a mirror never outlives the identity checks it was built on.
 */
export class ShellMirrors {
  readonly #options: ShellMirrorsOptions;
  readonly #mirrors = new Map<ConnectedEnvironment, ShellMirror>();
  /** When the mirror started last may take its snapshot; the next one waits for it. */
  #turn: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(options: ShellMirrorsOptions = {}) {
    this.#options = options;
  }

  /** The live mirror of `connection`, started when there is none (or the last one stopped). */
  mirrorOf(connection: ConnectedEnvironment): ShellMirror | undefined {
    if (this.#closed) return undefined;
    const existing = this.#mirrors.get(connection);
    if (existing !== undefined) return existing;
    // Mirrors start one after another: each first snapshot is a whole shell to parse, and eight
    // large ones parsed back to back would block the event loop for seconds (tool calls wait,
    // socket keepalives miss their pong). A mirror that does not leave `starting` within
    // MIRROR_START_TURN_MS lets the next one start anyway.
    const mirror = new ShellMirror({ ...this.#options, connection, startAfter: this.#turn });
    if (mirror.status === "closed") return undefined; // the connection was already gone
    this.#turn = this.#nextTurn(mirror);
    this.#mirrors.set(connection, mirror);
    void mirror.done.then(() => {
      if (this.#mirrors.get(connection) === mirror) this.#mirrors.delete(connection);
    });
    return mirror;
  }

  #nextTurn(mirror: ShellMirror): Promise<void> {
    const timers = this.#options.timers ?? systemTimers;
    return new Promise<void>((resolve) => {
      const timer = timers.setTimeout(resolve, MIRROR_START_TURN_MS);
      void mirror.started().then(() => {
        timer.cancel();
        resolve();
      });
    });
  }

  /** The mirror of `connection` if one is running; never starts one. */
  peek(connection: ConnectedEnvironment): ShellMirror | undefined {
    return this.#mirrors.get(connection);
  }

  /**
   * The shell of `connection`: the mirror's when it is ready and its socket answers, else a fresh
   * HTTP shell. The first read of a connection is served over HTTP and starts its mirror once
   * answered, so the mirror's own snapshot never competes with (and slows) that first read.
   * `startMirror: false` leaves the start to the caller (`mirrorOf`), e.g. after a whole sweep.
   */
  async readShell(
    connection: ConnectedEnvironment,
    options: { signal?: AbortSignal; startMirror?: boolean } = {},
  ): Promise<ShellRead> {
    if (connection.closed) {
      // Whatever answers at its address now was never verified through this connection.
      throw new ConnectorError(
        "unavailable",
        `the connection to environment "${connection.alias}" was closed`,
      );
    }
    const mirror = this.#mirrors.get(connection);
    if (mirror !== undefined && (await mirror.vouch(options.signal))) {
      const shell = mirror.snapshot();
      if (shell !== undefined) return { source: "mirror", shell, mirror, version: mirror.version };
    }
    const shell = await connection.http.getShell(options.signal ? { signal: options.signal } : {});
    if (mirror === undefined && options.startMirror !== false) this.mirrorOf(connection);
    return { source: "http", shell };
  }

  /** Stops every mirror; later reads go over HTTP. */
  close(): void {
    this.#closed = true;
    for (const mirror of this.#mirrors.values()) mirror.close();
    this.#mirrors.clear();
  }
}

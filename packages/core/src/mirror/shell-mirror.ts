import type { ConnectedEnvironment } from "../environments/connection.js";
import { ConnectorError, isConnectorError } from "../errors.js";
import type { T3RpcClient } from "../t3/rpc/client.js";
import type { Subscription } from "../t3/rpc/connection.js";
import type { Timers } from "../t3/rpc/timers.js";
import { resumableShellSubscription } from "../t3/subscriptions.js";
import type { ShellSnapshot } from "../t3/wire/shell.js";
import type { ShellStreamItem } from "../t3/wire/stream-items.js";
import { type ShellChange, ShellState } from "./shell-state.js";
import type { ThreadListIndex } from "./thread-list-index.js";

/**
 * - `starting`: subscribed, the snapshot or its completion marker has not arrived yet;
 * - `ready`: snapshot and marker arrived, every later change is applied as it comes;
 * - `resyncing`: the socket dropped; resubscribed (after verifying the environment again) and
 *   waiting for the new marker;
 * - `failed`: the stream ended or gave up; `closed`: closed by its owner or its connection.
 * Only `ready` is ever served.
 */
export type ShellMirrorStatus = "starting" | "ready" | "resyncing" | "failed" | "closed";

export type ShellMirrorEvent =
  | { type: "change"; version: number; change: ShellChange }
  | { type: "status"; version: number; status: ShellMirrorStatus; error?: ConnectorError };

export const DEFAULT_PROBE_TIMEOUT_MS = 1_000;

export interface ShellMirrorOptions {
  /** The verified connection this mirror belongs to; it dies with it. */
  connection: ConnectedEnvironment;
  /** Operator log (stderr in the CLI). */
  log?: (line: string) => void;
  reconnectDelayMs?: number;
  maxReconnectAttempts?: number;
  timers?: Timers;
  /** Deadline of the liveness probe made before serving (default 1 s). */
  probeTimeoutMs?: number;
  /**
   * The subscription opens once this settles (the mirror exists and is `starting` meanwhile):
   * `ShellMirrors` starts its mirrors one after another, see there.
   */
  startAfter?: Promise<unknown>;
}

/**
 * A live copy of one environment's shell, kept by `subscribeShell` with the completion marker.
 * It starts when constructed and follows thread and project changes; after a dropped socket it
 * verifies the environment again before resubscribing (with `afterSequence`), so a server that no
 * longer proves to be the configured environment ends the mirror instead of feeding it.
 */
export class ShellMirror {
  readonly connection: ConnectedEnvironment;
  readonly #options: ShellMirrorOptions;
  readonly #state = new ShellState();
  readonly #listeners = new Set<(event: ShellMirrorEvent) => void>();
  readonly #stop = new AbortController();
  readonly #subscription: Subscription;
  #unlisten: (() => void) | undefined;
  #status: ShellMirrorStatus = "starting";
  #version = 0;
  /** The socket the subscription currently runs on (the one a probe must go through). */
  #client: T3RpcClient | undefined;
  /** Settles when the mirror stopped for good (failed or closed); never rejects. */
  readonly done: Promise<void>;

  constructor(options: ShellMirrorOptions) {
    this.#options = options;
    this.connection = options.connection;
    let attempts = 0;
    this.#subscription = resumableShellSubscription({
      connect: async () => {
        if (attempts === 0 && options.startAfter !== undefined) await options.startAfter;
        // The first socket belongs to a connection verified moments ago; a later one may reach
        // whatever now answers at that address, so it is verified again first.
        if (attempts++ > 0) await this.connection.verifyAgain({ signal: this.#stop.signal });
        const client = await this.connection.rpc();
        this.#client = client;
        return client;
      },
      requestCompletionMarker: true,
      deliverRootsCopy: true,
      onItem: (item) => this.#onItem(item),
      onReconnect: ({ attempt, error }) => {
        this.#client = undefined;
        this.#setStatus("resyncing");
        this.#log(`reconnecting (attempt ${attempt}) after: ${error.message}`);
      },
      signal: this.#stop.signal,
      ...(options.reconnectDelayMs === undefined ? {} : { reconnectDelayMs: options.reconnectDelayMs }),
      ...(options.maxReconnectAttempts === undefined
        ? {}
        : { maxReconnectAttempts: options.maxReconnectAttempts }),
      ...(options.timers === undefined ? {} : { timers: options.timers }),
    });
    const unlisten = this.connection.onClose(() => this.close());
    // A connection closed already ran the listener (and ended this mirror) before returning.
    if (this.#status === "closed") unlisten();
    else this.#unlisten = unlisten;
    this.done = this.#subscription.done.then(
      () => this.#end("failed", new ConnectorError("connection_lost", "the shell stream ended")),
      (error: unknown) =>
        this.#end(
          "failed",
          isConnectorError(error)
            ? error
            : new ConnectorError("internal", "the shell stream failed", { cause: error }),
        ),
    );
  }

  /** Settles once the first snapshot was taken or the mirror stopped (it left `starting`). */
  started(): Promise<void> {
    if (this.#status !== "starting") return Promise.resolve();
    return new Promise((resolve) => {
      const stop = this.onChange((event) => {
        if (event.type !== "status") return;
        stop();
        resolve();
      });
      void this.done.then(() => resolve());
    });
  }

  get status(): ShellMirrorStatus {
    return this.#status;
  }

  get ready(): boolean {
    return this.#status === "ready";
  }

  /** Moves on every applied change (and on every status change); a cache key for derived data. */
  get version(): number {
    return this.#version;
  }

  /** The highest sequence applied. */
  get sequence(): number {
    return this.#state.sequence;
  }

  get repositoryRoots(): readonly string[] | undefined {
    return this.#state.repositoryRoots;
  }

  /**
   * The mirrored shell, or undefined when the mirror is not ready. Shared, do not mutate; rows
   * keep their identity until they change, so a cache keyed by row object stays valid.
   */
  snapshot(): ShellSnapshot | undefined {
    return this.ready ? this.#state.snapshot() : undefined;
  }

  /**
   * The listable threads in listing order, maintained per item (built on first use), or undefined
   * when the mirror is not ready. Live: read it in the same synchronous step as `snapshot()`.
   */
  threadIndex(): ThreadListIndex | undefined {
    return this.ready ? this.#state.threadIndex() : undefined;
  }

  /**
   * Whether the mirror may be served now: ready, and its own socket answers a probe. The probe
   * also lets every item the server sent before it be applied first (one socket, in order).
   */
  async vouch(signal?: AbortSignal): Promise<boolean> {
    const client = this.#client;
    if (!this.ready || client === undefined || !client.isOpen) return false;
    try {
      await client.probe({
        timeoutMs: this.#options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS,
        ...(signal ? { signal } : {}),
      });
    } catch {
      return false;
    }
    return this.ready && this.#client === client && client.isOpen;
  }

  onChange(listener: (event: ShellMirrorEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Stops the stream; the mirror is never served again. */
  close(): void {
    this.#end("closed");
  }

  #onItem(item: ShellStreamItem): void {
    if (this.#status === "failed" || this.#status === "closed") return;
    if (item.kind === "synchronized") {
      if (this.#state.hasSnapshot) this.#setStatus("ready");
      return;
    }
    const change = this.#state.apply(item);
    if (change === undefined) return;
    this.#version += 1;
    this.#emit({ type: "change", version: this.#version, change });
  }

  #setStatus(status: ShellMirrorStatus, error?: ConnectorError): void {
    if (this.#status === status) return;
    this.#status = status;
    this.#version += 1;
    this.#emit({ type: "status", version: this.#version, status, ...(error ? { error } : {}) });
  }

  #end(status: "failed" | "closed", error?: ConnectorError): void {
    if (this.#status === "failed" || this.#status === "closed") return;
    this.#client = undefined;
    this.#unlisten?.();
    this.#unlisten = undefined;
    this.#stop.abort();
    this.#subscription.close();
    if (status === "failed") this.#log(`stopped: ${error?.message ?? "the stream ended"}`);
    this.#setStatus(status, error);
    this.#listeners.clear();
  }

  #emit(event: ShellMirrorEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch (error) {
        // A consumer's bug must not stop the stream (which would throw away a healthy mirror).
        this.#log(`a change listener failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  #log(line: string): void {
    this.#options.log?.(`shell mirror of "${this.connection.alias}": ${line}`);
  }
}

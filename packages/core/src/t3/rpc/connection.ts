import type { Clock } from "../../clock.js";
import { ConnectorError, isConnectorError } from "../../errors.js";
import { errorFromCause } from "./exit.js";
import { type ClientFrame, decodeServerFrames, encodeFrame, frameText, type ServerFrame } from "./frames.js";
import { Keepalive } from "./keepalive.js";
import { socketError, type WebSocketLike } from "./socket.js";
import type { TimerHandle, Timers } from "./timers.js";

export interface RpcConnectionOptions {
  clock: Clock;
  timers: Timers;
  /** Deadline of one unary call; a call that misses it is interrupted and fails with `timeout`. */
  callTimeoutMs: number;
  /** Unary calls allowed in flight at once; one more fails fast with `too_many_in_flight`. */
  maxInFlight: number;
  /** Keepalive cadence; 0 turns keepalive off. */
  pingIntervalMs: number;
  maxFrameBytes: number;
  /** Diagnostics: every frame sent or received, decoded. Frames never carry credentials. */
  onFrame?: ((direction: "sent" | "received", frame: unknown) => void) | undefined;
}

export interface CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface StreamOptions {
  /**
   * Receives each value of each Chunk, in order. The Chunk is acknowledged only after every
   * value of it was delivered (and a returned promise settled), which is T3's back-pressure:
   * the server sends the next Chunk of this stream only after the Ack. A throw ends the stream.
   */
  onValue(value: unknown): void | Promise<void>;
  signal?: AbortSignal;
}

export interface Subscription {
  /** Interrupts the stream; `done` then resolves. Idempotent. */
  close(): void;
  /** Resolves when the stream ends or is closed; rejects with a `ConnectorError` on failure. */
  readonly done: Promise<void>;
}

/** How long a deliberate close waits for the peer's closing handshake before dropping the socket. */
const CLOSE_GRACE_MS = 1_000;

interface PendingCall {
  method: string;
  resolve(value: unknown): void;
  reject(error: ConnectorError): void;
}

interface ActiveStream {
  method: string;
  onValue(value: unknown): void | Promise<void>;
  /** Chunks and the Exit are handled strictly in arrival order, one at a time. */
  chain: Promise<void>;
  finished: boolean;
  finish(error?: ConnectorError): void;
}

/**
 * One open Effect-RPC WebSocket: request ids, unary calls, acknowledged streams, keepalive and
 * failure fan-out. It never reconnects: a lost socket fails every call in flight with
 * `connection_lost` (a dispatch's outcome is then unknown, so nothing is resent) and rejects
 * every stream's `done`; resuming is the job of `subscriptions.ts`.
 */
export class RpcConnection {
  readonly #socket: WebSocketLike;
  readonly #options: RpcConnectionOptions;
  readonly #pending = new Map<string, PendingCall>();
  readonly #streams = new Map<string, ActiveStream>();
  readonly #closeListeners = new Set<(error?: ConnectorError) => void>();
  #nextId = 1;
  #closed = false;
  #closeError: ConnectorError | undefined;
  readonly #keepalive: Keepalive;
  #lastPongAt: number | undefined;

  /** `socket` must already be open. */
  constructor(socket: WebSocketLike, options: RpcConnectionOptions) {
    this.#socket = socket;
    this.#options = options;
    socket.addEventListener("message", (event) => this.#onMessage(event.data));
    socket.addEventListener("close", (event) => {
      const detail = event.code ? ` (code ${event.code})` : "";
      this.#fail(new ConnectorError("connection_lost", `the T3 socket closed${detail}`));
    });
    socket.addEventListener("error", (event) => {
      const cause = socketError(event);
      // A frame over the limit will be over it again on a new socket: say so, typed, so nothing
      // reconnects to read it once more. A write in flight still counts as lost (its outcome is
      // unknown), as for any code that is not a refusal.
      if (cause.code === "response_too_large") return this.#fail(cause);
      this.#fail(new ConnectorError("connection_lost", `the T3 socket failed: ${cause.message}`, { cause }));
    });
    this.#keepalive = new Keepalive({
      timers: options.timers,
      intervalMs: options.pingIntervalMs,
      sendPing: () => {
        try {
          this.#send({ _tag: "Ping" });
        } catch {
          // #send already failed the connection.
        }
      },
      onDead: () =>
        this.#fail(
          new ConnectorError(
            "connection_lost",
            `the T3 socket is unresponsive: no Pong within ${options.pingIntervalMs} ms`,
          ),
        ),
    });
    this.#keepalive.start();
  }

  get isOpen(): boolean {
    return !this.#closed;
  }

  /** Monotonic time of the last Pong, for diagnostics. */
  get lastPongAt(): number | undefined {
    return this.#lastPongAt;
  }

  get callsInFlight(): number {
    return this.#pending.size;
  }

  call(method: string, payload: unknown, o: CallOptions = {}): Promise<unknown> {
    if (this.#closed) return Promise.reject(this.#notOpen(method));
    if (o.signal?.aborted) return Promise.reject(cancelled(method));
    if (this.#pending.size >= this.#options.maxInFlight) {
      return Promise.reject(
        new ConnectorError(
          "too_many_in_flight",
          `${method}: ${this.#options.maxInFlight} calls are already waiting for T3; try again later`,
          { details: { method, maxInFlight: this.#options.maxInFlight } },
        ),
      );
    }
    const id = String(this.#nextId++);
    const timeoutMs = o.timeoutMs ?? this.#options.callTimeoutMs;
    return new Promise<unknown>((resolve, reject) => {
      let timer: TimerHandle | undefined;
      const onAbort = () => {
        settle();
        this.#interrupt(id);
        reject(cancelled(method));
      };
      const settle = () => {
        this.#pending.delete(id);
        timer?.cancel();
        o.signal?.removeEventListener("abort", onAbort);
      };
      this.#pending.set(id, {
        method,
        resolve: (value) => {
          settle();
          resolve(value);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      timer = this.#options.timers.setTimeout(() => {
        settle();
        this.#interrupt(id);
        reject(
          new ConnectorError(
            "timeout",
            `${method}: no answer within ${timeoutMs} ms; the call was interrupted and its outcome is unknown`,
            { details: { method, timeoutMs } },
          ),
        );
      }, timeoutMs);
      o.signal?.addEventListener("abort", onAbort, { once: true });
      try {
        this.#send({ _tag: "Request", id, tag: method, payload, headers: [] });
      } catch (error) {
        settle();
        reject(asConnectorError(error, method));
      }
    });
  }

  stream(method: string, payload: unknown, o: StreamOptions): Subscription {
    let resolveDone!: () => void;
    let rejectDone!: (error: ConnectorError) => void;
    const done = new Promise<void>((resolve, reject) => {
      resolveDone = resolve;
      rejectDone = reject;
    });
    // A caller may never look at `done`; its rejection must not become an unhandled one.
    done.catch(() => {});

    const id = String(this.#nextId++);
    const onAbort = () => close();
    const stream: ActiveStream = {
      method,
      onValue: o.onValue,
      chain: Promise.resolve(),
      finished: false,
      finish: (error) => {
        if (stream.finished) return;
        stream.finished = true;
        this.#streams.delete(id);
        o.signal?.removeEventListener("abort", onAbort);
        if (error) rejectDone(error);
        else resolveDone();
      },
    };
    const close = () => {
      if (stream.finished) return;
      this.#interrupt(id);
      stream.finish();
    };

    if (this.#closed) {
      stream.finish(this.#notOpen(method));
    } else if (o.signal?.aborted) {
      stream.finish();
    } else {
      this.#streams.set(id, stream);
      o.signal?.addEventListener("abort", onAbort, { once: true });
      try {
        this.#send({ _tag: "Request", id, tag: method, payload, headers: [] });
      } catch (error) {
        stream.finish(asConnectorError(error, method));
      }
    }
    return { close, done };
  }

  /** Closes the socket on purpose: calls in flight and open streams fail with `cancelled`. */
  close(): void {
    if (this.#closed) return;
    try {
      this.#socket.send(encodeFrame({ _tag: "Eof" }));
    } catch {
      // The socket may already be going away; closing it is all that is left to do.
    }
    this.#shutdown(undefined, new ConnectorError("cancelled", "the T3 connection was closed by the client"));
    this.#socket.close(1000, "client closed");
    // A hung peer never completes the closing handshake; do not wait for it for long.
    const terminate = this.#socket.terminate?.bind(this.#socket);
    if (terminate) this.#options.timers.setTimeout(terminate, CLOSE_GRACE_MS);
  }

  /** Called once when the connection ends: with no error for `close()`, else with the reason. */
  onClose(listener: (error?: ConnectorError) => void): () => void {
    if (this.#closed) {
      const error = this.#closeError;
      queueMicrotask(() => listener(error));
      return () => {};
    }
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  #onMessage(data: unknown): void {
    if (this.#closed) return;
    let frames: ServerFrame[];
    try {
      frames = decodeServerFrames(frameText(data), this.#options.maxFrameBytes);
    } catch (error) {
      this.#fail(asConnectorError(error, "socket"));
      return;
    }
    for (const frame of frames) {
      this.#options.onFrame?.("received", frame);
      this.#dispatch(frame);
      if (this.#closed) return;
    }
  }

  #dispatch(frame: ServerFrame): void {
    switch (frame._tag) {
      case "Pong":
        this.#keepalive.pong();
        this.#lastPongAt = this.#options.clock.monotonic();
        return;
      case "Exit":
        this.#onExit(frame.requestId, frame);
        return;
      case "Chunk":
        this.#onChunk(frame.requestId, frame.values);
        return;
      case "Defect":
        // A T3 older than the method (0.0.28) answers an unknown method tag this way, with no
        // request id, and keeps serving the socket: only the calls of that method fail.
        if (this.#failCallsOfUnknownTag(frame.defect)) return;
        this.#fail(
          new ConnectorError(
            "protocol_error",
            `the server reported a connection defect: ${describe(frame.defect)}`,
          ),
        );
        return;
      case "ClientProtocolError":
        this.#fail(
          new ConnectorError(
            "protocol_error",
            `the server reported a protocol error: ${describe(frame.error)}`,
          ),
        );
        return;
      case "Unknown":
        // A message type from a newer server: nothing here waits for it.
        return;
    }
  }

  /**
   * `Defect "Unknown request tag: <tag>"` with calls of `<tag>` in flight (fixtures/t3-0.0.28/11,
   * 14): each of them fails as the same defect in an `Exit` would, so `lacksMethod` names it. Any
   * other defect, or one naming no call in flight, still fails the connection.
   */
  #failCallsOfUnknownTag(defect: unknown): boolean {
    const tag = typeof defect === "string" ? /^Unknown request tag: (\S+)$/.exec(defect)?.[1] : undefined;
    if (tag === undefined) return false;
    const calls = [...this.#pending.values()].filter((call) => call.method === tag);
    const streams = [...this.#streams.values()].filter((stream) => stream.method === tag);
    if (calls.length === 0 && streams.length === 0) return false;
    const error = () =>
      new ConnectorError("protocol_error", `${tag}: the server reported a defect: ${defect}`, {
        details: { method: tag, defect },
      });
    for (const call of calls) call.reject(error());
    for (const stream of streams) stream.finish(error());
    return true;
  }

  #onExit(requestId: string, frame: Extract<ServerFrame, { _tag: "Exit" }>): void {
    const call = this.#pending.get(requestId);
    if (call) {
      if (frame.exit._tag === "Success") call.resolve(frame.exit.value);
      else call.reject(errorFromCause(call.method, frame.exit.cause));
      return;
    }
    const stream = this.#streams.get(requestId);
    if (!stream) return; // late or duplicate answer to something already settled
    stream.chain = stream.chain.then(() => {
      if (frame.exit._tag === "Success") stream.finish();
      else stream.finish(errorFromCause(stream.method, frame.exit.cause));
    });
  }

  #onChunk(requestId: string, values: unknown[]): void {
    const stream = this.#streams.get(requestId);
    if (!stream) return;
    stream.chain = stream.chain
      .then(async () => {
        for (const value of values) {
          if (stream.finished) return;
          await stream.onValue(value);
        }
        if (!stream.finished && !this.#closed) this.#send({ _tag: "Ack", requestId });
      })
      .catch((error: unknown) => {
        if (stream.finished) return;
        this.#interrupt(requestId);
        stream.finish(asConnectorError(error, stream.method));
      });
  }

  #interrupt(requestId: string): void {
    if (this.#closed) return;
    try {
      this.#send({ _tag: "Interrupt", requestId });
    } catch {
      // Best effort: a failed send already failed the connection.
    }
  }

  #send(frame: ClientFrame): void {
    if (this.#closed) throw this.#notOpen(frame._tag === "Request" ? frame.tag : frame._tag);
    try {
      this.#socket.send(encodeFrame(frame));
    } catch (error) {
      const lost = new ConnectorError("connection_lost", "the T3 socket refused a frame", { cause: error });
      this.#fail(lost);
      throw lost;
    }
    this.#options.onFrame?.("sent", frame);
  }

  /** An unplanned end: everything in flight fails with `error`, and the socket is dropped. */
  #fail(error: ConnectorError): void {
    if (this.#closed) return;
    this.#shutdown(error, error);
    if (this.#socket.terminate) this.#socket.terminate();
    else this.#socket.close(1011, "connection failed");
  }

  #shutdown(closeError: ConnectorError | undefined, inFlightError: ConnectorError): void {
    this.#closed = true;
    this.#closeError = closeError;
    this.#keepalive.stop();
    for (const call of [...this.#pending.values()]) call.reject(inFlightError);
    for (const stream of [...this.#streams.values()]) stream.finish(inFlightError);
    for (const listener of [...this.#closeListeners]) listener(closeError);
    this.#closeListeners.clear();
  }

  #notOpen(method: string): ConnectorError {
    return new ConnectorError("unavailable", `${method}: the T3 socket is not open`, {
      ...(this.#closeError ? { cause: this.#closeError } : {}),
    });
  }
}

function cancelled(method: string): ConnectorError {
  return new ConnectorError("cancelled", `${method}: cancelled by the caller`, { details: { method } });
}

function asConnectorError(error: unknown, method: string): ConnectorError {
  if (isConnectorError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ConnectorError("internal", `${method}: ${message}`, { cause: error });
}

function describe(value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "unknown");
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

import type { z } from "zod";
import { type Clock, systemClock } from "../../clock.js";
import { ConnectorError, isConnectorError } from "../../errors.js";
import { ORCHESTRATION_PROTOCOL_VERSION, T3HttpClient } from "../http-client.js";
import { type ServerConfig, ServerConfigSchema } from "../wire/server-config.js";
import { type ArchivedShellSnapshot, ArchivedShellSnapshotSchema } from "../wire/shell.js";
import {
  parseShellStreamItem,
  parseThreadStreamItem,
  type ShellStreamItem,
  summarizeIssues,
  type ThreadStreamItem,
} from "../wire/stream-items.js";
import {
  type DispatchResult,
  DispatchResultSchema,
  type LaunchThreadResult,
  LaunchThreadResultSchema,
  type ThreadProjection,
  ThreadProjectionSchema,
} from "../wire/thread.js";
import {
  type TurnDiff,
  TurnDiffSchema,
  type VcsRefList,
  VcsRefListSchema,
  type VcsStatus,
  VcsStatusSchema,
} from "../wire/vcs.js";
import { type CallOptions, RpcConnection, type Subscription } from "./connection.js";
import { DEFAULT_MAX_FRAME_BYTES } from "./frames.js";
import { lacksMethod } from "./lacks-method.js";
import { nodeWebSocketFactory, socketError, type WebSocketFactory, type WebSocketLike } from "./socket.js";
import { systemTimers, type Timers } from "./timers.js";

export const DEFAULT_CALL_TIMEOUT_MS = 15_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_IN_FLIGHT = 64;
export const DEFAULT_PING_INTERVAL_MS = 10_000;

export interface T3RpcConnectOptions {
  baseUrl: string;
  token: string;
  /** Used to mint the ws ticket; built from `baseUrl`/`token` when absent. */
  http?: T3HttpClient;
  clock?: Clock;
  timers?: Timers;
  callTimeoutMs?: number;
  /** Deadline for the ticket request plus the socket opening (each), default 10 s. */
  connectTimeoutMs?: number;
  maxInFlight?: number;
  /** Keepalive cadence (default 10 s); 0 disables it. */
  pingIntervalMs?: number;
  /** Largest frame read; a larger one fails the connection as `response_too_large` (ADR 0020). */
  maxFrameBytes?: number;
  /** The environment's alias, named in errors; default the `http` client's. */
  environment?: string;
  /**
   * `ticket` (default): `POST /api/auth/websocket-ticket`, then `/ws?wsTicket=…`, so the bearer
   * never travels in a URL. `bearer`: an `Authorization: Bearer` header on the upgrade (for
   * servers or proxies where the ticket route is unavailable; T3 accepts both, fixtures 13e/82).
   */
  socketAuth?: "ticket" | "bearer";
  webSocketFactory?: WebSocketFactory;
  onFrame?: (direction: "sent" | "received", frame: unknown) => void;
}

export interface ShellSubscriptionOptions {
  afterSequence?: number;
  requestCompletionMarker?: boolean;
  onItem(item: ShellStreamItem): void | Promise<void>;
  signal?: AbortSignal;
}

export interface ThreadSubscriptionOptions {
  threadId: string;
  afterSequence?: number;
  requestCompletionMarker?: boolean;
  onItem(item: ThreadStreamItem): void | Promise<void>;
  signal?: AbortSignal;
}

/** T3's WebSocket RPC surface over one connection. */
export class T3RpcClient {
  readonly #connection: RpcConnection;

  private constructor(connection: RpcConnection) {
    this.#connection = connection;
  }

  static async connect(o: T3RpcConnectOptions): Promise<T3RpcClient> {
    const timers = o.timers ?? systemTimers;
    const connectTimeoutMs = o.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const url = new URL(`${o.baseUrl.replace(/\/+$/, "")}/ws`);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    const headers: Record<string, string> = {};
    if (o.socketAuth === "bearer") {
      headers.authorization = `Bearer ${o.token}`;
    } else {
      const http =
        o.http ?? new T3HttpClient({ baseUrl: o.baseUrl, token: o.token, timeoutMs: connectTimeoutMs });
      const { ticket } = await http.createWebSocketTicket().catch((error: unknown) => {
        // A hung ticket route is an unreachable environment, like a socket that never opens.
        if (isConnectorError(error, "timeout")) {
          throw new ConnectorError("unavailable", `could not open the T3 socket: ${error.message}`, {
            cause: error,
          });
        }
        throw error;
      });
      url.searchParams.set("wsTicket", ticket);
    }
    url.searchParams.set("orchestrationProtocol", String(ORCHESTRATION_PROTOCOL_VERSION));

    const factory = o.webSocketFactory ?? nodeWebSocketFactory;
    const maxFrameBytes = o.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    const limits = { maxFrameBytes, environment: o.environment ?? o.http?.environment };
    const socket = await openSocket(factory(url.toString(), headers, limits), timers, connectTimeoutMs);
    const connection = new RpcConnection(socket, {
      clock: o.clock ?? systemClock,
      timers,
      callTimeoutMs: o.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
      maxInFlight: o.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT,
      pingIntervalMs: o.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS,
      maxFrameBytes,
      onFrame: o.onFrame,
    });
    return new T3RpcClient(connection);
  }

  get isOpen(): boolean {
    return this.#connection.isOpen;
  }

  get callsInFlight(): number {
    return this.#connection.callsInFlight;
  }

  /** Any unary method by tag; the answer is returned undecoded. */
  call(tag: string, payload: unknown, o?: CallOptions): Promise<unknown> {
    return this.#connection.call(tag, payload, o);
  }

  /** Any stream method by tag; values are delivered undecoded, each Chunk acknowledged after delivery. */
  stream(
    tag: string,
    payload: unknown,
    o: { onValue(value: unknown): void | Promise<void>; signal?: AbortSignal },
  ): Subscription {
    return this.#connection.stream(tag, payload, o);
  }

  getConfig(o?: CallOptions): Promise<ServerConfig> {
    return this.#typed("server.getConfig", {}, ServerConfigSchema, o);
  }

  /** Cheap liveness and auth check over the socket (needs `orchestration:read`). */
  async probe(o?: CallOptions): Promise<void> {
    await this.call("server.probe", {}, o);
  }

  /**
   * Sends one command, once. It is never retried here: after a timeout or a lost socket the
   * outcome is unknown and only the caller (who owns the commandId) can reconcile it.
   */
  dispatchCommand(command: Record<string, unknown>, o?: CallOptions): Promise<DispatchResult> {
    return this.#typed("orchestration.dispatchCommand", command, DispatchResultSchema, o);
  }

  launchThread(input: Record<string, unknown>, o?: CallOptions): Promise<LaunchThreadResult> {
    return this.#typed("orchestration.launchThread", input, LaunchThreadResultSchema, o);
  }

  getArchivedShellSnapshot(o?: CallOptions): Promise<ArchivedShellSnapshot> {
    return this.#typed("orchestration.getArchivedShellSnapshot", {}, ArchivedShellSnapshotSchema, o);
  }

  /** The bare projection (no `{snapshotSequence, projection}` wrapper, unlike HTTP; surprise 15). */
  getThreadProjection(threadId: string, o?: CallOptions): Promise<ThreadProjection> {
    return this.#typed("orchestration.getThreadProjection", { threadId }, ThreadProjectionSchema, o);
  }

  /** A diff between two run ordinals' checkpoints (`from` = 0: before the first run). */
  getTurnDiff(
    input: { threadId: string; fromTurnCount: number; toTurnCount: number; ignoreWhitespace?: boolean },
    o?: CallOptions,
  ): Promise<TurnDiff> {
    return this.#served("orchestration.getTurnDiff", input, TurnDiffSchema, o);
  }

  /** The thread's whole diff up to a run ordinal (T3 runs it as `getTurnDiff` from 0). */
  getFullThreadDiff(
    input: { threadId: string; toTurnCount: number; ignoreWhitespace?: boolean },
    o?: CallOptions,
  ): Promise<TurnDiff> {
    return this.#served("orchestration.getFullThreadDiff", input, TurnDiffSchema, o);
  }

  /** Branch, working tree and upstream of a folder on T3's machine (a path T3 itself recorded). */
  vcsRefreshStatus(cwd: string, o?: CallOptions): Promise<VcsStatus> {
    return this.#served("vcs.refreshStatus", { cwd }, VcsStatusSchema, o);
  }

  /** The repository's refs, each with the worktree that has it checked out; paged by offset. */
  vcsListRefs(
    input: { cwd: string; query?: string; cursor?: number; limit?: number },
    o?: CallOptions,
  ): Promise<VcsRefList> {
    return this.#served("vcs.listRefs", input, VcsRefListSchema, o);
  }

  /**
   * Shell stream. Note T3 sends the snapshot as a pair (same sequence, the second adds
   * `resolvedRepositoryIdentityRoots`) and still sends it when `afterSequence` is given
   * (surprises 12, 14); both items are delivered as they come.
   */
  subscribeShell(o: ShellSubscriptionOptions): Subscription {
    const payload: Record<string, unknown> = {};
    if (o.afterSequence !== undefined) payload.afterSequence = o.afterSequence;
    if (o.requestCompletionMarker) payload.requestCompletionMarker = true;
    return this.#connection.stream("orchestration.subscribeShell", payload, {
      onValue: (value) => o.onItem(parseShellStreamItem(value)),
      ...(o.signal ? { signal: o.signal } : {}),
    });
  }

  /** Archived-shell stream (items carry no `location`; surprise 16). */
  subscribeArchivedShell(o: Omit<ShellSubscriptionOptions, "afterSequence">): Subscription {
    const payload: Record<string, unknown> = {};
    if (o.requestCompletionMarker) payload.requestCompletionMarker = true;
    return this.#connection.stream("orchestration.subscribeArchivedShell", payload, {
      onValue: (value) => o.onItem(parseShellStreamItem(value)),
      ...(o.signal ? { signal: o.signal } : {}),
    });
  }

  /**
   * Thread stream. With `afterSequence` T3 replays stored events (one per Chunk) instead of a
   * snapshot. Closing it makes T3 answer with a `Die` it cannot encode (surprise 17); that answer
   * arrives after the stream was already settled as closed and is ignored.
   */
  subscribeThread(o: ThreadSubscriptionOptions): Subscription {
    const payload: Record<string, unknown> = { threadId: o.threadId };
    if (o.afterSequence !== undefined) payload.afterSequence = o.afterSequence;
    if (o.requestCompletionMarker) payload.requestCompletionMarker = true;
    return this.#connection.stream("orchestration.subscribeThread", payload, {
      onValue: (value) => o.onItem(parseThreadStreamItem(value)),
      ...(o.signal ? { signal: o.signal } : {}),
    });
  }

  close(): void {
    this.#connection.close();
  }

  onClose(listener: (error?: ConnectorError) => void): () => void {
    return this.#connection.onClose(listener);
  }

  /** `#typed` for a method an older T3 may lack: its "unknown tag" defect becomes `action_unsupported`. */
  async #served<S extends z.ZodType>(
    method: string,
    payload: unknown,
    schema: S,
    o: CallOptions | undefined,
  ): Promise<z.output<S>> {
    try {
      return await this.#typed(method, payload, schema, o);
    } catch (error) {
      throw lacksMethod(method, error) ?? error;
    }
  }

  async #typed<S extends z.ZodType>(
    method: string,
    payload: unknown,
    schema: S,
    o: CallOptions | undefined,
  ): Promise<z.output<S>> {
    const value = await this.call(method, payload, o);
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      throw new ConnectorError(
        "invalid_response",
        `${method}: unexpected answer shape (${summarizeIssues(parsed.error)})`,
        { details: { method } },
      );
    }
    return parsed.data;
  }
}

/** Waits for the socket to open, fail, or miss the deadline (a hung server). */
function openSocket(socket: WebSocketLike, timers: Timers, timeoutMs: number): Promise<WebSocketLike> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (error?: ConnectorError) => {
      if (settled) return;
      settled = true;
      timer.cancel();
      if (!error) {
        resolve(socket);
        return;
      }
      reject(error);
      if (socket.terminate) socket.terminate();
      else socket.close();
    };
    const timer = timers.setTimeout(
      () =>
        settle(new ConnectorError("unavailable", `GET /ws: the socket did not open within ${timeoutMs} ms`)),
      timeoutMs,
    );
    socket.addEventListener("open", () => settle());
    socket.addEventListener("error", (event) => settle(socketError(event)));
    socket.addEventListener("close", (event) =>
      settle(
        new ConnectorError(
          "unavailable",
          `GET /ws: the socket closed before opening (code ${event.code ?? "?"})`,
        ),
      ),
    );
  });
}

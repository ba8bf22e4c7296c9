import type { IncomingMessage } from "node:http";
import type WebSocket from "ws";
import { ConnectorError } from "../../errors.js";
import { answerTooLarge } from "../capped-body.js";
import { httpErrorFromAnswer } from "../http-errors.js";
import { DEFAULT_MAX_FRAME_BYTES } from "./frames.js";

/**
 * The few WebSocket operations the RPC connection needs. It matches the WHATWG `WebSocket`
 * event API, so a browser-style socket fits as is; the default factory adapts `ws` to it and
 * turns a refused upgrade (401, 426, …) into a typed `ConnectorError` on the `error` event.
 */
export interface WebSocketLike {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  /** Drops the socket without the closing handshake (dead peer); falls back to `close`. */
  terminate?(): void;
  addEventListener(type: "open", listener: () => void): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
  addEventListener(type: "close", listener: (event: { code?: number; reason?: string }) => void): void;
  addEventListener(type: "error", listener: (event: { error?: unknown; message?: string }) => void): void;
}

/** How a socket is opened: the largest frame it accepts, and whose it is (named in errors). */
export interface WebSocketLimits {
  /** A frame past this is refused unread as `response_too_large`; default DEFAULT_MAX_FRAME_BYTES. */
  readonly maxFrameBytes?: number;
  readonly environment?: string | undefined;
}

export type WebSocketFactory = (
  url: string,
  headers: Record<string, string>,
  limits?: WebSocketLimits,
) => WebSocketLike;

type Listener = (event: never) => void;

/** Reads at most this much of a refused upgrade's body: enough for T3's JSON error. */
const MAX_REFUSAL_BODY_BYTES = 64 * 1024;

/** The `ws` client class, as the factory loads it. */
export type WebSocketClass = typeof WebSocket;

class NodeWebSocket implements WebSocketLike {
  #socket: WebSocket | undefined;
  readonly #listeners = new Map<string, Listener[]>();
  #refused = false;
  /** Closed before `ws` was loaded: the socket is then never opened. */
  #abandoned = false;

  constructor(
    Socket: WebSocketClass | Promise<WebSocketClass>,
    url: string,
    headers: Record<string, string>,
    limits: WebSocketLimits = {},
  ) {
    if (!(Socket instanceof Promise)) {
      this.#open(Socket, url, headers, limits);
      return;
    }
    Socket.then(
      (loaded) => {
        if (this.#abandoned) this.#emit("close", { code: 1006, reason: "closed before opening" });
        else this.#open(loaded, url, headers, limits);
      },
      (error: unknown) => this.#emit("error", { error, message: `ws could not be loaded: ${String(error)}` }),
    );
  }

  #open(Socket: WebSocketClass, url: string, headers: Record<string, string>, limits: WebSocketLimits): void {
    const maxFrameBytes = limits.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.#socket = new Socket(url, {
      headers,
      // ws stops reading a frame at its header once it declares more than this (ADR 0020).
      maxPayload: maxFrameBytes,
      perMessageDeflate: false,
    });
    this.#socket.on("open", () => this.#emit("open", undefined));
    this.#socket.on("message", (data, isBinary) => {
      this.#emit("message", { data: isBinary ? data : Buffer.from(data as Buffer).toString("utf8") });
    });
    this.#socket.on("close", (code, reason) =>
      this.#emit("close", { code, reason: reason.toString("utf8") }),
    );
    this.#socket.on("error", (error: Error & { code?: string }) => {
      if (this.#refused) return;
      // ws stops reading a frame past maxPayload and closes with 1009: say what happened, typed.
      if (error.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH") {
        const tooLarge = answerTooLarge(limits.environment, "GET /ws frame", maxFrameBytes);
        this.#emit("error", { error: tooLarge, message: tooLarge.message });
        return;
      }
      this.#emit("error", { error, message: error.message });
    });
    this.#socket.on("unexpected-response", (_request, response) => this.#refuse(response));
  }

  send(data: string): void {
    // Sending is only valid once open, and "open" is emitted only by a created socket.
    if (this.#socket === undefined) throw new Error("WebSocket is not open: readyState 0 (CONNECTING)");
    this.#socket.send(data);
  }

  close(code?: number, reason?: string): void {
    if (this.#socket === undefined) this.#abandoned = true;
    else this.#socket.close(code, reason);
  }

  terminate(): void {
    if (this.#socket === undefined) this.#abandoned = true;
    else this.#socket.terminate();
  }

  addEventListener(type: string, listener: Listener): void {
    const list = this.#listeners.get(type) ?? [];
    list.push(listener);
    this.#listeners.set(type, list);
  }

  #emit(type: string, event: unknown): void {
    for (const listener of this.#listeners.get(type) ?? []) (listener as (e: unknown) => void)(event);
  }

  /** The server answered the upgrade with an HTTP error: read its body and report it typed. */
  #refuse(response: IncomingMessage): void {
    this.#refused = true;
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const status = response.statusCode ?? 0;
      const error = httpErrorFromAnswer("GET /ws", status, headerValue(response, "content-type"), text);
      this.#emit("error", { error, message: error.message });
      this.#socket?.terminate();
    };
    response.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REFUSAL_BODY_BYTES) chunks.push(chunk);
    });
    response.on("end", finish);
    response.on("error", finish);
  }
}

function headerValue(response: IncomingMessage, name: string): string | null {
  const value = response.headers[name];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

/**
 * A factory over the `ws` class `load` resolves, called on the first socket and kept: until then
 * nothing of `ws` is parsed or linked. A socket created while it loads opens once it is there;
 * one closed before that is never opened and reports a close (code 1006).
 */
export function lazyNodeWebSocketFactory(load: () => Promise<WebSocketClass>): WebSocketFactory {
  let loaded: WebSocketClass | undefined;
  let loading: Promise<WebSocketClass> | undefined;
  return (url, headers, limits) => {
    if (loaded === undefined) {
      loading ??= load().then((Socket) => {
        loaded = Socket;
        return Socket;
      });
    }
    return new NodeWebSocket(loaded ?? (loading as Promise<WebSocketClass>), url, headers, limits);
  };
}

/**
 * The default factory: `ws` is loaded when the first T3 socket opens, not with this module, so a
 * process that opens none (`t3-connector-ops ls` with nothing configured, `serve` until a tool
 * reads over the socket) neither parses nor links it (docs/adr/0060).
 */
export const nodeWebSocketFactory: WebSocketFactory = lazyNodeWebSocketFactory(
  async () => (await import("ws")).default,
);

/** The error a socket reported, typed: a refused upgrade keeps its own code, anything else is `unavailable`. */
export function socketError(event: { error?: unknown; message?: string } | undefined): ConnectorError {
  if (event?.error instanceof ConnectorError) return event.error;
  const raw = event?.message || (event?.error instanceof Error ? event.error.message : "socket error");
  // A runtime may quote the URL in its message; the ticket in it is a credential.
  const reason = raw.replace(/wsTicket=[^&\s'"]*/g, "wsTicket=<redacted>");
  return new ConnectorError("unavailable", `GET /ws: the socket failed (${reason})`, { cause: event?.error });
}

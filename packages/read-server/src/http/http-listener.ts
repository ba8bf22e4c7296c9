import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { ConnectorError } from "@t3-connector/core";
import { IDLE_KEEP_ALIVE_MS } from "@t3-connector/core/http-edge";
import type { Hono } from "hono";
import { limitConnections } from "./connection-budget.js";
import type { HttpLimits } from "./http-options.js";
import { urlHost } from "./loopback.js";
import type { InFlightRequests } from "./request-limits.js";

export interface HttpListener {
  /** `http://<host>:<port>` with the port actually bound. */
  readonly origin: string;
  readonly port: number;
  /**
   * Stops accepting, refuses new requests on open connections, waits up to `drainTimeoutMs` for
   * the requests in flight, then closes every connection. Idempotent.
   */
  close(drainTimeoutMs: number): Promise<void>;
}

/** How often Node looks for connections past their timeouts; its default (30 s) doubled them. */
const MAX_TIMEOUT_CHECK_INTERVAL_MS = 1_000;

export type ListenerLimits = Pick<HttpLimits, "headersTimeoutMs" | "requestTimeoutMs" | "maxConnections">;

/**
 * Listens with Node's own timeouts bounded for a server that answers within seconds: a client
 * that sends its headers or body slowly (slowloris) holds a connection for at most these, checked
 * at least every second (ADR 0014 and 0020).
 */
export async function listenHttp(
  app: Hono,
  options: { host: string; port: number; inFlight: InFlightRequests; limits: ListenerLimits },
): Promise<HttpListener> {
  const { limits } = options;
  const server = createAdaptorServer({
    fetch: app.fetch,
    // A request without Host (HTTP/1.0, as a proxy may send) is built on this placeholder name
    // instead of answered 400 unread, so the Host check can say what is missing and how to fix it.
    hostname: "host-header-missing.invalid",
    serverOptions: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: Math.max(
        10,
        Math.min(MAX_TIMEOUT_CHECK_INTERVAL_MS, Math.floor(limits.headersTimeoutMs / 4)),
      ),
    },
  }) as Server;
  server.keepAliveTimeout = IDLE_KEEP_ALIVE_MS;
  limitConnections(server, limits.maxConnections);
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => reject(listenError(error, options)));
    server.listen(options.port, options.host, () => {
      server.removeAllListeners("error");
      resolve();
    });
  });
  // Counted at the socket level, not in the app: an answer counts until its last byte is written.
  const open = new Set<ServerResponse>();
  let idle: (() => void) | undefined;
  server.on("request", (_request: IncomingMessage, response: ServerResponse) => {
    open.add(response);
    response.once("close", () => {
      open.delete(response);
      if (open.size === 0) idle?.();
    });
  });
  const allAnswered = () =>
    open.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (idle = resolve));
  const port = (server.address() as AddressInfo).port;
  const stopped = new Promise<void>((resolve) => server.once("close", () => resolve()));
  let closing: Promise<void> | undefined;
  const close = (drainTimeoutMs: number) => {
    closing ??= (async () => {
      options.inFlight.startDraining();
      // No new connections; idle keep-alive ones close now (Node >= 19 does that in close()).
      server.close();
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, drainTimeoutMs);
      });
      await Promise.race([allAnswered(), deadline]);
      clearTimeout(timer);
      // Whatever is still open (a call past the bound, an idle socket mid-request) is cut.
      server.closeAllConnections();
      await stopped;
    })();
    return closing;
  };
  return { origin: `http://${urlHost(options.host)}:${port}`, port, close };
}

function listenError(error: NodeJS.ErrnoException, options: { host: string; port: number }): unknown {
  if (error.code === "EADDRINUSE") {
    return new ConnectorError(
      "port_in_use",
      `port ${options.port} on ${options.host} is already in use; stop that process or choose another --port`,
      { details: { host: options.host, port: options.port } },
    );
  }
  if (error.code === "EACCES") {
    return new ConnectorError(
      "port_in_use",
      `port ${options.port} on ${options.host} may not be opened by this user; choose a --port above 1023`,
      { details: { host: options.host, port: options.port } },
    );
  }
  if (error.code === "EADDRNOTAVAIL" || error.code === "ENOTFOUND" || error.code === "EAI_AGAIN") {
    return new ConnectorError(
      "invalid_input",
      `cannot listen on --host ${options.host}: it is not an address of this machine (${error.code})`,
      { details: { host: options.host } },
    );
  }
  return error;
}

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import type { SimClock } from "../clock.js";
import { type CompatProfile, HTTP_READ_ROUTES_0031 } from "../model/compat-0031.js";
import { AuthStore } from "./auth-store.js";
import type { EnvironmentContext, TransportModel } from "./environment-context.js";
import { FaultController } from "./faults.js";
import type { HttpAnswer } from "./http-answer.js";
import { routeRequest } from "./http-routes.js";
import { RpcConnection } from "./rpc-connection.js";
import { acceptUpgrade, checkUpgrade, refuseUpgrade } from "./ws-upgrade.js";

export interface EnvironmentServerOptions {
  readonly model: TransportModel;
  readonly clock: SimClock;
  readonly transitional?: boolean;
  /** Plays an older build's HTTP routes (see model/compat-0031.ts). */
  readonly compat?: CompatProfile;
  /** An installed T3 (web app bundled) or one run from source; decides the SPA fallback. */
  readonly webBuild?: boolean;
  /** 0 (default) picks a free port. Always bound to 127.0.0.1. */
  readonly port?: number;
}

export interface EnvironmentServer {
  readonly url: string;
  readonly port: number;
  readonly auth: AuthStore;
  readonly faults: FaultController;
  /** Every HTTP request received, in order (method and path, no query, no header): for tests. */
  readonly httpRequests: readonly { readonly method: string; readonly path: string }[];
  /** Destroys every open WebSocket now. */
  dropSockets(): void;
  /** Stops listening, destroys every socket and timer; resolves when the port is free. */
  close(): Promise<void>;
}

/** One simulated environment on its own loopback port: the HTTP routes and `/ws`. */
export async function startEnvironmentServer(options: EnvironmentServerOptions): Promise<EnvironmentServer> {
  const auth = new AuthStore(options.clock);
  const httpRequests: { method: string; path: string }[] = [];
  const faults = new FaultController();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const sockets = new Set<Socket | Duplex>();
  const connections = new Set<RpcConnection>();
  let closed = false;
  let fiberId = 2600;
  let port = 0;

  const ctx: EnvironmentContext = {
    model: options.model,
    clock: options.clock,
    auth,
    faults,
    transitional: (options.transitional ?? false) || options.compat !== undefined,
    servesRead: (route) => options.compat !== "0.0.31" || HTTP_READ_ROUTES_0031.has(route),
    spaFallback: (options.webBuild ?? options.compat !== undefined) ? "web-build" : "no-web-build",
    port: () => port,
    nextFiberId: () => fiberId++,
    delay: (ms) =>
      new Promise<void>((resolve) => {
        if (ms <= 0) return resolve();
        const timer = setTimeout(() => {
          timers.delete(timer);
          resolve();
        }, ms);
        timers.add(timer);
      }),
  };

  const wss = new WebSocketServer({ noServer: true });
  const server: Server = createServer((request, response) => {
    void handleHttp(ctx, request, response);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    void (async () => {
      if (faults.current.hang) return faults.reportHeld("upgrade"); // held open, never answered
      await ctx.delay(faults.current.latencyMs ?? 0);
      if (closed || socket.destroyed) return;
      const decision = checkUpgrade(ctx, request);
      if (!decision.ok) return refuseUpgrade(socket, decision.answer);
      acceptUpgrade(wss, request, socket, head, (ws) => {
        if (closed) return ws.terminate();
        const connection = new RpcConnection(ctx, ws, decision.session);
        connections.add(connection);
        ws.on("close", () => connections.delete(connection));
      });
    })();
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;

  const dropSockets = () => {
    for (const connection of [...connections]) connection.terminate();
    connections.clear();
  };

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    auth,
    faults,
    httpRequests,
    dropSockets,
    close: async () => {
      if (closed) return;
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      dropSockets();
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      wss.close();
      await stopped;
    },
  };

  async function handleHttp(context: EnvironmentContext, request: IncomingMessage, response: ServerResponse) {
    const body = await readBody(request);
    if (body === undefined) return;
    if (faults.current.hang) return faults.reportHeld("http"); // a hanging server never answers
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    httpRequests.push({ method: request.method ?? "GET", path: url.pathname });
    let answer: HttpAnswer;
    try {
      answer = await routeRequest(context, {
        method: request.method ?? "GET",
        url,
        headers: request.headers,
        body,
      });
    } catch (error) {
      process.stderr.write(
        `t3-sim: route failed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      answer = {
        status: 500,
        headers: { "content-type": "application/json", "access-control-allow-origin": "*" },
        body: JSON.stringify({
          _tag: "EnvironmentInternalError",
          code: "internal_error",
          reason: "internal_error",
        }),
      };
    }
    await context.delay(faults.current.latencyMs ?? 0);
    if (closed || response.destroyed) return;
    response.writeHead(answer.status, answer.headers);
    response.end(answer.body);
  }
}

function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", () => resolve(undefined));
    request.on("aborted", () => resolve(undefined));
  });
}

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

/** What one server holds open, so that close() ends all of it; `closed` stops late answers. */
interface Held {
  readonly timers: Set<ReturnType<typeof setTimeout>>;
  readonly sockets: Set<Socket | Duplex>;
  readonly connections: Set<RpcConnection>;
  readonly httpRequests: { method: string; path: string }[];
  closed: boolean;
}

/** One simulated environment on its own loopback port: the HTTP routes and `/ws`. */
export async function startEnvironmentServer(options: EnvironmentServerOptions): Promise<EnvironmentServer> {
  const held: Held = {
    timers: new Set(),
    sockets: new Set(),
    connections: new Set(),
    httpRequests: [],
    closed: false,
  };
  let port = 0;
  const ctx = environmentContext(options, held, () => port);
  const wss = new WebSocketServer({ noServer: true });
  const server: Server = createServer((request, response) => {
    void handleHttp(ctx, held, request, response);
  });
  server.on("connection", (socket) => track(held, socket));
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    track(held, socket);
    socket.on("error", () => socket.destroy());
    void handleUpgrade(ctx, held, wss, { request, socket, head });
  });
  port = await listenOnLoopback(server, options.port ?? 0);

  const dropSockets = () => {
    for (const connection of [...held.connections]) connection.terminate();
    held.connections.clear();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    auth: ctx.auth,
    faults: ctx.faults,
    httpRequests: held.httpRequests,
    dropSockets,
    close: async () => {
      if (held.closed) return;
      held.closed = true;
      for (const timer of held.timers) clearTimeout(timer);
      held.timers.clear();
      dropSockets();
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of held.sockets) socket.destroy();
      held.sockets.clear();
      wss.close();
      await stopped;
    },
  };
}

/** What routes and RPC handlers see of this server; its delays are timers close() clears. */
function environmentContext(
  options: EnvironmentServerOptions,
  held: Held,
  port: () => number,
): EnvironmentContext {
  let fiberId = 2600;
  return {
    model: options.model,
    clock: options.clock,
    auth: new AuthStore(options.clock),
    faults: new FaultController(),
    transitional: (options.transitional ?? false) || options.compat !== undefined,
    servesRead: (route) => options.compat !== "0.0.31" || HTTP_READ_ROUTES_0031.has(route),
    spaFallback: (options.webBuild ?? options.compat !== undefined) ? "web-build" : "no-web-build",
    port,
    nextFiberId: () => fiberId++,
    delay: (ms) =>
      new Promise<void>((resolve) => {
        if (ms <= 0) return resolve();
        const timer = setTimeout(() => {
          held.timers.delete(timer);
          resolve();
        }, ms);
        held.timers.add(timer);
      }),
  };
}

function track(held: Held, socket: Socket | Duplex): void {
  held.sockets.add(socket);
  socket.on("close", () => held.sockets.delete(socket));
}

function listenOnLoopback(server: Server, port: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** `/ws`: checked like T3 checks it, then one RpcConnection per accepted socket. */
async function handleUpgrade(
  ctx: EnvironmentContext,
  held: Held,
  wss: WebSocketServer,
  upgrade: { request: IncomingMessage; socket: Duplex; head: Buffer },
): Promise<void> {
  const { request, socket, head } = upgrade;
  if (ctx.faults.current.hang) return ctx.faults.reportHeld("upgrade"); // held open, never answered
  await ctx.delay(ctx.faults.current.latencyMs ?? 0);
  if (held.closed || socket.destroyed) return;
  const decision = checkUpgrade(ctx, request);
  if (!decision.ok) return refuseUpgrade(socket, decision.answer);
  acceptUpgrade(wss, request, socket, head, (ws) => {
    if (held.closed) return ws.terminate();
    const connection = new RpcConnection(ctx, ws, decision.session);
    held.connections.add(connection);
    ws.on("close", () => held.connections.delete(connection));
  });
}

async function handleHttp(
  context: EnvironmentContext,
  held: Held,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const { faults } = context;
  const body = await readBody(request);
  if (body === undefined) return;
  if (faults.current.hang) return faults.reportHeld("http"); // a hanging server never answers
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  held.httpRequests.push({ method: request.method ?? "GET", path: url.pathname });
  let answer: HttpAnswer;
  try {
    answer = await routeRequest(context, {
      method: request.method ?? "GET",
      url,
      headers: request.headers,
      body,
    });
  } catch (error) {
    process.stderr.write(`t3-sim: route failed: ${error instanceof Error ? error.message : String(error)}\n`);
    answer = INTERNAL_ERROR;
  }
  await context.delay(faults.current.latencyMs ?? 0);
  if (held.closed || response.destroyed) return;
  response.writeHead(answer.status, answer.headers);
  response.end(answer.body);
}

const INTERNAL_ERROR: HttpAnswer = {
  status: 500,
  headers: { "content-type": "application/json", "access-control-allow-origin": "*" },
  body: JSON.stringify({
    _tag: "EnvironmentInternalError",
    code: "internal_error",
    reason: "internal_error",
  }),
};

function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", () => resolve(undefined));
    request.on("aborted", () => resolve(undefined));
  });
}

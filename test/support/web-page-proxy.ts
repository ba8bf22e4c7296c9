/**
 * A reverse proxy in front of a T3 that answers some routes with T3's web page (200 text/html), as
 * an installed T3 answers a route it does not have, and forwards everything else unchanged,
 * WebSocket upgrades included (raw sockets, byte for byte). A test sees how the connector holds
 * when a route it relies on is gone (`GET /api/projects` on 0.0.46, ADR 0069).
 */
import { once } from "node:events";
import { createServer, request as httpRequest, type Server } from "node:http";
import { connect, type Socket } from "node:net";

export const T3_WEB_PAGE =
  '<!doctype html><html><head><title>T3 Code</title></head><body><div id="root"></div></body></html>';

export interface WebPageProxy {
  readonly url: string;
  /** The paths answered with the web page, as requested (method and path). */
  readonly answeredWithPage: string[];
  close(): Promise<void>;
}

export async function webPageProxy(target: string, pagePaths: readonly string[]): Promise<WebPageProxy> {
  const upstream = new URL(target);
  const answeredWithPage: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (req.method === "GET" && pagePaths.includes(path)) {
      answeredWithPage.push(`${req.method} ${path}`);
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(T3_WEB_PAGE);
      return;
    }
    const forwarded = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on("error", () => res.destroy());
    req.pipe(forwarded);
  });
  server.on("upgrade", (req, client: Socket, head: Buffer) => {
    const socket = connect(Number(upstream.port), upstream.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (head.length > 0) socket.write(head);
      socket.pipe(client);
      client.pipe(socket);
    });
    for (const end of [socket, client]) {
      sockets.add(end);
      end.on("close", () => sockets.delete(end));
      end.on("error", () => {
        socket.destroy();
        client.destroy();
      });
    }
  });
  return {
    url: await listenOnLoopback(server),
    answeredWithPage,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Listens on a free loopback port (the OS's, kept open) and answers the server's base URL. */
export async function listenOnLoopback(server: Server): Promise<string> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return `http://127.0.0.1:${address.port}`;
}

import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { connect, type Socket } from "node:net";

export interface DelayingProxy {
  /** `http://127.0.0.1:<port>`: put it in a config in place of the environment's url. */
  readonly url: string;
  /** How many requests `delayed` matched so far. */
  delayedCount(): number;
  /** Resolves once every HTTP request received so far has ended (answered, or closed by either side). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export interface DelayingProxyOptions {
  /** Where requests go, e.g. a simulated environment's url. */
  target: string;
  /** Requests whose path this matches wait `delayMs` before they are forwarded. */
  delayed: (path: string) => boolean;
  delayMs: number;
}

/**
 * A real HTTP proxy in front of one environment that holds chosen requests for a while before
 * forwarding them: a slow T3 as the network shows it, not a stubbed client. WebSocket upgrades
 * are piped through untouched.
 */
export async function startDelayingProxy(options: DelayingProxyOptions): Promise<DelayingProxy> {
  const target = new URL(options.target);
  const port = Number(target.port);
  let delayed = 0;
  let open = 0;
  let idleWaiters: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const upstream = httpRequest(
      {
        host: target.hostname,
        port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.once("error", () => res.destroy());
    req.pipe(upstream);
  };

  const server: Server = createServer((req, res) => {
    open++;
    res.once("close", () => {
      open--;
      if (open > 0) return;
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const resolve of waiters) resolve();
    });
    if (!options.delayed(req.url ?? "/")) return forward(req, res);
    delayed++;
    req.pause();
    const timer = setTimeout(() => {
      timers.delete(timer);
      forward(req, res);
    }, options.delayMs);
    timers.add(timer);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("upgrade", (req, socket, head) => {
    const upstream = connect(port, target.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      socket.pipe(upstream).pipe(socket);
    });
    sockets.add(upstream);
    upstream.once("close", () => sockets.delete(upstream));
    upstream.once("error", () => socket.destroy());
    socket.once("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the proxy has no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    delayedCount: () => delayed,
    idle: () => (open === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve))),
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

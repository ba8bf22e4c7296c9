import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";
import type { TimerHandle, Timers } from "../../packages/core/src/t3/index.js";

/** Timers that fire only when a test says so, keyed by their delay. */
export class ManualTimers implements Timers {
  readonly #pending = new Set<{ ms: number; callback: () => void }>();

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const entry = { ms, callback };
    this.#pending.add(entry);
    return { cancel: () => this.#pending.delete(entry) };
  }

  /** Fires every pending timer armed with `ms`; returns how many fired. */
  fire(ms: number): number {
    const due = [...this.#pending].filter((entry) => entry.ms === ms);
    for (const entry of due) {
      this.#pending.delete(entry);
      entry.callback();
    }
    return due.length;
  }

  count(ms: number): number {
    return [...this.#pending].filter((entry) => entry.ms === ms).length;
  }
}

/** Frames one raw socket received, readable in order by a test. */
export class FrameInbox {
  readonly frames: Record<string, unknown>[] = [];
  readonly #waiters: {
    match: (f: Record<string, unknown>) => boolean;
    resolve: (f: Record<string, unknown>) => void;
  }[] = [];
  #read = 0;

  constructor(socket: WebSocket) {
    socket.on("message", (data) => {
      const parsed = JSON.parse(String(data)) as Record<string, unknown> | Record<string, unknown>[];
      for (const frame of Array.isArray(parsed) ? parsed : [parsed]) {
        this.frames.push(frame);
        this.#drain();
      }
    });
  }

  /** The next frame (after those already read) with this `_tag`; earlier others are skipped. */
  next(tag: string): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      this.#waiters.push({ match: (frame) => frame._tag === tag, resolve });
      this.#drain();
    });
  }

  tags(): string[] {
    return this.frames.map((frame) => String(frame._tag));
  }

  #drain(): void {
    while (this.#waiters.length > 0) {
      const waiter = this.#waiters[0];
      if (!waiter) return;
      let found = -1;
      for (let i = this.#read; i < this.frames.length; i++) {
        const frame = this.frames[i];
        if (frame && waiter.match(frame)) {
          found = i;
          break;
        }
      }
      if (found < 0) return;
      this.#read = found + 1;
      this.#waiters.shift();
      waiter.resolve(this.frames[found] as Record<string, unknown>);
    }
  }
}

export interface RawConnection {
  socket: WebSocket;
  inbox: FrameInbox;
  request: IncomingMessage;
  send(frame: unknown): void;
}

/**
 * A bare Effect-RPC-over-WebSocket server for framing cases the simulator cannot produce
 * (malformed frames, a peer that never Pongs, array frames). It also mints a ws ticket.
 */
export async function startRawT3(): Promise<{
  baseUrl: string;
  nextConnection(): Promise<RawConnection>;
  close(): Promise<void>;
}> {
  const server: Server = createServer((request, response) => {
    if (request.method === "POST" && request.url === "/api/auth/websocket-ticket") {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ ticket: "raw-ticket" }));
      return;
    }
    response.writeHead(404);
    response.end();
  });
  const wss = new WebSocketServer({ noServer: true });
  const waiting: ((connection: RawConnection) => void)[] = [];
  const ready: RawConnection[] = [];
  server.on("upgrade", (request, socket, head) => {
    wss.handleUpgrade(request, socket, head, (ws) => {
      const connection: RawConnection = {
        socket: ws,
        inbox: new FrameInbox(ws),
        request,
        send: (frame) => ws.send(typeof frame === "string" ? frame : JSON.stringify(frame)),
      };
      const waiter = waiting.shift();
      if (waiter) waiter(connection);
      else ready.push(connection);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    nextConnection: () =>
      new Promise((resolve) => {
        const connection = ready.shift();
        if (connection) resolve(connection);
        else waiting.push(resolve);
      }),
    close: async () => {
      for (const client of wss.clients) client.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A deferred: a promise a test resolves by hand. */
export function deferred<T = void>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Collects items and lets a test wait until one matches. */
export class ItemLog<T> {
  readonly items: T[] = [];
  readonly #waiters: { match: (item: T) => boolean; resolve: (item: T) => void }[] = [];

  push = (item: T): void => {
    this.items.push(item);
    for (const waiter of [...this.#waiters]) {
      if (waiter.match(item)) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve(item);
      }
    }
  };

  /** Resolves with the first item (already logged or future) that matches. */
  waitFor(match: (item: T) => boolean): Promise<T> {
    const found = this.items.find(match);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }
}

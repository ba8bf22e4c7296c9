import WebSocket from "ws";
import { startSimulator } from "../../src/simulator.js";
import type { SimulatorOptions } from "../../src/simulator-core.js";

export type Frame = Record<string, unknown> & { _tag: string; requestId?: string };

export async function startSim(options: SimulatorOptions) {
  return startSimulator(options);
}

export type TestSim = Awaited<ReturnType<typeof startSim>>;
export type TestEnv = TestSim["environments"][number];

export function wsUrl(baseUrl: string, query: Record<string, string> = {}): string {
  const url = new URL("/ws", baseUrl.replace(/^http/, "ws"));
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  return url.toString();
}

export async function mintTicket(baseUrl: string, token: string): Promise<string> {
  const response = await fetch(`${baseUrl}/api/auth/websocket-ticket`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
  });
  if (response.status !== 200) throw new Error(`ticket: ${response.status}`);
  return ((await response.json()) as { ticket: string }).ticket;
}

/** A raw Effect-RPC client over `ws`: sends frames as given and records every frame received. */
export class RawRpcClient {
  readonly frames: Frame[] = [];
  readonly #waiters: { predicate: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  readonly closed: Promise<void>;

  private constructor(readonly socket: WebSocket) {
    socket.on("message", (data) => {
      const frame = JSON.parse(data.toString()) as Frame;
      this.frames.push(frame);
      this.#deliver();
    });
    this.closed = new Promise((resolve) => socket.once("close", () => resolve()));
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<RawRpcClient> {
    const socket = new WebSocket(url, { headers });
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
      socket.once("unexpected-response", (_req, res) =>
        reject(new Error(`upgrade refused: ${res.statusCode}`)),
      );
    });
    return new RawRpcClient(socket);
  }

  /** Connects with a fresh ticket minted from `token` (and orchestrationProtocol=2). */
  static async connect(baseUrl: string, token: string): Promise<RawRpcClient> {
    const ticket = await mintTicket(baseUrl, token);
    return RawRpcClient.open(wsUrl(baseUrl, { wsTicket: ticket, orchestrationProtocol: "2" }));
  }

  send(message: unknown): void {
    this.socket.send(JSON.stringify(message));
  }

  request(id: string, tag: string, payload: unknown = {}): void {
    this.send({ _tag: "Request", id, tag, payload, headers: [] });
  }

  /** Resolves with the next not-yet-consumed frame that matches, in arrival order. */
  next(predicate: (frame: Frame) => boolean = () => true): Promise<Frame> {
    return new Promise((resolve) => {
      this.#waiters.push({ predicate, resolve });
      this.#deliver();
    });
  }

  /** The next frame of any kind; frames are consumed strictly in order. */
  nextFrame(): Promise<Frame> {
    return this.next();
  }

  async call(id: string, tag: string, payload: unknown = {}): Promise<Frame> {
    this.request(id, tag, payload);
    return this.next((f) => f._tag === "Exit" && f.requestId === id);
  }

  close(): Promise<void> {
    if (this.socket.readyState !== WebSocket.CLOSED) this.socket.terminate();
    return this.closed;
  }

  #deliver(): void {
    for (let w = 0; w < this.#waiters.length; ) {
      const waiter = this.#waiters[w];
      if (!waiter) break;
      let matched = false;
      for (let i = 0; i < this.frames.length; i++) {
        const frame = this.frames[i];
        if (frame && waiter.predicate(frame)) {
          this.frames.splice(i, 1);
          this.#waiters.splice(w, 1);
          waiter.resolve(frame);
          matched = true;
          break;
        }
      }
      if (!matched) w++;
    }
  }
}

/** Attempts an upgrade that is expected to be refused; returns the plain HTTP answer. */
export function refusedUpgrade(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.once("open", () => {
      socket.terminate();
      reject(new Error("upgrade unexpectedly accepted"));
    });
    socket.once("unexpected-response", (_req, res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString("utf8"),
        }),
      );
    });
    socket.once("error", () => {});
  });
}

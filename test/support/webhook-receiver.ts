/** A real webhook receiver for the tests: verifies each POST with `standardwebhooks` and dedupes by id. */
import { EventEmitter, once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import type { WebhookEvent } from "../../packages/events/src/index.js";

export interface ReceivedPost {
  id: string;
  verified: boolean;
  status: number;
  event: WebhookEvent | undefined;
  receivedAtMs: number;
}

/** `endless`: accepts, then answers 200 with a body that never ends (a receiver gone wrong). */
export type ReceiverMode = "accept" | "fail" | "endless";

/** A fresh `whsec_` secret (32 random bytes). */
export function newSecret(): string {
  return `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64")}`;
}

export class WebhookReceiver {
  readonly posts: ReceivedPost[] = [];
  /** Verified and accepted events, one per id (what a receiver that dedupes by id keeps). */
  readonly accepted = new Map<string, WebhookEvent>();
  mode: ReceiverMode = "accept";
  /** Runs after a POST was recorded and before it is answered (a test kills the sender here). */
  beforeAnswer: ((post: ReceivedPost) => Promise<void> | void) | undefined;
  readonly #verifier: Webhook;
  readonly #events = new EventEmitter();
  #server: Server | undefined;
  #port = 0;

  constructor(secret: string) {
    this.#verifier = new Webhook(secret);
  }

  get url(): string {
    return `http://127.0.0.1:${this.#port}/hook`;
  }

  /** Listens (again on the same port after `stop`). */
  async start(): Promise<void> {
    const server = createServer((request, response) => {
      void this.#handle(request).then((status) => {
        if (this.mode === "endless" && status === 204) return answerEndlessly(response);
        response.writeHead(status, { "content-type": "text/plain" });
        response.end(status === 204 ? undefined : String(status));
      });
    });
    server.listen(this.#port, "127.0.0.1");
    await once(server, "listening");
    this.#port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  /** Stops listening: the next POST gets a refused connection. */
  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  acceptedOfType(type: string): WebhookEvent[] {
    return [...this.accepted.values()].filter((event) => event.type === type);
  }

  /** Resolves once `condition` holds, checked after every POST (never on a timer). */
  async until(condition: () => boolean): Promise<void> {
    while (!condition()) await once(this.#events, "post");
  }

  async #handle(request: IncomingMessage): Promise<number> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const id = String(request.headers["webhook-id"] ?? "");
    let event: WebhookEvent | undefined;
    let verified = false;
    try {
      event = this.#verifier.verify(body, request.headers as Record<string, string>) as WebhookEvent;
      verified = true;
    } catch {
      verified = false;
    }
    const status = !verified ? 400 : this.mode === "fail" ? 500 : 204;
    if (verified && status === 204 && event !== undefined && !this.accepted.has(id))
      this.accepted.set(id, event);
    const post = { id, verified, status, event, receivedAtMs: performance.now() };
    this.posts.push(post);
    this.#events.emit("post");
    await this.beforeAnswer?.(post);
    return status;
  }
}

/** 200, then 16 KiB chunks for as long as the client reads them (until it hangs up). */
function answerEndlessly(response: ServerResponse): void {
  response.writeHead(200, { "content-type": "application/octet-stream" });
  const chunk = Buffer.alloc(16 * 1024, 0x61);
  const pump = () => {
    while (!response.destroyed && response.write(chunk)) {
      // Until the socket's buffer is full: "drain" resumes.
    }
  };
  response.on("drain", pump);
  pump();
}

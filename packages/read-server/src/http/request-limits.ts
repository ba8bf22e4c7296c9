import type { MiddlewareHandler } from "hono";
import { mcpBodyOf } from "./request-body.js";

/**
 * The calls being handled now. It limits them (429 past the limit) and refuses new ones once
 * shutdown starts (503); the listener waits for the answers in flight. A JSON-RPC batch takes one
 * slot per message, all or none, so a POST cannot multiply the limit (ADR 0020); a batch larger
 * than the whole limit could never run and is refused with a JSON-RPC error.
 */
export class InFlightRequests {
  readonly #max: number;
  #count = 0;
  #draining = false;

  constructor(max: number) {
    this.#max = max;
  }

  get count(): number {
    return this.#count;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** From now on every new request is refused; the ones in flight continue. */
  startDraining(): void {
    this.#draining = true;
  }

  /** The middleware that counts, limits and refuses; `log` hears each accepted request (debug). */
  guard(log: (line: string) => void = () => {}): MiddlewareHandler {
    return async (c, next) => {
      if (this.#draining) {
        c.header("Connection", "close");
        return c.json({ error: "shutting_down" }, 503);
      }
      const calls = mcpBodyOf(c.req.raw)?.calls ?? 1;
      if (calls > this.#max) {
        return c.json(
          {
            jsonrpc: "2.0",
            error: {
              code: -32600,
              message: `Invalid Request: a batch of ${calls} messages is more than the ${this.#max} calls this server runs at once; send fewer per POST`,
            },
            id: null,
          },
          400,
        );
      }
      if (this.#count + calls > this.#max) {
        // A second is long enough for a read to finish; clients that honour it spread their retries.
        c.header("Retry-After", "1");
        return c.json({ error: "too_many_requests", limit: this.#max }, 429);
      }
      this.#count += calls;
      log(`http: POST /mcp accepted (in flight: ${this.#count})`);
      try {
        await next();
      } finally {
        this.#count -= calls;
        log(`http: POST /mcp answered (in flight: ${this.#count})`);
      }
    };
  }
}

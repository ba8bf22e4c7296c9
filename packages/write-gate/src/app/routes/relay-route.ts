/**
 * @module The machine side's slot, `POST /relay`: the relay handler authenticates the caller
 * before it reads the body, and the relay spends a rate budget of its own.
 */
import { MAX_RELAY_BODY_BYTES } from "@t3-connector/write-engine/relay-contract";
import { type Context, Hono } from "hono";
import { type AddressBudget, machineRouteGuard, readJsonBody } from "../../security/index.js";

/**
 * The machine side's handler for `POST /relay`. It authenticates the caller first and only then
 * calls `readBody`, which charges the relay's own rate budget and reads (capped) and parses the
 * body: an unauthenticated caller costs nothing and learns nothing about its body.
 */
export type RelayHandler = (c: Context, readBody: () => Promise<unknown>) => Response | Promise<Response>;

/** Authenticated relay calls per client address per minute, unless the gate is told otherwise. */
export const RELAY_RATE_LIMIT_PER_MINUTE = 6000;

/**
 * `relayBudget` is the relay's own (the bridge's writes must not spend the page's budget, nor the
 * page's the bridge's), and the one the relay's door charges too (`relay-door.ts`).
 */
export function relayRoute(relay: RelayHandler, relayBudget: AddressBudget): Hono {
  const app = new Hono();
  app.use("/relay", machineRouteGuard());
  app.post("/relay", async (c) =>
    relay(c, async () => {
      relayBudget.charge(c);
      return readJsonBody(c, MAX_RELAY_BODY_BYTES);
    }),
  );
  return app;
}

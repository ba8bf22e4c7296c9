/**
 * @module The person's stops: Revoke all closes every lease, End closes one. Closing is always
 * safe, so neither needs a passkey, and anyone at the page may stop writes.
 */
import { Hono } from "hono";
import * as bodies from "../schemas.js";
import { type GateParts, jsonBody } from "./route-kit.js";

export function leaseRoutes(parts: GateParts): Hono {
  const { keeper, log } = parts;
  return new Hono()
    .post("/api/revoke", jsonBody(bodies.emptyBody), (c) => {
      keeper.closeAll("revoked");
      return c.json({ active: false });
    })
    .post("/api/leases/end", jsonBody(bodies.leaseRef), (c) => {
      const { leaseId } = c.get("body");
      // Ending a lease that already closed is no error: the person's wish already holds.
      // The keeper audits the close (reason `ended`) through its change listeners.
      const ended = keeper.end(leaseId, "ended");
      if (ended) log(`lease ended on the page: ${leaseId.slice(0, 8)}…`);
      return c.json({ ended });
    });
}

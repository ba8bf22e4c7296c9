/** @module The person's stop: closing is always safe, so it needs no passkey. */
import { Hono } from "hono";
import * as bodies from "../schemas.js";
import { type GateParts, jsonBody } from "./route-kit.js";

export function leaseRoutes(parts: GateParts): Hono {
  const { keeper } = parts;
  return new Hono().post("/api/revoke", jsonBody(bodies.emptyBody), (c) => {
    // Anyone at the page may stop writes.
    keeper.closeAll("revoked");
    return c.json({ active: false });
  });
}

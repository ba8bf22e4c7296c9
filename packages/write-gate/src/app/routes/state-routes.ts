/** @module `POST /api/state`: everything the page shows, read in one call (never a secret). */
import { Hono } from "hono";
import { leaseStatus } from "../lease-status.js";
import * as bodies from "../schemas.js";
import { leaseHistoryRows, openLeaseRows } from "../write-rows.js";
import { type GateParts, jsonBody } from "./route-kit.js";

export function stateRoutes(parts: GateParts): Hono {
  const { keeper, passkeys, desk, names } = parts;
  return new Hono().post("/api/state", jsonBody(bodies.emptyBody), (c) => {
    const lease = leaseStatus(keeper);
    return c.json({
      enrolled: passkeys.hasAny(),
      passkeys: passkeys.list(),
      // The open lease's writes as the page lists them (alias, title, label), newest first.
      lease: lease.active ? { ...lease, writes: openLeaseRows(keeper, names) } : lease,
      leaseHistory: leaseHistoryRows(keeper.history(), names),
      pendingRequests: desk.pendingRequests(),
    });
  });
}

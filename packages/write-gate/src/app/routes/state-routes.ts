/** @module `POST /api/state`: everything the page shows, read in one call (never a secret). */
import { Hono } from "hono";
import { openLeases } from "../lease-status.js";
import { leaseThreadRefs } from "../named-threads.js";
import * as bodies from "../schemas.js";
import { pageNotices } from "../startup-warnings.js";
import { leaseHistoryRows, limitedThreads, openLeaseRows } from "../write-rows.js";
import { type GateParts, jsonBody } from "./route-kit.js";

export function stateRoutes(parts: GateParts): Hono {
  const { keeper, passkeys, desk, names, enrollment, startupWarnings } = parts;
  return new Hono().post("/api/state", jsonBody(bodies.emptyBody), (c) => {
    return c.json({
      enrolled: passkeys.hasAny(),
      passkeys: passkeys.list(),
      // Every open lease, oldest first, with its writes as the page lists them, newest first.
      leases: openLeases(keeper).map((lease) => ({
        ...lease,
        writes: openLeaseRows(keeper, lease.leaseId, names),
        // The threads a lease limited to the ones named admits, by title (ADR 0041).
        limitedThreads: limitedThreads(lease.scope, names),
        // The threads it names or wrote to, whose change summaries the page reads (ADR 0068).
        threads: leaseThreadRefs(keeper, lease.leaseId).map((ref) => {
          const title = names.threadTitle(ref.environmentId, ref.threadId);
          return { ...ref, alias: names.alias(ref.environmentId), ...(title === undefined ? {} : { title }) };
        }),
      })),
      leaseHistory: leaseHistoryRows(keeper.history(), names),
      pendingRequests: desk.pendingRequests(),
      gate: pageNotices(enrollment, startupWarnings),
    });
  });
}

/**
 * @module `POST /api/changes`: the change summaries of the threads the open request and the open
 * leases name (ADR 0068), read after the page has shown them, so a slow or failing T3 only leaves
 * "changes unknown" and never holds the page or an approval. The body names at most the request
 * on screen; which threads are read comes from the gate's own records.
 */
import { Hono } from "hono";
import { z } from "zod";
import { distinct, leaseThreadRefs, requestThreadRefs } from "../named-threads.js";
import { type GateParts, jsonBody } from "./route-kit.js";

const changesBody = z.strictObject({ requestId: z.string().min(1).max(256).optional() });

export function changeRoutes(parts: GateParts): Hono {
  const { desk, keeper, changes } = parts;
  return new Hono().post("/api/changes", jsonBody(changesBody), async (c) => {
    const refs = distinct([
      ...requestThreadRefs(desk, c.get("body").requestId),
      ...keeper.list().flatMap((lease) => leaseThreadRefs(keeper, lease.leaseId)),
    ]);
    return c.json({ threads: changes === undefined ? [] : await changes(refs) });
  });
}

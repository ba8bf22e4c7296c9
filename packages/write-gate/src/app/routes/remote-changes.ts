/**
 * @module What the page from afar shows of the open leases and the named threads' changes (ADR
 * 0050, 0068): a lease row (holder, expiry, fingerprint) with the link alone; the threads a lease
 * names, with their change counts, only in the list the passkey opens; the request's named
 * threads' change counts with the link's request id. Counts only: never a file name or a diff.
 */
import { Hono } from "hono";
import { z } from "zod";
import type { GateLeaseKeeper } from "../../lease/lease-keeper.js";
import { leaseThreadRefs } from "../named-threads.js";
import { type GateParts, jsonBody } from "./route-kit.js";

const requestRef = z.strictObject({ requestId: z.string().min(1).max(256) });

/** `POST /approve/api/changes {requestId}`: a live request's named threads, counts only. */
export function remoteChangeRoutes(parts: GateParts): Hono {
  return new Hono().post("/approve/api/changes", jsonBody(requestRef), async (c) => {
    const refs = parts.desk.view(c.get("body").requestId).namedThreads;
    return c.json({ threads: parts.changes === undefined ? [] : await parts.changes(refs.map(threadRef)) });
  });
}

/**
 * The open leases as the page from afar lists them, to end one: holder, expiry and fingerprint (the
 * one the approval showed), nothing of the scope itself.
 */
export function leaseRows(keeper: GateLeaseKeeper) {
  return keeper.list().map((lease) => ({
    leaseId: lease.leaseId,
    expiresAt: lease.expiresAt,
    scopeFingerprint: lease.scopeFingerprint,
    ...(lease.client === undefined ? {} : { client: lease.client }),
  }));
}

/** A thread as a reader takes it: its environment and id, nothing else from the desk's record. */
export function threadRef(thread: { environmentId: string; threadId: string }) {
  return { environmentId: thread.environmentId, threadId: thread.threadId };
}

/**
 * The open leases as the passkey-asserted list shows them: each with the threads it names (by
 * title and environment alias) and their change summaries, counts only.
 */
export async function leaseRowsWithThreads(parts: GateParts) {
  const { keeper, names, changes } = parts;
  return Promise.all(
    leaseRows(keeper).map(async (row) => {
      const refs = leaseThreadRefs(keeper, row.leaseId);
      const lines = changes === undefined ? [] : await changes(refs);
      const threads = refs.map((ref, index) => {
        const title = names.threadTitle(ref.environmentId, ref.threadId);
        return {
          alias: names.alias(ref.environmentId),
          ...(title === undefined ? {} : { title }),
          line: lines[index]?.line ?? "changes unknown",
          state: lines[index]?.state ?? "unknown",
        };
      });
      return { ...row, threads };
    }),
  );
}

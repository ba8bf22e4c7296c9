/**
 * `POST /relay`: the one door the write bridge has into the gate (contract §D.4). Authenticated by
 * the per-boot capability before the body is even read; every op is a strict schema. Nothing here
 * can grant a lease: leases come only from the human side (ApprovalDesk, LeaseKeeper).
 */
import { type Clock, isConnectorError } from "@t3-connector/core";
import type { Dispatcher } from "@t3-connector/core/dispatch";
import type { EnvironmentRegistry } from "@t3-connector/core/environments";
import { Hono } from "hono";
import type { AuditLog } from "../audit/index.js";
import type { ApprovalDesk, LeaseKeeper } from "../contract.js";
import { CAPABILITY_HEADER, capabilityMatches } from "./capability.js";
import { relayErrorOf } from "./errors.js";
import { MAX_RELAY_BODY_BYTES, parseRelayRequest, type RelayRequest } from "./ops.js";
import { dispatchOp, leaseSummary, reconcileOp, requestApproval } from "./relay-ops.js";
import { leasedRead } from "./leased-read.js";

export interface RelayDeps {
  /** The capability of this boot (read on every request, so a restart invalidates the old one). */
  readonly capability: () => string;
  readonly registry: EnvironmentRegistry;
  readonly dispatcher: Dispatcher;
  readonly lease: LeaseKeeper;
  readonly approvals: ApprovalDesk;
  readonly audit: AuditLog;
  readonly clock: Clock;
}

export const RELAY_PATH = "/relay";

/** A Hono app with `POST /relay`, to be mounted by the gate app (`app.route("/", relay)`). */
export function createRelayApp(deps: RelayDeps): Hono {
  const app = new Hono();
  app.post(RELAY_PATH, async (c) => {
    // Authenticate first: an unauthenticated caller learns nothing, not even whether its body parses.
    if (!capabilityMatches(deps.capability(), c.req.header(CAPABILITY_HEADER))) {
      return c.json({ error: "channel_unverified" }, 401);
    }
    const type = c.req.header("content-type") ?? "";
    if (!/^application\/json(\s*;|$)/i.test(type)) return c.json({ error: "content_type_invalid" }, 415);
    const declared = Number(c.req.header("content-length") ?? "0");
    if (declared > MAX_RELAY_BODY_BYTES) return c.json({ error: "body_too_large" }, 413);
    const raw = await c.req.arrayBuffer();
    if (raw.byteLength > MAX_RELAY_BODY_BYTES) return c.json({ error: "body_too_large" }, 413);
    let body: unknown;
    try {
      body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(raw));
    } catch {
      return c.json({ error: "invalid_request", message: "the body is not JSON" }, 400);
    }
    const request = parseRelayRequest(body);
    if (request === null) {
      const op = (body as { op?: unknown } | null)?.op;
      const known = ["environments", "lease", "request_approval", "dispatch", "reconcile", "leased_read"];
      return typeof op === "string" && !known.includes(op)
        ? c.json({ error: "action_unavailable", message: "unknown relay op" }, 400)
        : c.json({ error: "invalid_request", message: "the body does not match the op's schema" }, 400);
    }
    try {
      return c.json(await runOp(request, deps) as object, 200);
    } catch (error) {
      return c.json(relayErrorOf(error), isConnectorError(error) ? 403 : 500);
    }
  });
  return app;
}

async function runOp(request: RelayRequest, deps: RelayDeps): Promise<unknown> {
  switch (request.op) {
    case "environments":
      return {
        environments: deps.registry.environments.map((handle) => ({
          alias: handle.alias,
          environmentId: handle.environmentId,
          label: handle.alias,
        })),
      };
    case "lease":
      return leaseSummary(deps.lease, deps.clock);
    case "request_approval":
      return requestApproval(request, deps);
    case "dispatch":
      return dispatchOp(request, deps);
    case "reconcile":
      return reconcileOp(request, deps);
    case "leased_read":
      return leasedRead(request, deps);
  }
}

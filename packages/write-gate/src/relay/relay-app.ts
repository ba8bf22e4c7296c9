/**
 * `POST /relay`: the one door the write bridge has into the gate. Authenticated by
 * the per-boot capability before anything acts on the body; every op is a strict schema. Nothing
 * here can grant a lease: leases come only from the human side (ApprovalDesk, LeaseKeeper).
 */

import { ConnectorError, isConnectorError } from "@t3-connector/core";
import { isTooDeep, MAX_JSON_INPUT_DEPTH } from "@t3-connector/core/schema";
import {
  parseRelayRequest,
  RELAY_HEADER,
  type RelayOpName,
  type RelayRequest,
  type RelayResultOf,
} from "@t3-connector/write-engine/relay-contract";
import type { Context } from "hono";
import { capabilityMatches } from "./capability.js";
import { relayErrorOf } from "./errors.js";
import { leasedRead } from "./leased-read.js";
import { preflightOp } from "./preflight-op.js";
import {
  conditionalSendOp,
  dispatchOp,
  leaseSummary,
  listUncertainOp,
  type RelayOpDeps,
  reconcileOp,
  refuseForeignLease,
  requestApproval,
  threadsBatchOp,
} from "./relay-ops.js";

export interface RelayDeps extends RelayOpDeps {
  /** The capability of this boot (a restart makes the old one worthless). */
  readonly capability: () => string;
}

const KNOWN_OPS = [
  "environments",
  "lease",
  "request_approval",
  "dispatch",
  "conditional_send",
  "threads_batch",
  "preflight",
  "list_uncertain",
  "reconcile",
  "leased_read",
  "end_lease",
  "withdraw_requests",
  "approval_events",
];

const UNVERIFIED = { error: "channel_unverified" } as const;

export interface RelayAnswer {
  readonly status: 200 | 400 | 401 | 403 | 500;
  readonly body: object;
}

/** The relay itself, independent of HTTP: `presented` is the capability header, `body` the parsed JSON. */
export async function handleRelay(
  deps: RelayDeps,
  presented: string | undefined,
  body: unknown,
): Promise<RelayAnswer> {
  // Authenticate first: an unauthenticated caller learns nothing, not even whether its body parses.
  if (!capabilityMatches(deps.capability(), presented)) {
    return { status: 401, body: UNVERIFIED };
  }
  return answerVerified(deps, body);
}

/**
 * For the gate app's relay slot: the capability is checked before the body is read, so an
 * unauthenticated caller neither spends the relay's budget nor learns whether its body parses.
 * That is the request's one capability check (ADR 0072): the body then goes straight to the ops.
 */
export function relayHandler(
  deps: RelayDeps,
): (c: Context, readBody: () => Promise<unknown>) => Promise<Response> {
  const relay = verifiedRelay(deps);
  return async (c, readBody) => {
    if (!relay.accepts(c.req.header(RELAY_HEADER))) return c.json(UNVERIFIED, 401);
    const answer = await relay.answer(await readBody());
    return c.json(answer.body, answer.status);
  };
}

/**
 * The relay as an HTTP layer calls it once it holds the capability header: `accepts` compares it
 * with this boot's in constant time; `answer` is for a body whose sender was accepted, and only then.
 */
export interface VerifiedRelay {
  accepts(presented: string | undefined): boolean;
  answer(body: unknown): Promise<RelayAnswer>;
}

export function verifiedRelay(deps: RelayDeps): VerifiedRelay {
  return {
    accepts: (presented) => capabilityMatches(deps.capability(), presented),
    answer: (body) => answerVerified(deps, body),
  };
}

/** A body whose sender presented this boot's capability: its depth, its op's schema, then the op. */
async function answerVerified(deps: RelayDeps, body: unknown): Promise<RelayAnswer> {
  // Before the schema and the reserved-key scan, which recurse and would overflow the stack.
  if (isTooDeep(body)) {
    return {
      status: 400,
      body: {
        error: "invalid_input",
        message: `the body is nested deeper than ${MAX_JSON_INPUT_DEPTH} levels`,
      },
    };
  }
  const request = parseRelayRequest(body);
  if (request === null) {
    const op = (body as { op?: unknown } | null)?.op;
    return typeof op === "string" && !KNOWN_OPS.includes(op)
      ? { status: 400, body: { error: "action_unavailable", message: "unknown relay op" } }
      : {
          status: 400,
          body: { error: "invalid_request", message: "the body does not match the op's schema" },
        };
  }
  try {
    return { status: 200, body: await runOp(request, deps) };
  } catch (error) {
    const answer = relayErrorOf(error);
    return { status: isConnectorError(error) || answer.error !== "internal" ? 403 : 500, body: answer };
  }
}

async function runOp(request: RelayRequest, deps: RelayDeps): Promise<RelayResultOf<RelayOpName>> {
  switch (request.op) {
    case "environments":
      return {
        environments: deps.registry.environments.map((handle) => ({
          alias: handle.alias,
          environmentId: handle.environmentId,
          label: handle.alias,
        })),
      };
    case "lease": {
      // Only the holder learns the open lease's id (ADR 0022).
      const held = deps.lease.heldLease(request.leaseSecret);
      return held === null ? { active: false } : leaseSummary(deps.lease, held.leaseId);
    }
    case "request_approval":
      return requestApproval(request, deps);
    case "dispatch":
      return dispatchOp(request, deps);
    case "conditional_send":
      return conditionalSendOp(request, deps);
    case "threads_batch":
      return threadsBatchOp(request, deps);
    case "preflight":
      return preflightOp(request, deps);
    case "list_uncertain":
      return listUncertainOp(deps);
    case "reconcile":
      return reconcileOp(request, deps);
    case "leased_read":
      refuseForeignLease(deps.lease, request.leaseId, request.leaseSecret);
      return leasedRead(request, deps);
    case "approval_events": {
      if (deps.approvalFeed === undefined) {
        throw new ConnectorError("invalid_request", "this gate keeps no approval feed");
      }
      const read = await deps.approvalFeed.read(request.after ?? 0, request.waitMs ?? 0);
      return { entries: read.entries as never, cursor: read.cursor };
    }
    case "end_lease":
      refuseForeignLease(deps.lease, request.leaseId, request.leaseSecret);
      return { ended: deps.lease.end(request.leaseId, "session_ended") };
    case "withdraw_requests":
      // Bound to the holder by its secret: another secret names no request, so it withdraws none.
      return {
        withdrawn: request.leaseSecret === undefined ? 0 : deps.approvals.withdrawHeldBy(request.leaseSecret),
      };
  }
}

/**
 * The relay's request bodies: one strict schema per `op`, used by the bridge to type what it sends
 * and by the gate to parse what it receives. Unknown keys are refused, so a bridge and a gate of
 * different versions fail loudly instead of ignoring a field.
 */
import { findReservedKeys } from "@t3-connector/core/schema";
import { z } from "zod";
import { PREFLIGHT_ACTIONS, RUNTIME_MODES } from "../actions/index.js";
import { MAX_APPROVAL_WAIT_MS } from "./limits.js";

const id = z.string().min(1).max(256);
/** Alias or environmentId; optional in the schema so a missing one is `environment_required`. */
const environment = z.string().max(256).optional();

/** The holder's secret of a lease (ADR 0022), kept by the bridge that created the request. */
const leaseSecret = z.string().min(1).max(256).optional();
export const environmentsOp = z.strictObject({ op: z.literal("environments") });
export const leaseOp = z.strictObject({ op: z.literal("lease"), leaseSecret });
const names = z.array(id).max(256);
/**
 * A project write named by its exact input in an approval request (ADR 0074): the page says its
 * folder or thread count, and the lease admits only it. A delete is named only when forced, an
 * update only when it moves the project (names `workspaceRoot`).
 */
export const projectWriteAsk = z.discriminatedUnion("action", [
  z.strictObject({
    environment: id,
    action: z.literal("project.create"),
    workspaceRoot: z.string().trim().min(1).max(4096),
    createWorkspaceRootIfMissing: z.boolean().optional(),
  }),
  z.strictObject({
    environment: id,
    action: z.literal("project.delete"),
    projectId: id,
    force: z.literal(true),
  }),
  z.strictObject({
    environment: id,
    action: z.literal("project.meta.update"),
    projectId: id,
    workspaceRoot: z.string().trim().min(1).max(4096),
  }),
]);
/** At most this many project writes in one approval request: each costs a folder walk or a count. */
export const MAX_PROJECT_WRITES = 5;
export const requestApprovalOp = z.strictObject({
  op: z.literal("request_approval"),
  /** The client's proposal (ADR 0017): what the page ticks first, checked against the live inventory. */
  environments: z.array(id).max(64).optional(),
  projects: names.optional(),
  actions: z.array(z.string().min(1).max(128)).max(64).optional(),
  threads: names.optional(),
  projectWrites: z.array(projectWriteAsk).min(1).max(MAX_PROJECT_WRITES).optional(),
  /** The highest runtime mode writes under the lease may run an agent in (ADR 0022). */
  runtimeCeiling: z.enum(RUNTIME_MODES).optional(),
  /** The client's own words; cleaned and clipped to 280 characters by the desk. */
  purpose: z.string().max(2000).optional(),
  client: z
    .strictObject({
      name: z.string().max(256),
      version: z.string().max(256).optional(),
      /** When the asking OAuth session of `serve --http` was signed in (ISO 8601, ADR 0049). */
      signedInAt: z.string().max(64).optional(),
    })
    .optional(),
  /** The asking bridge process (a random id per process): its newer request supersedes its older one. */
  bridge: z.string().min(8).max(128).optional(),
  /** The secret of a lease this bridge holds: the open lease is answered only to its holder. */
  leaseSecret,
  /** Wait on this existing request instead of creating one. */
  requestId: id.optional(),
  /** How long to wait for the decision (0: answer at once). */
  waitMs: z.number().int().min(0).max(MAX_APPROVAL_WAIT_MS).optional(),
});
export const dispatchOp = z.strictObject({
  op: z.literal("dispatch"),
  leaseId: id,
  leaseSecret,
  environment,
  operationId: id,
  action: z.string().min(1).max(128),
  input: z.unknown(),
});
/** "When run R ends, optionally switch the model, then send". */
export const conditionalSendOp = z.strictObject({
  op: z.literal("conditional_send"),
  leaseId: id,
  leaseSecret,
  environment,
  operationId: id,
  input: z.unknown(),
});
/** Up to 20 threads filed at once under one lease (ADR 0074); the engine parses `input`. */
export const threadsBatchOp = z.strictObject({
  op: z.literal("threads_batch"),
  leaseId: id,
  leaseSecret,
  environment,
  operationId: id,
  input: z.unknown(),
});
/**
 * Would this launch or message pass now under the person's default grant (ADR 0075)? A read: no
 * lease, nothing sent or recorded; the engine parses `input` as the send would.
 */
export const preflightOp = z.strictObject({
  op: z.literal("preflight"),
  environment,
  action: z.enum(PREFLIGHT_ACTIONS),
  operationId: id.optional(),
  input: z.unknown(),
});
/** The journal's `uncertain` writes (ids, actions, states only), for the reconcile command. */
export const listUncertainOp = z.strictObject({ op: z.literal("list_uncertain") });
/**
 * The holder ends its own lease (its OAuth session ended, ADR 0049); the secret proves it holds it.
 * Ending is always safe, so it needs no passkey; another client's lease is refused.
 */
/**
 * The approval requests and their decisions, for the events service (ADR 0051): the entries after
 * `after` (a cursor from an earlier answer; 0 for all the gate keeps), waiting up to `waitMs` for one.
 */
export const approvalEventsOp = z.strictObject({
  op: z.literal("approval_events"),
  after: z.number().int().min(0).optional(),
  waitMs: z.number().int().min(0).max(MAX_APPROVAL_WAIT_MS).optional(),
});
export const endLeaseOp = z.strictObject({ op: z.literal("end_lease"), leaseId: id, leaseSecret });
/**
 * The holder withdraws every approval request it still has pending (its OAuth session ended, ADR
 * 0049): each one's link then says why it is dead, and approving it grants nothing. The secret is
 * the only thing that names whose requests these are: another one (or none) withdraws nothing.
 */
export const withdrawRequestsOp = z.strictObject({ op: z.literal("withdraw_requests"), leaseSecret });
export const reconcileOp = z.union([
  z.strictObject({
    op: z.literal("reconcile"),
    leaseId: id.optional(),
    leaseSecret,
    environment,
    operationId: id,
  }),
  z.strictObject({
    op: z.literal("reconcile"),
    leaseId: id.optional(),
    leaseSecret,
    key: z.string().regex(/^[0-9a-f]{64}$/),
  }),
]);
export const leasedReadOp = z.strictObject({
  op: z.literal("leased_read"),
  leaseId: id,
  leaseSecret,
  environment,
  read: z.enum(["projects", "threads", "thread"]),
  projectId: id.optional(),
  threadId: id.optional(),
  /** `threads` only: also the archived threads (read from the archived shell snapshot). */
  includeArchived: z.boolean().optional(),
});

export const relayRequest = z.discriminatedUnion("op", [
  environmentsOp,
  leaseOp,
  requestApprovalOp,
  dispatchOp,
  conditionalSendOp,
  threadsBatchOp,
  preflightOp,
  listUncertainOp,
  leasedReadOp,
  endLeaseOp,
  withdrawRequestsOp,
  approvalEventsOp,
]);

export type DispatchOp = z.output<typeof dispatchOp>;
export type ConditionalSendOp = z.output<typeof conditionalSendOp>;
export type ThreadsBatchOp = z.output<typeof threadsBatchOp>;
export type PreflightOp = z.output<typeof preflightOp>;
export type ReconcileOp = z.output<typeof reconcileOp>;
export type LeasedReadOp = z.output<typeof leasedReadOp>;
export type RequestApprovalOp = z.output<typeof requestApprovalOp>;
export type RelayRequest = z.output<typeof relayRequest> | ReconcileOp;
/** What a sender writes for one op (optional fields may be left out). */
export type RelayRequestInput = z.input<typeof relayRequest> | z.input<typeof reconcileOp>;
export type RelayOpName = RelayRequest["op"];

export function parseRelayRequest(body: unknown): RelayRequest | null {
  // A prototype-named key would be dropped by a record's copy rather than refused (see core/schema).
  if (findReservedKeys(body).length > 0) return null;
  const op = (body as { op?: unknown } | null)?.op;
  if (op === "reconcile") {
    const parsed = reconcileOp.safeParse(body);
    return parsed.success ? parsed.data : null;
  }
  const parsed = relayRequest.safeParse(body);
  return parsed.success ? parsed.data : null;
}

/**
 * `t3_reconciliar_escrita`: settles an `uncertain` write. The gate reads T3 for the effect (the
 * ids it sent were derived from the operation key, so the effect is findable); if it is not there
 * and the caller's open lease covers the write (ADR 0042), it sends the journaled command again
 * under the same ids (within an hour of the first attempt), which T3 applies at most once, and
 * T3's answer decides. A write still undecided stays `uncertain`.
 */
import * as z from "zod";
import { defineBridgeTool, READ_ONLY } from "../bridge-tool.js";

const id = z.string().trim().min(1).max(1024);

export const reconcileTool = defineBridgeTool({
  name: "t3_reconciliar_escrita",
  title: "Reconcile an uncertain write",
  description:
    "After reconciliation_required (or state uncertain), call this with your open leaseId, the environment and the operationId " +
    "(an uncertain send closes the lease it was made under: get the next one with t3_pedir_aprovacao {}). " +
    "The gate reads T3 for the write's effect; if it is not there and your lease covers the write, it sends the same command " +
    "again under the same ids (T3 applies a command id at most once), within an hour of the first attempt; without such a lease " +
    "it only reads and observation.reason says so. You get state completed (applied exactly once), " +
    "refused (nothing applied; error.code says why, e.g. t3_refused or action_unsupported), or uncertain with observation.reason " +
    "(e.g. a commandId conflict, T3 unreachable, or the hour passed): then tell the user instead of retrying with a new operationId.",
  inputSchema: z.strictObject({
    leaseId: id,
    environment: z.string().trim().min(1).max(1024),
    operationId: id,
  }),
  outputSchema: z.object({
    operationId: z.string(),
    environmentId: z.string(),
    action: z.string(),
    state: z.string(),
    settled: z.boolean(),
    observation: z.record(z.string(), z.unknown()).nullable(),
    /** Whether the same command was sent again, and what T3 answered (receipt, refused, conflict, …). */
    resend: z.object({ sent: z.boolean(), answer: z.string(), code: z.string().optional() }).nullable(),
    receipt: z.record(z.string(), z.unknown()).nullable(),
    error: z.object({ code: z.string() }).nullable(),
  }),
  // Read-only from the client's point of view: it only reads T3 and updates the gate's own record.
  annotations: READ_ONLY,
  async handler(context, input, extra) {
    const answer = await context.relay.call(
      {
        op: "reconcile",
        leaseId: input.leaseId,
        environment: input.environment,
        operationId: input.operationId,
      },
      extra.signal,
    );
    const resend = answer.resend;
    return {
      operationId: answer.operationId,
      environmentId: answer.environmentId,
      action: answer.action,
      state: answer.state,
      settled: answer.settled,
      observation: answer.observation,
      resend:
        resend === null
          ? null
          : {
              sent: resend.sent,
              answer: resend.answer,
              ...(resend.code === undefined ? {} : { code: resend.code }),
            },
      receipt: answer.receipt,
      error: answer.error === null ? null : { code: answer.error.code },
    };
  },
});

/**
 * `t3_reconciliar_escrita`: settles an `uncertain` write by having the gate read T3 for the
 * effect (the ids it sent were derived from the operation key, so the effect is findable). It
 * never resends; a write that is still undecided stays `uncertain`.
 */
import * as z from "zod";
import { defineBridgeTool, READ_ONLY } from "../bridge-tool.js";

const id = z.string().trim().min(1).max(1024);

export const reconcileTool = defineBridgeTool({
  name: "t3_reconciliar_escrita",
  title: "Reconcile an uncertain write",
  description:
    "After reconciliation_required (or state uncertain), call this with the same leaseId, environment and operationId. " +
    "It reads T3 to find out whether the write took effect and never sends it again. If the state stays uncertain, " +
    "tell the user instead of retrying the write.",
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
    const error = answer.error as { code?: unknown } | null | undefined;
    return {
      operationId: answer.operationId,
      environmentId: answer.environmentId,
      action: answer.action,
      state: answer.state,
      settled: answer.settled,
      observation: answer.observation ?? null,
      receipt: answer.receipt ?? null,
      error: typeof error?.code === "string" ? { code: error.code } : null,
    };
  },
});

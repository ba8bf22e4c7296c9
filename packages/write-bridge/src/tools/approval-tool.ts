/**
 * `t3_pedir_aprovacao`: the open lease if there is one, else a fresh approval link for the human.
 * It never renews or widens a lease; the environments and projects come from the gate's live
 * inventory, never from the client.
 */
import { ConnectorError } from "@t3-connector/core";
import { LEASE_DURATION_MINUTES } from "@t3-connector/core/actions";
import * as z from "zod";
import { defineBridgeTool } from "../bridge-tool.js";

const coveredEnvironment = z.object({
  alias: z.string(),
  environmentId: z.string(),
  projectCount: z.number().int(),
  actionCount: z.number().int(),
});

const leftOutEnvironment = z.object({ alias: z.string(), environmentId: z.string(), reason: z.string() });

const approvalOutput = z.object({
  authorized: z.boolean(),
  leaseId: z.string().optional(),
  expiresAt: z.string().optional(),
  remainingMs: z.number().optional(),
  scopeFingerprint: z.string().optional(),
  requestId: z.string().optional(),
  approvalUrl: z.string().optional(),
  durationMinutes: z.number().int().optional(),
  environments: z.array(coveredEnvironment),
  unavailableEnvironments: z.array(leftOutEnvironment).optional(),
  nextStep: z.string(),
});

const list = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value) ? (value as Record<string, unknown>[]) : [];

export const approvalTool = defineBridgeTool({
  name: "t3_pedir_aprovacao",
  title: "Request write approval",
  description:
    "Returns the open write lease (leaseId, environments, expiry) or, when none is open, an approval link for the user. " +
    "Show the approvalUrl to the user and wait until they approve with their passkey, then call this tool again to get the leaseId. " +
    "It never renews a lease.",
  inputSchema: z.strictObject({}),
  outputSchema: approvalOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(context, _input, extra) {
    const answer = await context.relay.call({ op: "request_approval" }, extra.signal);
    if (answer.active === true) {
      return {
        authorized: true,
        leaseId: answer.leaseId,
        expiresAt: answer.expiresAt,
        remainingMs: answer.remainingMs,
        scopeFingerprint: answer.scopeFingerprint,
        environments: list(answer.environments).map(pickCovered),
        nextStep: "Use leaseId with the t3_escrever_* tools, naming the environment on every call.",
      };
    }
    if (typeof answer.requestId !== "string" || typeof answer.url !== "string") {
      throw new ConnectorError("invalid_response", "the gate answered the approval request without a link");
    }
    return {
      authorized: false,
      requestId: answer.requestId,
      approvalUrl: answer.url,
      expiresAt: answer.expiresAt,
      durationMinutes: LEASE_DURATION_MINUTES,
      environments: list(answer.covered).map(pickCovered),
      unavailableEnvironments: list(answer.leftOut).map((left) => ({
        alias: left.alias,
        environmentId: left.environmentId,
        reason: left.reason,
      })),
      nextStep:
        "Ask the user to open approvalUrl and approve with their passkey before it expires, then call t3_pedir_aprovacao again.",
    };
  },
});

function pickCovered(grant: Record<string, unknown>) {
  return {
    alias: grant.alias,
    environmentId: grant.environmentId,
    projectCount: grant.projectCount,
    actionCount: grant.actionCount,
  };
}

import type { CallToolResult } from "@modelcontextprotocol/server";
import { isConnectorError } from "@t3-connector/core";
import { toolErrorResult } from "@t3-connector/mcp-tools";

export const INTERNAL_ERROR_TEXT = "internal: the write bridge failed unexpectedly";

/** What to do next, per code: a model reads the text and should not have to guess. */
const NEXT_STEP: Readonly<Record<string, string>> = {
  lease_closed: "Call t3_pedir_aprovacao to get a new approval link.",
  reconciliation_required:
    "The outcome is not known yet. Repeat the very same call (same operationId and input) or call t3_reconciliar_escrita: " +
    "the gate settles it (T3 applies it at most once). Never use a new operationId for this write.",
  action_unsupported:
    "This environment's T3 version does not have this action; nothing was applied. Do not retry it there.",
  t3_refused:
    "T3 refused the write before running it; nothing was applied. A repeat only replays this refusal.",
  operation_conflict: "This operationId was used with a different input: pick a new operationId.",
  gate_unavailable: "Ask the user to start the gate (t3-connector-write gate), then call the tool again.",
  environment_required: "Name the environment (alias or environmentId) explicitly.",
  environment_unknown: "Use one of the configured aliases.",
  environment_not_in_lease:
    "This lease does not cover that environment: call t3_pedir_aprovacao after the lease ends to ask for it.",
  scope_denied: "The lease does not allow this action or project; ask the user for a lease that covers it.",
  runtime_mode_above_lease:
    "Stay at or below the lease's ceiling (named above): give a lower runtimeMode (or none: a launch then runs at the ceiling); for a thread running above it, do what the message says (switch the idle thread down with thread.runtime-mode.set, or stop its run with holdQueue: true); or ask the user for a new lease with a higher runtimeCeiling.",
  request_invalid: "Call t3_pedir_aprovacao without requestId for a new approval link.",
};

/**
 * A tool error whose text starts with the stable code (the gate's own code when the gate refused,
 * so codes core does not list still arrive as themselves), then the message and the next step.
 * The same facts travel as fields in `_meta` (ADR 0021).
 */
export function toolError(error: unknown): CallToolResult {
  if (!isConnectorError(error)) {
    return toolErrorResult(
      { code: "internal", message: "the write bridge failed unexpectedly" },
      INTERNAL_ERROR_TEXT,
    );
  }
  const gateCode = error.details?.gateCode;
  const code = typeof gateCode === "string" ? gateCode : error.code;
  const t3 = error.t3?.code ?? error.t3?.tag;
  const parts = [`${code}: ${error.message}`];
  // The gate's reason refines a broad code (invalid_input → request_id_mismatch, guard_refused →
  // thread_pending_request, …); a client can branch on it as well.
  const given = error.details?.reason;
  const reason = typeof given === "string" && /^[a-z][a-z0-9_]*$/.test(given) ? given : undefined;
  if (reason !== undefined) parts.push(`[reason: ${reason}]`);
  if (t3 !== undefined) parts.push(`(T3: ${t3})`);
  // Said once: a message that already tells the next step (the bridge's own gate_unavailable
  // names the command to start) does not get it again.
  const next = NEXT_STEP[code];
  const hint = next !== undefined && !saysNextStepAlready(code, error.message) ? next : undefined;
  if (hint !== undefined) parts.push(hint);
  return toolErrorResult(
    {
      code,
      message: error.message,
      ...(hint === undefined ? {} : { hint }),
      ...(reason === undefined ? {} : { reason }),
      ...(t3 === undefined ? {} : { t3 }),
    },
    parts.join(" "),
  );
}

function saysNextStepAlready(code: string, message: string): boolean {
  if (code === "gate_unavailable") return message.includes("t3-connector-write gate");
  return message.includes(NEXT_STEP[code] ?? "\u0000");
}

/**
 * The one outbound send, and what its answer means. The final lease check and the send run in one
 * synchronous stretch: nothing can close the lease (or the socket) between the check and the
 * frame leaving. The send is never retried here; only settlement (reconcile.ts) may send the very
 * same journaled command again, and T3's receipt for its commandId then decides.
 *
 * What proves that T3 never ran the handler: a typed `Fail` (T3 decided to refuse, or its receipt
 * store answers a commandId it rejected before), and the payload decode `Die` of an older server
 * (the command type is not in its schema). A `Fail` that says the commandId
 * conflicts (already used on another thread) proves nothing about this write.
 */

import { ConnectorError, isConnectorError } from "@t3-connector/core";
import type { T3RpcClient } from "@t3-connector/core/t3";
import { type BuiltPayload, RPC_METHOD } from "../actions/index.js";
import type { JournalReceipt } from "../journal/index.js";
import { refusalFromText } from "./refusal-text.js";
import type { LeaseVerdict } from "./types.js";

export type SendOutcome =
  /** The final check refused, or the socket was already closed: provably nothing was sent. */
  | { readonly kind: "not_sent"; readonly error: ConnectorError }
  | { readonly kind: "completed"; readonly receipt: JournalReceipt }
  /**
   * T3 answered that it never ran the command: a typed refusal (`t3_refused`) or the decode defect
   * of a command type it does not know (`action_unsupported`).
   */
  | { readonly kind: "refused"; readonly error: ConnectorError }
  /** T3 says this commandId was already used on another thread: nothing is proven either way. */
  | { readonly kind: "conflict"; readonly error: ConnectorError }
  /** A defect (`Die`) or an answer that does not decode: the socket is fine, the outcome unknown. */
  | { readonly kind: "defect"; readonly error: ConnectorError }
  /** No answer (socket lost, timeout): the command may or may not have been applied. */
  | { readonly kind: "lost"; readonly error: ConnectorError };

function start(client: T3RpcClient, payload: BuiltPayload): Promise<JournalReceipt> {
  if (payload.kind === "dispatch") {
    return client
      .dispatchCommand({ ...payload.command })
      .then((result): JournalReceipt => ({ sequence: result.sequence }));
  }
  if (payload.kind === "project") {
    return client.call(RPC_METHOD.project, { ...payload.mutation }).then(projectReceipt);
  }
  return client
    .launchThread({ ...payload.input })
    .then((result): JournalReceipt => ({ threadId: result.threadId, resumed: result.resumed }));
}

/** `projects.mutate` answers the project row (fixtures 100, 103, 108). */
function projectReceipt(value: unknown): JournalReceipt {
  const row = typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  if (typeof row.id !== "string") {
    throw new ConnectorError("invalid_response", "projects.mutate answered without a project id");
  }
  return { projectId: row.id, deleted: typeof row.deletedAt === "string" };
}

/**
 * A receipt conflict (the same commandId on another thread fails). What is known of T3 does
 * name it a conflict without quoting T3's text, so the typed failure's message is searched for it.
 */
export function isReceiptConflict(error: ConnectorError): boolean {
  if (!isConnectorError(error, "rpc_failure")) return false;
  if (error.details?.orchestratorError === "OrchestratorCommandIdConflictError") return true;
  const said = typeof error.details?.message === "string" ? error.details.message : error.message;
  return /conflict/i.test(said);
}

/** The decode `Die` of an older server: it lists the command types it accepts, and ran nothing. */
function unsupportedCommand(error: ConnectorError, payload: BuiltPayload): ConnectorError | null {
  const accepted = error.details?.acceptedCommandTypes;
  if (!Array.isArray(accepted)) return null;
  const type =
    payload.kind === "dispatch"
      ? payload.command.type
      : payload.kind === "project"
        ? payload.mutation.type
        : "orchestration.launchThread";
  return new ConnectorError(
    "action_unsupported",
    `this T3 server does not accept the command type ${type} (it refused the payload before running anything)`,
    { details: { commandType: type, acceptedCommandTypes: accepted }, cause: error },
  );
}

/** What a failed send's error means (shared by the first send and a settlement's resend). */
export function failedSendOutcome(
  error: unknown,
  payload: BuiltPayload,
): Exclude<SendOutcome, { kind: "completed" }> {
  if (isConnectorError(error, "rpc_failure") && isReceiptConflict(error)) return { kind: "conflict", error };
  if (isConnectorError(error, "rpc_failure") || isConnectorError(error, "insufficient_scope")) {
    return { kind: "refused", error: t3Refusal(error) };
  }
  if (isConnectorError(error, "too_many_in_flight")) return { kind: "not_sent", error };
  if (isConnectorError(error, "protocol_error")) {
    const unsupported = unsupportedCommand(error, payload);
    if (unsupported !== null) return { kind: "refused", error: unsupported };
  }
  // A defect or an undecodable success: the socket still works, so the lease need not close.
  if (isConnectorError(error, "protocol_error") || isConnectorError(error, "invalid_response")) {
    return { kind: "defect", error };
  }
  const lost = isConnectorError(error)
    ? error
    : new ConnectorError("connection_lost", "the send failed without a typed answer", { cause: error });
  return { kind: "lost", error: lost };
}

/**
 * Newer servers' typed orchestrator errors that say more than "refused" (the innermost error of
 * T3's cause chain, read by the RPC client); every other refusal is `t3_refused`.
 */
const REFUSAL_CODES: Readonly<Record<string, "subagent_thread_read_only" | "above_mode_limit">> = {
  OrchestratorSubagentThreadReadOnlyError: "subagent_thread_read_only",
  OrchestratorThreadAboveModeLimitError: "above_mode_limit",
};

function t3Refusal(error: ConnectorError): ConnectorError {
  const named = error.details?.orchestratorError;
  const said = typeof error.details?.message === "string" ? error.details.message : "";
  // The cause's name when it travels, else T3's own words (a server may send only those).
  const code =
    (typeof named === "string" ? REFUSAL_CODES[named] : undefined) ??
    (isConnectorError(error, "rpc_failure") ? refusalFromText(said) : undefined) ??
    "t3_refused";
  return new ConnectorError(code, `T3 refused the write: ${error.message}`, {
    ...(error.t3 === undefined ? {} : { t3: error.t3 }),
    details: { ...error.details },
    cause: error,
  });
}

/**
 * `finalCheck` is called synchronously right before the frame is written; no `await` separates
 * them. Rejections that the client raises before writing a frame (too many calls in flight) are
 * `not_sent` too.
 */
export async function sendOnce(
  client: T3RpcClient,
  payload: BuiltPayload,
  finalCheck: () => LeaseVerdict,
): Promise<SendOutcome> {
  const verdict = finalCheck();
  if (!verdict.ok) {
    return {
      kind: "not_sent",
      error: new ConnectorError(verdict.code, verdict.message, { details: { reason: verdict.code } }),
    };
  }
  if (!client.isOpen) {
    return {
      kind: "not_sent",
      error: new ConnectorError("unavailable", "the T3 socket closed before the send", {
        details: { reason: "socket_closed_before_send" },
      }),
    };
  }
  const sending = start(client, payload);
  try {
    return { kind: "completed", receipt: await sending };
  } catch (error) {
    return failedSendOutcome(error, payload);
  }
}

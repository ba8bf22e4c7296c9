/**
 * The one outbound send, and what its answer means. The final lease check and the send run in one
 * synchronous stretch: nothing can close the lease (or the socket) between the check and the
 * frame leaving. The send is never retried, whatever happens.
 */
import type { BuiltPayload } from "../actions/index.js";
import { ConnectorError, isConnectorError } from "../errors.js";
import type { JournalReceipt } from "../journal/index.js";
import type { T3RpcClient } from "../t3/index.js";
import type { LeaseVerdict } from "./types.js";

export type SendOutcome =
  /** The final check refused, or the socket was already closed: provably nothing was sent. */
  | { readonly kind: "not_sent"; readonly error: ConnectorError }
  | { readonly kind: "completed"; readonly receipt: JournalReceipt }
  /** T3 answered with a typed refusal (`Fail`): it did not apply the command. */
  | { readonly kind: "refused"; readonly error: ConnectorError }
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
  return client
    .launchThread({ ...payload.input })
    .then((result): JournalReceipt => ({ threadId: result.threadId, resumed: result.resumed }));
}

function t3Refusal(error: ConnectorError): ConnectorError {
  return new ConnectorError("t3_refused", `T3 refused the write: ${error.message}`, {
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
    if (isConnectorError(error, "rpc_failure") || isConnectorError(error, "insufficient_scope")) {
      return { kind: "refused", error: t3Refusal(error) };
    }
    if (isConnectorError(error, "too_many_in_flight")) return { kind: "not_sent", error };
    // A defect or an undecodable success: the socket still works, so the lease need not close.
    if (isConnectorError(error, "protocol_error") || isConnectorError(error, "invalid_response")) {
      return { kind: "defect", error };
    }
    const lost = isConnectorError(error)
      ? error
      : new ConnectorError("connection_lost", "the send failed without a typed answer", { cause: error });
    return { kind: "lost", error: lost };
  }
}

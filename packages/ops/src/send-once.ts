/**
 * The one outbound call of a write, never retried, and what its answer means. Same rules as the
 * gate's send (core/dispatch), without the lease: a typed T3 refusal did not apply the command; a
 * defect or a lost answer leaves the outcome unknown.
 */
import { ConnectorError, isConnectorError } from "@t3-connector/core";
import type { T3RpcClient } from "@t3-connector/core/t3";
import type { BuiltPayload } from "@t3-connector/write-engine/actions";

export type SendOutcome =
  | { readonly kind: "not_sent"; readonly error: ConnectorError }
  | { readonly kind: "completed"; readonly receipt: Record<string, unknown> }
  | { readonly kind: "refused"; readonly error: ConnectorError }
  | { readonly kind: "uncertain"; readonly error: ConnectorError };

function start(client: T3RpcClient, payload: BuiltPayload): Promise<Record<string, unknown>> {
  if (payload.kind === "dispatch") {
    return client.dispatchCommand({ ...payload.command }).then((result) => ({ sequence: result.sequence }));
  }
  return client
    .launchThread({ ...payload.input })
    .then((result) => ({ threadId: result.threadId, resumed: result.resumed }));
}

export async function sendOnce(client: T3RpcClient, payload: BuiltPayload): Promise<SendOutcome> {
  if (!client.isOpen) {
    return {
      kind: "not_sent",
      error: new ConnectorError("unavailable", "the T3 socket closed before the send"),
    };
  }
  try {
    return { kind: "completed", receipt: await start(client, payload) };
  } catch (error) {
    if (isConnectorError(error, "rpc_failure") || isConnectorError(error, "insufficient_scope")) {
      return {
        kind: "refused",
        error: new ConnectorError("t3_refused", `T3 refused the write: ${error.message}`, {
          ...(error.t3 === undefined ? {} : { t3: error.t3 }),
          details: { ...error.details },
          cause: error,
        }),
      };
    }
    // Refused by the client before any frame was written.
    if (isConnectorError(error, "too_many_in_flight")) return { kind: "not_sent", error };
    const cause = isConnectorError(error)
      ? error
      : new ConnectorError("connection_lost", "the send failed without a typed answer", { cause: error });
    return { kind: "uncertain", error: cause };
  }
}

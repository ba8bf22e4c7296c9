/**
 * `send`: a message to a thread (catalogue action thread.send), its message id as the
 * operationId, confirmed by reading the thread: `delivered` when the message is in the thread,
 * `queued` when it waits behind an active run, `unconfirmed` otherwise (the receipt stands).
 */
import { type ActResult, act } from "./act.js";
import type { SendDelivery } from "./command-constants.js";
import type { OpsEnvironments } from "./environments.js";
import { resolveThread } from "./references.js";

export interface SendRequest {
  /** A thread reference (id, title, unique substring, optionally alias:ref). */
  thread: string;
  text: string;
  /** The idempotency key: a repeat with the same id never delivers twice. */
  messageId: string;
  delivery?: SendDelivery;
  namespace?: string;
}

export interface SendResult extends ActResult {
  threadId: string;
  delivery: SendDelivery;
  status: "delivered" | "queued" | "unconfirmed";
}

export async function sendMessage(
  environments: OpsEnvironments,
  environment: string | undefined,
  request: SendRequest,
): Promise<SendResult> {
  const delivery = request.delivery ?? "start_immediately";
  const { env, thread } = await resolveThread(environments, request.thread, environment);
  const input = {
    threadId: thread.id,
    text: request.text,
    clientRequestId: request.messageId,
    delivery,
    ...(delivery === "queue_after_active" ? { deferUntilActiveCompletes: true } : {}),
  };
  const result = await act(environments, env.config.alias, "thread.send", input, {
    operationId: request.messageId,
    ...(request.namespace === undefined ? {} : { namespace: request.namespace }),
  });
  // Confirmation reads the thread itself (never a shell stream item, which current T3 may suppress).
  const connection = await env.handle.connect();
  const snapshot = await connection.http.getThread(thread.id);
  const messageId = result.ids.messageId;
  const delivered = (snapshot.projection.messages ?? []).some((message) => message.id === messageId);
  const status = delivered ? "delivered" : delivery === "queue_after_active" ? "queued" : "unconfirmed";
  return { ...result, threadId: thread.id, delivery, status };
}

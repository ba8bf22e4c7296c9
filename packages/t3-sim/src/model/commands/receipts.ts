/**
 * T3's command receipts: the commandId is the idempotency key (docs/t3-protocol-notes.md). A receipt
 * remembers the thread the command named, because the same commandId on another thread is a
 * conflict. No text of T3's for that failure is known, so the simulator answers
 * the dispatch error every command failure has, with a message that says conflict.
 */

import {
  commandIdConflict,
  commandPreviouslyRejected,
  wrapOrchestratorError,
} from "../orchestrator-errors.js";

export type Receipt =
  | { readonly kind: "accepted"; readonly sequence: number; readonly threadId: string | null }
  | { readonly kind: "rejected"; readonly error: Record<string, unknown>; readonly threadId: string | null };

/** The thread a command (or a launch input) names first; null for project-level commands. */
export function commandThreadOf(payload: unknown): string | null {
  if (payload === null || typeof payload !== "object") return null;
  const record = payload as Record<string, unknown>;
  for (const field of ["threadId", "parentThreadId", "sourceThreadId"]) {
    const value = record[field];
    if (typeof value === "string") return value;
  }
  return null;
}

export function receiptConflict(
  commandId: string,
  commandType: string,
  receivedOn: string | null,
  repeatedOn: string | null,
  newer = false,
): Record<string, unknown> {
  const message = `Command ${commandId} conflicts with a command already received for thread ${receivedOn ?? "(none)"}; it cannot be dispatched to thread ${repeatedOn ?? "(none)"}.`;
  if (newer)
    return wrapOrchestratorError(commandId, commandType, message, commandIdConflict(receivedOn, repeatedOn));
  return {
    _tag: "OrchestrationV2DispatchCommandError",
    commandId,
    commandType,
    message,
    detail: message,
  };
}

/** The refusal a repeat of a refused commandId gets on current upstream (orchestrator-errors.ts). */
export function previouslyRejected(original: Record<string, unknown>): Record<string, unknown> {
  const detail = typeof original.message === "string" ? original.message : "rejected";
  return wrapOrchestratorError(
    String(original.commandId),
    String(original.commandType),
    detail,
    commandPreviouslyRejected(detail),
  );
}

/**
 * The typed orchestrator errors of current upstream T3, rendered the one way the simulator
 * answers them (docs/t3-protocol-notes.md, "Typed orchestrator errors").
 *
 * UNVERIFIED RENDERING. Upstream's error classes and their fields are known; how they travel in
 * the WebSocket `Fail` frame is not (no capture of a protocol-2 server exists). The simulator puts
 * each one as the innermost `cause` of the `OrchestrationV2DispatchCommandError` every refused
 * command already carries (the 0.0.31 captures show `OrchestratorCommandRejectedError` exactly
 * there), named by `name`, with its own fields beside `message`. When a capture shows otherwise,
 * this file is the one to correct (docs/simulator-fidelity.md says so too).
 */
import { DomainError } from "./errors.js";

/** Runtime modes, least to most permissive (upstream's `RuntimeMode`). */
export const RUNTIME_MODES = ["approval-required", "auto-accept-edits", "auto", "full-access"] as const;

export function runtimeModeRank(mode: string): number {
  const rank = (RUNTIME_MODES as readonly string[]).indexOf(mode);
  return rank === -1 ? RUNTIME_MODES.length : rank;
}

/** Refused before commit: the generic refusal (0.0.31 renders every domain refusal this way). */
export function commandRejected(message: string): Record<string, unknown> {
  return { name: "OrchestratorCommandRejectedError", message };
}

/** A subagent the provider spawned owns its conversation: its thread takes no messages. */
export function subagentThreadReadOnly(threadId: string): DomainError {
  const message = `Thread ${threadId} is a provider-native subagent thread and takes no messages.`;
  return new DomainError(message, { name: "OrchestratorSubagentThreadReadOnlyError", message, threadId });
}

/** The thread would run above the mode its ceiling allows. */
export function threadAboveModeLimit(
  threadId: string,
  mode: string,
  runtimeMode: string,
  interactionMode: string,
): DomainError {
  const message = `Thread ${threadId} cannot use runtime mode ${runtimeMode}: it is limited to ${mode}.`;
  return new DomainError(message, {
    name: "OrchestratorThreadAboveModeLimitError",
    message,
    mode,
    runtimeMode,
    interactionMode,
  });
}

/** A repeat of a commandId whose first dispatch was refused. */
export function commandPreviouslyRejected(detail: string): Record<string, unknown> {
  return {
    name: "OrchestratorCommandPreviouslyRejectedError",
    message: `The command was rejected before: ${detail}`,
    detail,
  };
}

/** A commandId already received for another thread. */
export function commandIdConflict(
  receiptThreadId: string | null,
  commandThreadId: string | null,
): Record<string, unknown> {
  return {
    name: "OrchestratorCommandIdConflictError",
    message: `The command id conflicts with a command already received for thread ${receiptThreadId ?? "(none)"}.`,
    receiptThreadId,
    commandThreadId,
  };
}

/** The `OrchestrationV2DispatchCommandError` around one of the errors above. */
export function wrapOrchestratorError(
  commandId: string,
  commandType: string,
  message: string,
  inner: Record<string, unknown>,
): Record<string, unknown> {
  const wrapper = `Failed to dispatch orchestration command ${commandType} (${commandId}).`;
  return {
    _tag: "OrchestrationV2DispatchCommandError",
    commandId,
    commandType,
    message,
    detail: message,
    cause: {
      name: "OrchestratorDispatchError",
      message: wrapper,
      cause: { name: "OrchestratorDispatchError", message: wrapper, cause: inner },
    },
  };
}

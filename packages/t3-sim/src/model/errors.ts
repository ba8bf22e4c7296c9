/**
 * Typed failures in T3's wire shapes. Messages and nested `cause` chains copy the captures
 * (fixtures 20c, 34, 43, 57, 72, 75-77): clients must survive the internals they leak.
 */

/** A domain refusal raised inside a command handler; becomes `OrchestrationV2DispatchCommandError`. */
export class DomainError extends Error {
  constructor(
    message: string,
    readonly innerCause?: Record<string, unknown>,
    /** Projection lookups fail before the dispatcher wraps them (fixture 34 vs 20c). */
    readonly wrapped = true,
  ) {
    super(message);
  }
}

export const threadNotFoundMessage = (threadId: string): string =>
  `No orchestration projection exists for thread ${threadId}.`;

export function threadNotFound(threadId: string): DomainError {
  return new DomainError(
    threadNotFoundMessage(threadId),
    {
      name: "OrchestratorProjectionError",
      message: `Failed to load orchestration projection for thread ${threadId}.`,
      cause: { name: "ProjectionStoreThreadNotFoundError", message: threadNotFoundMessage(threadId) },
    },
    false,
  );
}

export function projectNotFoundForRun(instanceId: string, projectId: string): DomainError {
  return new DomainError("Project not found.", {
    name: "RuntimePolicyResolveError",
    message: `Failed to resolve runtime policy for provider instance ${instanceId} in project ${projectId}.`,
    cause: "Project not found.",
  });
}

export function dispatchCommandError(
  commandId: string,
  commandType: string,
  error: DomainError,
): Record<string, unknown> {
  const wrapper = `Failed to dispatch orchestration command ${commandType} (${commandId}).`;
  const inner = error.innerCause ?? { name: "OrchestratorCommandRejectedError", message: error.message };
  return {
    _tag: "OrchestrationV2DispatchCommandError",
    commandId,
    commandType,
    message: error.message,
    detail: error.message,
    cause: error.wrapped
      ? {
          name: "OrchestratorDispatchError",
          message: wrapper,
          cause: { name: "OrchestratorDispatchError", message: wrapper, cause: inner },
        }
      : inner,
  };
}

export function getThreadProjectionError(threadId: string): Record<string, unknown> {
  return {
    _tag: "OrchestrationV2GetThreadProjectionError",
    threadId,
    message: `Failed to load orchestration V2 thread ${threadId}`,
    cause: threadNotFound(threadId).innerCause,
  };
}

export function threadLaunchError(
  commandId: string,
  projectId: string,
  message: string,
): Record<string, unknown> {
  return { _tag: "OrchestrationV2ThreadLaunchError", commandId, projectId, message };
}

export function httpThreadNotFound(traceId: string): Record<string, unknown> {
  return { _tag: "EnvironmentResourceNotFoundError", code: "not_found", reason: "thread_not_found", traceId };
}

export function httpInvalidRequest(reason: string, traceId: string): Record<string, unknown> {
  return { _tag: "EnvironmentRequestInvalidError", code: "invalid_request", reason, traceId };
}

export function httpInternal(reason: string, traceId: string): Record<string, unknown> {
  return { _tag: "EnvironmentInternalError", code: "internal_error", reason, traceId };
}

/**
 * What the real server answers when a client interrupts a stream (fixtures 37, 54-56, 81):
 * subscribeThread and subscribeServerLifecycle cannot encode their interrupt cause and answer
 * a Die; the other streams answer a plain Interrupt cause.
 */
export const THREAD_STREAM_INTERRUPT_DEFECT =
  'Expected OrchestrationV2GetThreadProjectionError | EnvironmentAuthorizationError\n  at ["cause"]["failures"][0]["error"]';
export const LIFECYCLE_STREAM_INTERRUPT_DEFECT =
  'Expected never | EnvironmentAuthorizationError\n  at ["cause"]["failures"][0]["error"]';

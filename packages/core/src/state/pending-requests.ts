import { REQUEST_DETAIL_MAX_CHARACTERS } from "./bounds.js";
import { type ContentUnavailableReason, type RequestContent, requestContent } from "./request-content.js";
import { isNonBlankString, keepStart } from "./text.js";
import { requestReason } from "./thread-state.js";
import { parseInstant } from "./time.js";
import type { RuntimeRequestInput, ShellThreadInput, ThreadProjectionInput, TurnItemInput } from "./types.js";

export type ResponseCapability =
  | { type: "live" }
  | { type: "message" }
  | { type: "not_resumable"; reason: string | null };

/** The two write tools that answer a request. Declared literally so they can be grepped. */
export const ANSWER_REQUEST_TOOL = "t3_escrever_runtime_request_answer";
export const APPROVE_REQUEST_TOOL = "t3_escrever_runtime_request_approve";

export type RespondAction =
  | {
      type: "respond_runtime_request";
      action: "runtime-request.answer";
      tool: typeof ANSWER_REQUEST_TOOL;
      input: { threadId: string; requestId: string };
      responseField: "answers";
      requiresUserDecision: true;
    }
  | {
      type: "respond_runtime_request";
      action: "runtime-request.approve";
      tool: typeof APPROVE_REQUEST_TOOL;
      input: { threadId: string; requestId: string };
      responseField: "decision";
      requiresUserDecision: true;
    };

export type InspectReason =
  | ContentUnavailableReason
  | "response_capability_unavailable"
  | "request_not_resumable";

export type NextAction = RespondAction | { type: "inspect_in_t3"; reason: InspectReason };

export interface PendingRequest {
  runtimeRequestId: string;
  requestId: string;
  kind: string | null;
  reason: string;
  nodeId: string | null;
  since: string | null;
  /** A display hint only (title or text of the matching turn item), never the content. */
  detail: string | null;
  responseCapability: ResponseCapability | null;
  contentAvailable: boolean;
  content: RequestContent | null;
  unavailableReason: ContentUnavailableReason | null;
  /** Constant: a message sent to the thread does not answer a request (it queues behind it). */
  threadSendAnswersRequest: false;
  nextAction: NextAction;
}

/** All turn items the projection holds: the full list and the (possibly windowed) timeline rows. */
export function projectionTurnItems(projection: ThreadProjectionInput): TurnItemInput[] {
  const items: TurnItemInput[] = [...(projection.turnItems ?? [])];
  for (const row of projection.visibleTurnItems ?? []) if (row?.item) items.push(row.item);
  return items;
}

function capability(raw: unknown): ResponseCapability | null {
  if (raw === null || typeof raw !== "object") return null;
  const value = raw as { type?: unknown; reason?: unknown };
  // The live capability's provider session id is a native reference: it is not exposed.
  if (value.type === "live") return { type: "live" };
  if (value.type === "message") return { type: "message" };
  if (value.type === "not_resumable") {
    return { type: "not_resumable", reason: typeof value.reason === "string" ? value.reason : null };
  }
  return null;
}

function detailHint(request: RuntimeRequestInput, items: readonly TurnItemInput[]): string | null {
  const byRequest = items.find((item) => item.requestId === request.id);
  const item =
    byRequest ??
    (request.nodeId
      ? items.find((candidate) => !candidate.requestId && candidate.nodeId === request.nodeId)
      : undefined);
  if (!item) return null;
  const hint = isNonBlankString(item.title) ? item.title : isNonBlankString(item.text) ? item.text : null;
  return hint === null ? null : keepStart(hint, REQUEST_DETAIL_MAX_CHARACTERS).text;
}

function respondAction(kind: string | null, threadId: string, requestId: string): RespondAction {
  const input = { threadId, requestId };
  if (kind === "user_input") {
    return {
      type: "respond_runtime_request",
      action: "runtime-request.answer",
      tool: ANSWER_REQUEST_TOOL,
      input,
      responseField: "answers",
      requiresUserDecision: true,
    };
  }
  return {
    type: "respond_runtime_request",
    action: "runtime-request.approve",
    tool: APPROVE_REQUEST_TOOL,
    input,
    responseField: "decision",
    requiresUserDecision: true,
  };
}

function nextActionOf(
  entry: Pick<PendingRequest, "kind" | "requestId" | "unavailableReason" | "responseCapability">,
  threadId: string,
): NextAction {
  if (entry.unavailableReason !== null) return { type: "inspect_in_t3", reason: entry.unavailableReason };
  if (entry.responseCapability === null)
    return { type: "inspect_in_t3", reason: "response_capability_unavailable" };
  if (entry.responseCapability.type === "not_resumable")
    return { type: "inspect_in_t3", reason: "request_not_resumable" };
  return respondAction(entry.kind, threadId, entry.requestId);
}

function entryOf(
  request: RuntimeRequestInput,
  items: readonly TurnItemInput[],
  threadId: string,
): PendingRequest {
  const id = request.id ?? "";
  const { content, unavailableReason } = requestContent(request, items);
  const base = {
    runtimeRequestId: id,
    requestId: id,
    kind: request.kind ?? null,
    reason: requestReason(request.kind),
    nodeId: request.nodeId ?? null,
    since: request.createdAt ?? null,
    detail: detailHint(request, items),
    responseCapability: capability(request.responseCapability),
    contentAvailable: content !== null,
    content,
    unavailableReason,
    threadSendAnswersRequest: false as const,
  };
  return { ...base, nextAction: nextActionOf(base, threadId) };
}

function byCreatedAt(a: RuntimeRequestInput, b: RuntimeRequestInput): number {
  const left = parseInstant(a.createdAt) ?? Number.MAX_SAFE_INTEGER;
  const right = parseInstant(b.createdAt) ?? Number.MAX_SAFE_INTEGER;
  return left - right;
}

/**
 * The pending requests of a thread, oldest first, each with its public content and
 * the exact next step — the write tool and target ids to answer it, never an answer; or
 * `inspect_in_t3` when the content or the ability to respond is missing.
 *
 * A request the shell reports but the projection does not hold at all (not even resolved) is
 * appended, so it stays visible, with its content marked unavailable.
 */
export function pendingRequests(
  shell: ShellThreadInput,
  projection: ThreadProjectionInput,
): PendingRequest[] {
  const threadId = shell.id ?? "";
  const items = projectionTurnItems(projection);
  const all = projection.runtimeRequests ?? [];
  // A request without an id cannot be targeted by any write (ids are non-empty on the wire), so such
  // a malformed row is left out; the shell's `pendingRuntimeRequest` still drives the state.
  const entries = all
    .filter((request) => request.status === "pending" && isNonBlankString(request.id))
    .sort(byCreatedAt)
    .map((request) => entryOf(request, items, threadId));

  const shellRequest = shell.pendingRuntimeRequest;
  if (shellRequest?.id && !all.some((request) => request.id === shellRequest.id)) {
    // Built without turn items on purpose: whatever the timeline holds, the request itself is not
    // in this snapshot, so its content cannot be joined reliably.
    entries.push(
      entryOf(
        { id: shellRequest.id, kind: shellRequest.kind ?? null, createdAt: shellRequest.createdAt ?? null },
        [],
        threadId,
      ),
    );
  }
  return entries;
}

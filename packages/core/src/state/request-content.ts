import { isNonBlankString } from "./text.js";
import type { RuntimeRequestInput, TurnItemInput } from "./types.js";

/**
 * The public content of a pending runtime request:
 * the question or approval body joined from its turn item, validated field by field. Only the
 * public fields are copied: native references, provider payloads, prior answers and attachments
 * never leave this module.
 */

export const APPROVAL_REQUEST_KINDS: ReadonlySet<string> = new Set([
  "command",
  "file-read",
  "file-change",
  "permission",
  "mcp-elicitation",
]);

export const APPROVAL_DECISIONS = [
  "accept",
  "acceptForSession",
  "acceptAlways",
  "decline",
  "cancel",
] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];
const DECISIONS: ReadonlySet<string> = new Set(APPROVAL_DECISIONS);

export interface QuestionOption {
  label: string;
  description: string;
  value?: string;
}

export interface UserInputQuestion {
  id: string;
  header: string;
  question: string;
  options: QuestionOption[];
  multiSelect?: boolean;
  allowCustomAnswer?: boolean;
  required?: boolean;
}

export interface UserInputContent {
  type: "user_input";
  questions: UserInputQuestion[];
  responseMode?: "message";
}

export interface ApprovalOption {
  decision: ApprovalDecision;
  label: string;
  warning?: string;
}

export interface ApprovalContent {
  type: "approval";
  prompt: string;
  appName?: string;
  /** Absent when the provider sent no options: none are invented. */
  options?: ApprovalOption[];
}

export type RequestContent = UserInputContent | ApprovalContent;

export type ContentUnavailableReason =
  | "request_detail_not_in_snapshot"
  | "request_detail_incomplete_or_invalid"
  | "unsupported_request_kind";

export type ContentResult =
  | { content: RequestContent; unavailableReason: null }
  | { content: null; unavailableReason: ContentUnavailableReason };

/** Thrown inside the validators only; turned into `request_detail_incomplete_or_invalid`. */
class InvalidContent extends Error {}

function text(value: unknown): string {
  if (!isNonBlankString(value)) throw new InvalidContent();
  return value;
}

function optionalBoolean(value: unknown): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw new InvalidContent();
  return value;
}

function optionalText(value: unknown): string | undefined {
  return value === undefined || value === null ? undefined : text(value);
}

function records(value: unknown): Record<string, unknown>[] {
  if (!Array.isArray(value)) throw new InvalidContent();
  return value.map((entry) => {
    if (entry === null || typeof entry !== "object") throw new InvalidContent();
    return entry as Record<string, unknown>;
  });
}

function questionOption(raw: Record<string, unknown>): QuestionOption {
  const option: QuestionOption = { label: text(raw.label), description: text(raw.description) };
  const value = optionalText(raw.value);
  if (value !== undefined) option.value = value;
  return option;
}

function question(raw: Record<string, unknown>): UserInputQuestion {
  const result: UserInputQuestion = {
    id: text(raw.id),
    header: text(raw.header),
    question: text(raw.question),
    // A free-text question has an empty option list; the list itself must be there.
    options: records(raw.options).map(questionOption),
  };
  for (const flag of ["multiSelect", "allowCustomAnswer", "required"] as const) {
    const value = optionalBoolean(raw[flag]);
    if (value !== undefined) result[flag] = value;
  }
  return result;
}

function userInputContent(item: TurnItemInput): UserInputContent {
  const questions = records(item.questions).map(question);
  if (questions.length === 0) throw new InvalidContent();
  const content: UserInputContent = { type: "user_input", questions };
  if (item.responseMode !== undefined && item.responseMode !== null) {
    if (item.responseMode !== "message") throw new InvalidContent();
    content.responseMode = "message";
  }
  return content;
}

function approvalOption(raw: Record<string, unknown>): ApprovalOption {
  // An unknown decision cannot be submitted through the approve action, so it invalidates the body
  // rather than being dropped silently (dropping would misrepresent the provider's choices).
  if (typeof raw.decision !== "string" || !DECISIONS.has(raw.decision)) throw new InvalidContent();
  const option: ApprovalOption = { decision: raw.decision as ApprovalDecision, label: text(raw.label) };
  const warning = optionalText(raw.warning);
  if (warning !== undefined) option.warning = warning;
  return option;
}

function approvalContent(item: TurnItemInput): ApprovalContent {
  const content: ApprovalContent = { type: "approval", prompt: text(item.prompt) };
  const appName = optionalText(item.appName);
  if (appName !== undefined) content.appName = appName;
  if (item.options !== undefined && item.options !== null)
    content.options = records(item.options).map(approvalOption);
  return content;
}

/**
 * The content item of a request: same `requestId` AND the item type of its kind (and, for an
 * approval, the same `requestKind`). A node match alone never counts: it could be another request.
 */
function contentItem(
  request: RuntimeRequestInput,
  items: readonly TurnItemInput[],
): TurnItemInput | undefined {
  const isQuestion = request.kind === "user_input";
  return items.find(
    (item) =>
      item.requestId === request.id &&
      (isQuestion
        ? item.type === "user_input_request"
        : item.type === "approval_request" && item.requestKind === request.kind),
  );
}

export function requestContent(request: RuntimeRequestInput, items: readonly TurnItemInput[]): ContentResult {
  const kind = request.kind ?? "";
  if (kind !== "user_input" && !APPROVAL_REQUEST_KINDS.has(kind)) {
    return { content: null, unavailableReason: "unsupported_request_kind" };
  }
  const item = request.id ? contentItem(request, items) : undefined;
  if (!item) return { content: null, unavailableReason: "request_detail_not_in_snapshot" };
  try {
    const content = kind === "user_input" ? userInputContent(item) : approvalContent(item);
    return { content, unavailableReason: null };
  } catch (error) {
    if (error instanceof InvalidContent) {
      return { content: null, unavailableReason: "request_detail_incomplete_or_invalid" };
    }
    throw error;
  }
}

/**
 * The person's inbox (ADR 0073): every item that waits on a person, built from one thread read,
 * and the fingerprint of a set of decisions that one passkey assertion covers. Pure: the gate and
 * ops read T3 and hand the reads in; both list the same items under the same ids.
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "../canonical-json.js";
import type { ApprovalDecision, RequestContent } from "./request-content.js";
import type { SecretRequestRef } from "./secret-requests.js";
import type { ThreadRead } from "./thread-read.js";
import { parseInstant } from "./time.js";

export type InboxItemKind = "approval" | "question" | "secret" | "lease";

/** The decisions the inbox offers on an agent's approval: the ones T3 offers, never `acceptAlways`. */
export const INBOX_APPROVAL_DECISIONS = ["accept", "acceptForSession", "decline"] as const;
export type InboxApprovalDecision = (typeof INBOX_APPROVAL_DECISIONS)[number];

export interface InboxEnvironmentRef {
  readonly alias: string;
  readonly environmentId: string;
  /** The machine's own label (the server's), or the alias. */
  readonly machine: string;
}

/** One item that waits on the person. */
export interface InboxItem {
  /** Stable and opaque: the same request has the same id in the gate, in ops and in a push link. */
  readonly itemId: string;
  readonly kind: InboxItemKind;
  readonly environment: InboxEnvironmentRef;
  readonly project: { readonly id: string | null; readonly title: string | null };
  readonly thread: { readonly id: string; readonly title: string | null } | null;
  /** The thread's folder (the project's workspace root or the thread's worktree). */
  readonly directory: string | null;
  readonly provider: string | null;
  readonly model: string | null;
  readonly runtimeMode: string | null;
  /** Approving lets the agent run with no sandbox or approvals: the page says so plainly. */
  readonly fullAccess: boolean;
  /** When it started waiting (ISO), null when unknown. */
  readonly since: string | null;
  readonly waitedMs: number | null;
  /** The agent's last message (bounded), null when none. */
  readonly lastMessage: string | null;
  /** The thread's change summary, null until the diff read supplies one. */
  readonly changeSummary: string | null;
  readonly request: InboxRequest;
}

export type InboxRequest =
  | {
      readonly type: "runtime";
      readonly requestId: string;
      readonly requestKind: string | null;
      /** The command, the paths or the question, as T3 holds them; null when not in the snapshot. */
      readonly content: RequestContent | null;
      /** The agent's stated reason or the matching timeline item's title. */
      readonly detail: string | null;
      /** False when T3 cannot take an answer now (not resumable, content unknown): answer in T3. */
      readonly answerable: boolean;
      readonly decisions: readonly InboxApprovalDecision[];
    }
  | {
      readonly type: "secret";
      readonly requestId: string | null;
      /** What is asked for (a name, never a value). */
      readonly name: string | null;
      readonly answerInT3: true;
    }
  | {
      readonly type: "lease";
      readonly requestId: string;
      readonly client: string | null;
      readonly purpose: string | null;
      /** The approval page of this request, where its scope is shown and decided. */
      readonly approvalUrl: string;
    };

/** One decision of a submitted set: what the fingerprint binds. */
export interface InboxDecision {
  readonly environmentId: string;
  readonly threadId: string;
  readonly requestId: string;
  /** An approval's decision, or `answer` for a question. */
  readonly decision: InboxApprovalDecision | "answer";
  /** A question's answers by question id: an option's label (or value) or text; null for an approval. */
  readonly answers: Readonly<Record<string, string | readonly string[]>> | null;
}

const LAST_MESSAGE_MAX = 600;

function digest(text: string): string {
  return createHash("sha256").update(text).digest("base64url");
}

/** The stable id of an agent's request: the same in the gate, in ops and in a push link. */
export function inboxItemId(environmentId: string, threadId: string, requestId: string): string {
  return `r-${digest(`${environmentId}\u0000${threadId}\u0000${requestId}`).slice(0, 22)}`;
}

/** The stable id of a client's pending lease request. */
export function leaseItemId(requestId: string): string {
  return `l-${digest(`lease\u0000${requestId}`).slice(0, 22)}`;
}

/**
 * The fingerprint one assertion binds: every (environment, thread, request, decision, answers) of
 * the set, in a canonical order, so the same set always gives the same value and any other set
 * (one item more or less, another decision, another answer) a different one.
 */
export function decisionSetFingerprint(decisions: readonly InboxDecision[]): string {
  const rows = decisions
    .map((item) => [item.environmentId, item.threadId, item.requestId, item.decision, item.answers ?? null])
    .map((row) => canonicalJson(row))
    .sort();
  return digest(`t3-connector inbox v1\u0000${rows.join("\n")}`);
}

/** The request id the engine's operationId is derived from: one per request, whatever the decision. */
export function inboxOperationId(decision: Pick<InboxDecision, "environmentId" | "threadId" | "requestId">) {
  return `inbox-${digest(`${decision.environmentId}\u0000${decision.threadId}\u0000${decision.requestId}`).slice(0, 32)}`;
}

function waited(since: string | null, now: number): number | null {
  const at = parseInstant(since);
  return at === null ? null : Math.max(0, now - at);
}

function threadFacts(read: ThreadRead) {
  const runtimeMode = read.runtimeMode;
  const last = read.latestResponse?.text ?? null;
  return {
    project: { id: read.project.projectId, title: "title" in read.project ? read.project.title : null },
    thread: read.threadId === null ? null : { id: read.threadId, title: read.title },
    directory: read.directory,
    provider: read.model.instanceId,
    model: read.model.model,
    runtimeMode,
    fullAccess: runtimeMode === "full-access",
    lastMessage: last === null ? null : last.slice(0, LAST_MESSAGE_MAX),
    changeSummary: null,
  };
}

/**
 * The items one thread read shows: each pending runtime request (approval or question) and each
 * pending secret request, oldest first. A thread that waits on nothing gives none.
 */
export function threadInboxItems(
  environment: InboxEnvironmentRef,
  read: ThreadRead,
  extra: {
    readonly secrets: readonly SecretRequestRef[];
    /** The thread's change summary line (`threadChangeSummary(projection)?.line`). */
    readonly changeSummary: string | null;
    readonly now: number;
  },
): InboxItem[] {
  if (read.threadId === null) return [];
  const { secrets, now } = extra;
  const threadId = read.threadId;
  const facts = { ...threadFacts(read), changeSummary: extra.changeSummary };
  const items: InboxItem[] = [];
  for (const pending of read.pendingRequests) {
    const question = pending.kind === "user_input";
    const answerable = pending.nextAction.type === "respond_runtime_request";
    items.push({
      itemId: inboxItemId(environment.environmentId, threadId, pending.requestId),
      kind: question ? "question" : "approval",
      environment,
      ...facts,
      since: pending.since,
      waitedMs: waited(pending.since, now),
      request: {
        type: "runtime",
        requestId: pending.requestId,
        requestKind: pending.kind,
        content: pending.content,
        detail: pending.detail,
        answerable,
        decisions: question ? [] : approvalDecisions(pending.content),
      },
    });
  }
  for (const secret of secrets) {
    const key = secret.secretRequestId ?? `secret:${secret.name ?? ""}`;
    items.push({
      itemId: inboxItemId(environment.environmentId, threadId, key),
      kind: "secret",
      environment,
      ...facts,
      since: secret.since,
      waitedMs: waited(secret.since, now),
      request: { type: "secret", requestId: secret.secretRequestId, name: secret.name, answerInT3: true },
    });
  }
  return items;
}

/** The decisions T3 offers for this approval: its own options where it lists them, else all three. */
function approvalDecisions(content: RequestContent | null): InboxApprovalDecision[] {
  const offered =
    content?.type === "approval" && content.options !== undefined
      ? new Set<ApprovalDecision>(content.options.map((option) => option.decision))
      : null;
  const all = [...INBOX_APPROVAL_DECISIONS];
  if (offered === null) return all;
  const kept = all.filter((decision) => offered.has(decision) || decision === "decline");
  return kept.length === 0 ? all : kept;
}

/** Oldest waiting first; an item whose start is unknown last; ties by id, so the order is stable. */
export function sortInbox<T extends Pick<InboxItem, "since" | "itemId">>(items: readonly T[]): T[] {
  const at = (item: T) => parseInstant(item.since) ?? Number.MAX_SAFE_INTEGER;
  return [...items].sort((a, b) => at(a) - at(b) || (a.itemId < b.itemId ? -1 : 1));
}

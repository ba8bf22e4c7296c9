/**
 * `inbox` and `answer` (ADR 0073): what waits on the person in every configured environment, read
 * fresh, as the gate's `/inbox` lists it (core's one inbox model, the same item ids); and one
 * item answered with the operator's token, as every ops verb acts: the catalogue's
 * `runtime-request.approve` or `.answer` through `act`, its operationId derived from the request,
 * so a repeat carries the same derived ids and T3 replays its receipt instead of applying it twice.
 * A secret request is never answered here: only in T3.
 */
import { ConnectorError } from "@t3-connector/core";
import { environmentInboxItems } from "@t3-connector/core/environments";
import {
  INBOX_APPROVAL_DECISIONS,
  type InboxApprovalDecision,
  type InboxItem,
  inboxOperationId,
  sortInbox,
} from "@t3-connector/core/state";
import { type ActResult, act } from "./act.js";
import type { OpsEnvironments } from "./environments.js";

export interface InboxListing {
  items: InboxItem[];
  /** Environments that did not answer: their items are unknown, not absent. */
  unavailable: { alias: string; reason: string }[];
}

export async function listInbox(environments: OpsEnvironments, only?: string): Promise<InboxListing> {
  const now = environments.clock.now();
  const unavailable: InboxListing["unavailable"] = [];
  const names = only === undefined ? environments.names() : [environments.resolve(only).config.alias];
  const perEnvironment = await Promise.all(
    names.map(async (alias) => {
      try {
        return await environmentInboxItems(
          await environments.connect(alias),
          now,
          AbortSignal.timeout(15_000),
        );
      } catch (error) {
        unavailable.push({
          alias,
          reason: error instanceof ConnectorError ? error.code : "environment_unavailable",
        });
        return [];
      }
    }),
  );
  return { items: sortInbox(perEnvironment.flat()), unavailable };
}

export interface AnswerRequest {
  itemId: string;
  /** An approval's decision. */
  decision?: InboxApprovalDecision;
  /** A question's answers by question id. */
  answers?: Record<string, string>;
}

export type AnswerResult = ActResult & { itemId: string };

export async function answerInboxItem(
  environments: OpsEnvironments,
  request: AnswerRequest,
): Promise<AnswerResult> {
  const { items } = await listInbox(environments);
  const item = items.find((candidate) => candidate.itemId === request.itemId);
  if (item === undefined || item.thread === null || item.request.type !== "runtime") {
    throw new ConnectorError(
      "invalid_input",
      item?.request.type === "secret"
        ? "a secret request is answered in T3 itself; its value never travels through the connector"
        : `nothing waits under ${request.itemId} now: it was answered, or it is gone (t3-connector-ops inbox lists what waits)`,
    );
  }
  const target = { threadId: item.thread.id, requestId: item.request.requestId };
  const operationId = inboxOperationId({ environmentId: item.environment.environmentId, ...target });
  if (item.kind === "question") {
    if (request.answers === undefined || Object.keys(request.answers).length === 0) {
      throw new ConnectorError("invalid_input", "a question is answered with --answer <questionId>=<text>");
    }
    const result = await act(
      environments,
      item.environment.alias,
      "runtime-request.answer",
      {
        ...target,
        answers: request.answers,
      },
      { operationId },
    );
    return { ...result, itemId: item.itemId };
  }
  const decision = request.decision;
  if (decision === undefined || !INBOX_APPROVAL_DECISIONS.includes(decision)) {
    throw new ConnectorError(
      "invalid_input",
      `an approval is answered with --decision ${INBOX_APPROVAL_DECISIONS.join("|")}`,
    );
  }
  const result = await act(
    environments,
    item.environment.alias,
    "runtime-request.approve",
    { ...target, decision },
    {
      operationId,
    },
  );
  return { ...result, itemId: item.itemId };
}

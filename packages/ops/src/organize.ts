/**
 * `organize <ref>`: pin, unpin, rename, archive or unarchive a thread through the catalogue
 * action of the same name, sent by `act` (same schemas, derived ids, guards), then confirmed on the
 * thread as read back — archived threads included, from the archived shell snapshot.
 */
import { ConnectorError } from "@t3-connector/core";
import type { ActionId } from "@t3-connector/write-engine/actions";
import { type ActResult, act, type ConfirmedThread } from "./act.js";
import type { OpsEnvironments } from "./environments.js";
import { resolveThread } from "./references.js";

export type OrganizeChange =
  | { kind: "pin" }
  | { kind: "unpin" }
  | { kind: "archive" }
  | { kind: "unarchive" }
  | { kind: "title"; title: string };

const ACTION: Record<OrganizeChange["kind"], ActionId> = {
  pin: "thread.pin",
  unpin: "thread.unpin",
  archive: "thread.archive",
  unarchive: "thread.unarchive",
  title: "thread.title",
};

export interface OrganizeResult {
  threadId: string;
  change: OrganizeChange["kind"];
  /** The thread's title as read back (a rename is confirmed on it). */
  title: string | null;
  operation: ActResult;
}

function confirmed(change: OrganizeChange, thread: ConfirmedThread | undefined): boolean {
  if (thread === undefined || !thread.present) return false;
  switch (change.kind) {
    case "pin":
      return thread.pinned;
    case "unpin":
      return !thread.pinned;
    case "archive":
      return thread.archived;
    case "unarchive":
      return !thread.archived;
    case "title":
      return true; // checked on the title read back below
  }
}

export async function organizeThread(
  environments: OpsEnvironments,
  environment: string | undefined,
  reference: string,
  change: OrganizeChange,
  options: { operationId: string; namespace?: string },
): Promise<OrganizeResult> {
  // Only an archived thread can be unarchived, and it is in the archived snapshot alone.
  const archived = change.kind === "unarchive";
  const { env, thread } = await resolveThread(environments, reference, environment, { archived });
  const action = ACTION[change.kind];
  const input =
    change.kind === "title" ? { threadId: thread.id, title: change.title } : { threadId: thread.id };
  const operation = await act(environments, env.config.alias, action, input, {
    operationId: options.operationId,
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
  });
  const readBack = change.kind === "title" ? await titleOf(environments, env.config.alias, thread.id) : null;
  const ok =
    confirmed(change, operation.confirmation[0]) && (change.kind !== "title" || readBack === change.title);
  if (!ok) {
    throw new ConnectorError(
      "connection_lost",
      `T3 accepted ${action} but ${thread.id} does not read back with it; read the thread before repeating`,
      { details: { uncertain: true, threadId: thread.id, commandId: operation.commandId } },
    );
  }
  return {
    threadId: thread.id,
    change: change.kind,
    title: readBack ?? thread.title,
    operation,
  };
}

async function titleOf(
  environments: OpsEnvironments,
  alias: string,
  threadId: string,
): Promise<string | null> {
  const { thread } = await resolveThread(environments, threadId, alias, { archived: true });
  return thread.title;
}

/**
 * Looking for the effect of an `uncertain` write by reading T3 (never by sending). The derived ids
 * make each effect findable; how, per command kind:
 *
 * - `thread.launch`: a thread with the derived `threadId` exists (shell or archived shell).
 * - `thread.fork`: a thread with the derived `targetThreadId` exists.
 * - `thread.send`: the thread projection holds a message with the derived `messageId`
 *   (T3 gives the user message the id sent; a run's `userMessageId` is the same id).
 * - `thread.delete`: the thread is gone from both shells. Its events cannot be replayed any more,
 *   and a deleted thread is the effect whoever deleted it.
 * - every other command: a thread event produced by this command, found by replaying the
 *   thread's stored events after the shell sequence read just before the send. T3 names the events
 *   a command produced `event:thread:<threadId>:command:<commandId>:<uuid>` (fixtures 37, 54, 56),
 *   and a command that produces no event is rejected by T3, so an accepted
 *   command always leaves one. Overlay changes (pin, settle, …) are not inferred from thread state:
 *   another client may have made the same change.
 *
 * - `project.create`: a live project with the derived `projectId` exists; `project.delete`: the
 *   project is gone (whoever deleted it); `project.meta.update` leaves nothing that names its
 *   command, so it is never found by reading (a resend is deduped by T3 on its commandId, fixture 112).
 *
 * A "not found" is `conclusive` only when T3 was read in full (no missing id, no replay window
 * exceeded): it says the effect is not there now, never that it cannot arrive later.
 */

import { ConnectorError, isConnectorError } from "@t3-connector/core";
import type { ConnectedEnvironment } from "@t3-connector/core/environments";
import { HINT_PROJECT, hintAfterSequence, hintThreads } from "./derived-record.js";
import { readFreshThreads } from "./fresh-shell.js";
import type { Observation } from "./types.js";

export async function observe(
  action: string,
  ids: Readonly<Record<string, string>>,
  environment: ConnectedEnvironment,
  timeoutMs: number,
): Promise<Observation> {
  const threads = hintThreads(ids);
  switch (action) {
    case "thread.launch":
      return threadExists(environment, ids.threadId, "launched_thread_in_shell");
    case "thread.fork":
      return threadExists(environment, ids.targetThreadId, "forked_thread_in_shell");
    case "thread.send":
      return messageInProjection(environment, threads[0], ids.messageId);
    case "thread.delete":
      return threadGone(environment, threads[0]);
    case "project.create":
      return projectState(environment, ids.projectId, "created_project_listed", true);
    case "project.delete":
      return projectState(environment, ids[HINT_PROJECT], "deleted_project_absent", false);
    case "project.meta.update":
      return {
        method: "project_update_unobservable",
        found: false,
        conclusive: false,
        reason: "a project update leaves no trace of its command; settle it by a resend (T3 dedupes it)",
      };
    default:
      return commandEvent(environment, threads, ids.commandId, hintAfterSequence(ids) ?? 0, timeoutMs);
  }
}

/** Whether the project is listed live now; `present` says which answer is the effect. */
async function projectState(
  environment: ConnectedEnvironment,
  projectId: string | undefined,
  method: string,
  present: boolean,
): Promise<Observation> {
  if (projectId === undefined) return missingId(method);
  const { projects } = await environment.http.getProjects();
  const live = projects.some((project) => project.id === projectId && !project.deletedAt);
  if (live === present) return { method, found: true, receipt: { projectId, observed: method } };
  return {
    method,
    found: false,
    conclusive: true,
    reason: present ? `no project ${projectId} exists (yet)` : `project ${projectId} still exists`,
  };
}

function missingId(method: string): Observation {
  return { method, found: false, conclusive: false, reason: "the record holds no id to look for" };
}

async function threadExists(
  environment: ConnectedEnvironment,
  threadId: string | undefined,
  method: string,
): Promise<Observation> {
  if (threadId === undefined) return missingId(method);
  const fresh = await readFreshThreads(environment, [threadId]);
  return fresh.found.has(threadId)
    ? { method, found: true, receipt: { threadId, observed: method } }
    : { method, found: false, conclusive: true, reason: `no thread ${threadId} exists (yet)` };
}

async function threadGone(environment: ConnectedEnvironment, threadId: string | undefined) {
  const method = "deleted_thread_absent";
  if (threadId === undefined) return missingId(method);
  const fresh = await readFreshThreads(environment, [threadId]);
  return fresh.found.has(threadId)
    ? { method, found: false, conclusive: true, reason: `thread ${threadId} still exists` }
    : { method, found: true, receipt: { threadId, observed: method } };
}

async function messageInProjection(
  environment: ConnectedEnvironment,
  threadId: string | undefined,
  messageId: string | undefined,
): Promise<Observation> {
  const method = "message_in_projection";
  if (threadId === undefined || messageId === undefined) return missingId(method);
  try {
    const snapshot = await environment.http.getThread(threadId);
    const message = snapshot.projection.messages.find((item) => item.id === messageId);
    if (message === undefined)
      return { method, found: false, conclusive: true, reason: `no message ${messageId} in the thread` };
    return {
      method,
      found: true,
      receipt: { messageId, runId: message.runId ?? null, observed: method },
    };
  } catch (error) {
    if (isConnectorError(error, "thread_not_found")) {
      return { method, found: false, conclusive: true, reason: `thread ${threadId} does not exist` };
    }
    throw error;
  }
}

async function commandEvent(
  environment: ConnectedEnvironment,
  threadIds: readonly string[],
  commandId: string | undefined,
  afterSequence: number,
  timeoutMs: number,
): Promise<Observation> {
  const method = "command_event_in_thread";
  if (commandId === undefined || threadIds.length === 0) return missingId(method);
  const reasons: string[] = [];
  let conclusive = true;
  for (const threadId of threadIds) {
    const replay = await replayEvents(environment, threadId, afterSequence, commandId, timeoutMs);
    if (replay.sequences.length > 0) {
      return {
        method,
        found: true,
        receipt: { sequence: Math.max(...replay.sequences), threadId, observed: method },
      };
    }
    if (replay.snapshotOnly) conclusive = false;
    reasons.push(
      replay.snapshotOnly
        ? `thread ${threadId}: too many events since the send to replay them; inspect it in T3`
        : `thread ${threadId}: no event from command ${commandId} after sequence ${afterSequence}`,
    );
  }
  return { method, found: false, conclusive, reason: reasons.join("; ") };
}

interface Replay {
  readonly sequences: number[];
  /** T3 answered with a snapshot instead of the events (the replay window was exceeded). */
  readonly snapshotOnly: boolean;
}

async function replayEvents(
  environment: ConnectedEnvironment,
  threadId: string,
  afterSequence: number,
  commandId: string,
  timeoutMs: number,
): Promise<Replay> {
  const rpc = await environment.rpc();
  const marker = `:command:${commandId}:`;
  const sequences: number[] = [];
  let snapshotOnly = false;
  let synchronized = false;
  const subscription = rpc.subscribeThread({
    threadId,
    afterSequence,
    requestCompletionMarker: true,
    signal: AbortSignal.timeout(timeoutMs),
    onItem: (item) => {
      if (synchronized) return;
      if (item.kind === "event" && typeof item.event.id === "string" && item.event.id.includes(marker)) {
        sequences.push(item.sequence);
      } else if (item.kind === "snapshot") {
        snapshotOnly = true;
      } else if (item.kind === "synchronized") {
        synchronized = true;
        subscription.close();
      }
    },
  });
  await subscription.done;
  if (!synchronized) {
    throw new ConnectorError("invalid_response", `the replay of thread ${threadId} ended early`);
  }
  return { sequences, snapshotOnly };
}

/**
 * The five command types current upstream added (docs/t3-protocol-notes.md, "The five newer
 * command types"). Two are user actions (`prepared-run.retry`, `thread.pull-request.watch`); the
 * other three are sent only by the server to keep itself in sync (`thread.pull-request-link.sync`,
 * `thread.pull-request.sync`, `notification.delivery.accept`): the simulator decodes and applies
 * them like upstream so tests can play the server's side, but nothing of the connector sends them.
 *
 * Whole-thread changes emit `thread.pull-request-synced` with the whole thread (V2 has no
 * pull-request link/watch events of its own).
 */
import { activeRun } from "../projection.js";
import { attemptItemPlace } from "../run-records.js";
import type { ThreadRecord, Tx } from "../store.js";
import type {
  LinkedPullRequest,
  PullRequestSnapshot,
  PullRequestWatch,
  Run,
  ThreadPullRequestLink,
  TurnItem,
} from "../types.js";
import { type CommandHandler, reject, requireThread, str } from "./context.js";

/** The "Preparing workspace" `command_execution` item of a prepared run. */
export const prepareItemIdFor = (runId: string): string =>
  `turn-item:run:${encodeURIComponent(runId)}:prepare-workspace`;

/** Failure code of the error item a failed workspace preparation leaves (upstream's constant). */
export const WORKSPACE_PREPARATION_FAILURE_CODE = "workspace_preparation_failed";

export function openPrepareItem(tx: Tx, run: Run): TurnItem {
  const existing = tx.record.turnItems.get(prepareItemIdFor(run.id));
  if (existing) {
    // Reopened without the previous attempt's output and exit code.
    const { output: _output, exitCode: _exit, ...rest } = existing;
    return tx.item({ ...rest, status: "running", completedAt: null, updatedAt: tx.now } as TurnItem);
  }
  return tx.item({
    id: prepareItemIdFor(run.id),
    ...attemptItemPlace(tx, run, undefined, null),
    parentItemId: null,
    ordinal: tx.nextItemOrdinal(),
    status: "running",
    title: "Preparing workspace",
    startedAt: tx.now,
    completedAt: null,
    updatedAt: tx.now,
    type: "command_execution",
    input: "Preparing workspace",
  });
}

export function failPrepareItem(tx: Tx, run: Run, message: string): void {
  const item = tx.record.turnItems.get(prepareItemIdFor(run.id));
  if (!item) return;
  tx.item({
    ...item,
    status: "failed",
    output: message,
    exitCode: 1,
    completedAt: tx.now,
    updatedAt: tx.now,
  });
}

function requireRun(record: ThreadRecord, runId: string): Run {
  const run = record.runs.get(runId);
  if (!run) reject(`Run ${runId} does not exist on thread ${record.thread.id}.`);
  return run;
}

/** A run whose workspace preparation failed: the prepare item is there and failed. */
function failedPreparation(record: ThreadRecord, run: Run): boolean {
  return run.status === "failed" && record.turnItems.get(prepareItemIdFor(run.id))?.status === "failed";
}

/** A user retries a failed workspace preparation: the run goes back to `preparing`. */
export const preparedRunRetry: CommandHandler = (ctx, c) => {
  const record = requireThread(ctx, c.threadId);
  const run = requireRun(record, str(c, "runId"));
  if (!failedPreparation(record, run))
    reject(`Run ${run.id} is ${run.status}; only a failed workspace preparation can be retried.`);
  const busy = activeRun(record);
  if (busy) reject(`Thread ${record.thread.id} already has an active run (${busy.id}).`);
  return ctx.store.transact(record, c.commandId, (tx) => {
    const again = tx.run({ ...run, status: "preparing", completedAt: null });
    openPrepareItem(tx, again);
  });
};

const samePullRequest = (link: ThreadPullRequestLink, c: Record<string, unknown>): boolean =>
  link.host === c.host && link.repository === c.repository && link.number === Number(c.number);

/** The legacy single link follows the newest link (as `thread.pull-request.link` keeps it). */
function legacyLink(projectId: string, links: ThreadPullRequestLink[]): LinkedPullRequest | null {
  const last = links.filter((link) => link.source !== "stack-dismissed").at(-1);
  return last ? { projectId, repository: last.repository, number: last.number, url: last.url } : null;
}

function syncLinks(tx: Tx, links: ThreadPullRequestLink[]): void {
  tx.thread("thread.pull-request-synced", {
    pullRequests: links,
    linkedPullRequest: legacyLink(tx.record.thread.projectId, links),
  });
}

const CLOSED_STATES = new Set(["merged", "closed"]);

function newWatch(now: string, paused: boolean | undefined): PullRequestWatch {
  return {
    startedAt: now,
    headSha: null,
    failedChecks: [],
    passed: false,
    passedChecks: [],
    remarksThrough: null,
    remarkIds: [],
    conflicting: false,
    wakes: 0,
    ...(paused === undefined ? {} : { paused }),
  };
}

/**
 * "Watch for changes" on a pull request. Watching one that is not linked links it in the same
 * command (with `link`); a pull request whose last refresh says it is not open is refused.
 */
export const pullRequestWatch: CommandHandler = (ctx, c) => {
  const record = requireThread(ctx, c.threadId);
  const current = record.thread.pullRequests ?? [];
  const existing = current.find((link) => samePullRequest(link, c));
  const link = c.link as { url: string; source: "agent" | "manual" } | undefined;
  const label = `${str(c, "repository")}#${String(c.number)}`;
  if (!existing && !link) reject(`Pull request ${label} is not linked to thread ${record.thread.id}.`);
  const watching = c.watching === true;
  if (watching && existing?.snapshot && existing.snapshot.state !== "open")
    reject(`Pull request ${label} is ${existing.snapshot.state}; only an open pull request can be watched.`);
  // The 0.0.46 age may ignore `paused` as an excess key (the newer schema has none, age-0046.ts).
  const paused =
    ctx.store.unknowns.pullRequestWatchPaused === "kept" ? (c.paused as boolean | undefined) : undefined;
  return ctx.store.transact(record, c.commandId, (tx) => {
    const base: ThreadPullRequestLink = existing ?? {
      host: str(c, "host"),
      repository: str(c, "repository"),
      number: Number(c.number),
      url: link?.url ?? "",
      source: link?.source ?? "manual",
      linkedAt: tx.now,
      snapshot: null,
      stack: null,
    };
    const watch = watching
      ? base.watch
        ? { ...base.watch, ...(paused === undefined ? {} : { paused }) }
        : newWatch(tx.now, paused)
      : null;
    const updated: ThreadPullRequestLink = { ...base, watch };
    const links = existing
      ? current.map((other) => (other === existing ? updated : other))
      : [...current, updated];
    syncLinks(tx, links);
  });
};

/** Server only: refreshes one linked pull request; a merge or close ends its watch. */
export const pullRequestLinkSync: CommandHandler = (ctx, c) => {
  const record = requireThread(ctx, c.threadId);
  const current = record.thread.pullRequests ?? [];
  const existing = current.find((link) => samePullRequest(link, c));
  if (!existing)
    reject(
      `Pull request ${str(c, "repository")}#${String(c.number)} is not linked to thread ${record.thread.id}.`,
    );
  const snapshot = c.snapshot as PullRequestSnapshot;
  const ended = CLOSED_STATES.has(snapshot.state);
  return ctx.store.transact(record, c.commandId, (tx) => {
    const updated: ThreadPullRequestLink = {
      ...existing,
      snapshot,
      stack: c.stack ?? null,
      ...(ended && existing.watch ? { watch: null } : {}),
    };
    syncLinks(
      tx,
      current.map((other) => (other === existing ? updated : other)),
    );
  });
};

interface SyncExpectation {
  workspaceRoot: string;
  branch: string | null;
  worktreePath: string | null;
  linkedPullRequest: LinkedPullRequest | null;
  branchPullRequest: LinkedPullRequest | null;
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * Server only: records the pull request found for the thread's branch. Refused when the thread
 * was deleted or archived, or when what the server expected no longer holds.
 */
export const pullRequestSync: CommandHandler = (ctx, c) => {
  const record = requireThread(ctx, c.threadId);
  const thread = record.thread;
  if (thread.archivedAt) reject(`Thread ${thread.id} is archived.`);
  const expected = c.expected as SyncExpectation;
  const project = ctx.store.projects.get(thread.projectId);
  const now = {
    workspaceRoot: project?.workspaceRoot ?? null,
    branch: thread.branch,
    worktreePath: thread.worktreePath,
    linkedPullRequest: thread.linkedPullRequest ?? null,
    branchPullRequest: thread.branchPullRequest ?? null,
  };
  for (const key of Object.keys(now) as (keyof typeof now)[]) {
    if (!sameJson(now[key], expected[key]))
      reject(`Thread ${thread.id} changed (${key}) since the pull-request sync was planned.`);
  }
  return ctx.store.transact(record, c.commandId, (tx) => {
    tx.thread("thread.pull-request-synced", {
      branchPullRequest: (c.branchPullRequest as LinkedPullRequest | null) ?? null,
      ...(c.linkedPullRequest !== undefined
        ? { linkedPullRequest: c.linkedPullRequest as LinkedPullRequest | null }
        : {}),
    });
  });
};

/**
 * Server only (the mailbox): a delegated completion message was accepted by the provider, so its
 * tasks' completions become `delivered`. A repeat changes nothing.
 */
export const notificationDeliveryAccept: CommandHandler = (ctx, c) => {
  const record = requireThread(ctx, c.threadId);
  const message = record.messages.get(str(c, "messageId"));
  if (!message) reject(`Message ${str(c, "messageId")} does not exist on thread ${record.thread.id}.`);
  const completion = (message as { delegatedCompletion?: { parentRunId: string; taskIds: string[] } })
    .delegatedCompletion;
  if (!completion) reject(`Message ${message.id} carries no delegated completion.`);
  return ctx.store.transact(record, c.commandId, (tx) => {
    let changed = false;
    for (const taskId of completion.taskIds) {
      const task = tx.record.subagents.get(taskId);
      if (!task || task.completionDelivery?.state === "delivered") continue;
      tx.subagent({
        ...task,
        completionDelivery: { state: "delivered", observedByRunId: message.runId },
        updatedAt: tx.now,
      });
      changed = true;
    }
    const run = tx.record.runs.get(completion.parentRunId);
    if (changed && run) tx.run({ ...run });
  });
};

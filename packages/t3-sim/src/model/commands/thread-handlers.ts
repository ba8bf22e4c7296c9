/**
 * Thread commands: creation, archive/delete, and the overlays (settle, snooze, pin,
 * visit). Overlays never change `status` (fixtures 23-25, 90); snooze expiry needs no event.
 */
import { runtimeModeRank, threadAboveModeLimit } from "../orchestrator-errors.js";
import { newThreadRecord, type ThreadRecord } from "../store.js";
import type { AppThread, LinkedPullRequest, ModelSelection, ThreadPullRequestLink } from "../types.js";
import { type CommandContext, type CommandHandler, opt, reject, requireThread, str } from "./context.js";

/** The patch that drops a pin, empty when the thread is not pinned. */
const unpinned = (thread: AppThread): Partial<AppThread> =>
  thread.pinnedAt ? { pinnedAt: null, pinOrderKey: undefined } : {};

const maxIso = (a: string | null, b: string): string => (a && Date.parse(a) >= Date.parse(b) ? a : b);

export const threadCreate: CommandHandler = (ctx, c) => {
  const threadId = str(c, "threadId");
  // A deleted id stays taken: T3 keeps the tombstone.
  if (ctx.store.threads.has(threadId)) reject(`Thread ${threadId} already exists.`);
  // T3 does not check the project here; message.dispatch does (fixtures 20b/20c).
  return createThread(ctx, c.commandId, {
    id: threadId,
    projectId: str(c, "projectId"),
    title: str(c, "title"),
    modelSelection: c.modelSelection as ModelSelection,
    runtimeMode: str(c, "runtimeMode"),
    interactionMode: str(c, "interactionMode"),
    branch: (c.branch as string | null) ?? null,
    worktreePath: (c.worktreePath as string | null) ?? null,
    createdBy: c.createdBy as AppThread["createdBy"],
    creationSource: c.creationSource as AppThread["creationSource"],
  });
};

export interface NewThreadFields {
  id: string;
  projectId: string;
  title: string;
  modelSelection: ModelSelection;
  runtimeMode: string;
  interactionMode: string;
  branch: string | null;
  worktreePath: string | null;
  createdBy: AppThread["createdBy"];
  creationSource: AppThread["creationSource"];
  lineage?: AppThread["lineage"];
  forkedFrom?: AppThread["forkedFrom"];
}

export function createThread(ctx: CommandContext, commandId: string | null, fields: NewThreadFields): number {
  const now = ctx.store.iso();
  const thread: AppThread = {
    createdBy: fields.createdBy,
    creationSource: fields.creationSource,
    id: fields.id,
    projectId: fields.projectId,
    title: fields.title,
    providerInstanceId: fields.modelSelection.instanceId,
    modelSelection: fields.modelSelection,
    runtimeMode: fields.runtimeMode,
    interactionMode: fields.interactionMode,
    branch: fields.branch,
    worktreePath: fields.worktreePath,
    activeProviderThreadId: null,
    lineage: fields.lineage ?? { parentThreadId: null, relationshipToParent: null, rootThreadId: fields.id },
    forkedFrom: fields.forkedFrom ?? null,
    createdAt: now,
    updatedAt: now,
    archivedAt: null,
    settledOverride: null,
    settledAt: null,
    snoozedUntil: null,
    snoozedAt: null,
    lastVisitedAt: null,
    deletedAt: null,
  };
  const record = newThreadRecord(thread);
  return ctx.store.transact(record, commandId, (tx) => void tx.thread("thread.created", {}), true);
}

type Command = Parameters<CommandHandler>[1];

const simple =
  (apply: (ctx: CommandContext, threadId: string, c: Command) => number): CommandHandler =>
  (ctx, c) =>
    apply(ctx, str(c, "threadId"), c);

/**
 * Most thread commands: the thread must exist and one event patches it. `patchOf` may refuse the
 * command (`reject`); `now` is the commit's time. Nothing is stored until it answers.
 */
const patchThread = (
  event: string,
  patchOf: (record: ThreadRecord, c: Command, now: string, ctx: CommandContext) => Partial<AppThread>,
): CommandHandler =>
  simple((ctx, threadId, c) => {
    const record = requireThread(ctx, threadId);
    return ctx.store.transact(
      record,
      c.commandId,
      (tx) => void tx.thread(event, patchOf(record, c, tx.now, ctx)),
    );
  });

// Repeats are accepted without change, like unpin (fixture 52).
export const threadArchive = patchThread("thread.archived", (record, _c, now) => ({
  archivedAt: record.thread.archivedAt ?? now,
}));

export const threadUnarchive = patchThread("thread.unarchived", () => ({ archivedAt: null }));

export const threadDelete = simple((ctx, threadId, c) => {
  const record = requireThread(ctx, threadId);
  ctx.engine.stopThread(threadId);
  return ctx.store.transact(
    record,
    c.commandId,
    (tx) => void tx.thread("thread.deleted", { deletedAt: tx.now }),
  );
});

// Settling clears the pin on 0.0.31 (fixture 50: the settled T4 lost its pinnedAt).
export const threadSettle = patchThread("thread.settled", (record, c, now) => ({
  settledOverride: "settled",
  settledAt: opt<string>(c, "settledAt") ?? now,
  ...unpinned(record.thread),
}));

/** Server-internal (#8600): refused when the thread changed after snapshotAt or has an override. */
export const threadAutoSettle = patchThread("thread.settled", (record, c, now) => {
  const threadId = record.thread.id;
  if (record.thread.settledOverride !== null)
    reject(`Thread ${threadId} has an explicit settlement override.`);
  if (Date.parse(record.thread.updatedAt) > Date.parse(str(c, "snapshotAt"))) {
    reject(`Thread ${threadId} changed after the settlement snapshot.`);
  }
  return { settledAt: opt<string>(c, "settledAt") ?? now, ...unpinned(record.thread) };
});

export const threadUnsettle = patchThread("thread.unsettled", (_record, _c, now) => ({
  settledOverride: "active",
  settledAt: null,
  unsettledAt: now,
}));

export const threadSnooze = patchThread("thread.snoozed", (_record, c, now) => ({
  snoozedUntil: str(c, "snoozedUntil"),
  snoozedAt: now,
}));

export const threadUnsnooze = patchThread("thread.unsnoozed", () => ({
  snoozedUntil: null,
  snoozedAt: null,
}));

export const threadPin = patchThread("thread.pinned", (_record, c, now) => {
  const orderKey = opt<string>(c, "orderKey");
  return { pinnedAt: now, ...(orderKey ? { pinOrderKey: orderKey } : {}) };
});

// Accepted even when not pinned (fixture 52): a new sequence, no change.
export const threadUnpin = patchThread("thread.unpinned", () => ({ pinnedAt: null, pinOrderKey: undefined }));

export const threadPinReorder = patchThread("thread.pin-reordered", (record, c) => {
  if (!record.thread.pinnedAt) reject(`Thread ${record.thread.id} is not pinned.`);
  return { pinOrderKey: str(c, "orderKey") };
});

/** Newer command: the position of a thread in the active list, a fractional index. */
export const threadActiveReorder = patchThread("thread.active-reordered", (_record, c) => ({
  activeOrderKey: str(c, "orderKey"),
}));

/**
 * Newer command: turns automatic settling of one thread on or off. Upstream's event is
 * `thread.auto-settle-set` with the whole thread; off is `autoSettleDisabledAt`.
 */
export const threadAutoSettleSet = patchThread("thread.auto-settle-set", (record, c, _now, ctx) => ({
  autoSettleDisabledAt: c.enabled === true ? null : (record.thread.autoSettleDisabledAt ?? ctx.store.iso()),
}));

/** The server keeps the maximum of the stored and the supplied watermark. */
export const threadVisit = patchThread("thread.visited", (record, c) => ({
  lastVisitedAt: maxIso(record.thread.lastVisitedAt, str(c, "visitedAt")),
}));

export const threadMarkUnread = patchThread("thread.marked-unread", () => ({ lastVisitedAt: null }));

const REGENERATION_DELAY_MS = 20;

export const threadMetadataUpdate = simple((ctx, threadId, c) => {
  const record = requireThread(ctx, threadId);
  const expected = c.expectedWorktreePath;
  if (expected !== undefined && expected !== record.thread.worktreePath) {
    reject(
      `Thread ${threadId} worktree is ${record.thread.worktreePath ?? "null"}, not ${String(expected)}.`,
    );
  }
  if (c.expectedEmpty === true && record.messages.size > 0) reject(`Thread ${threadId} is not empty.`);
  const patch: Partial<AppThread> = {};
  if (c.title !== undefined) patch.title = str(c, "title");
  if (c.branch !== undefined) patch.branch = c.branch as string | null;
  if (c.worktreePath !== undefined) patch.worktreePath = c.worktreePath as string | null;
  if (c.linkedPullRequest !== undefined)
    patch.linkedPullRequest = c.linkedPullRequest as LinkedPullRequest | null;
  if (c.regenerateTitle === true)
    patch.titleRegeneration = { requestId: c.commandId, startedAt: ctx.store.iso() };
  if (c.regenerateTitle === false) patch.titleRegeneration = null;
  if (Object.keys(patch).length === 0) reject("thread.metadata.update changes nothing.");
  const sequence = ctx.store.transact(
    record,
    c.commandId,
    (tx) => void tx.thread("thread.metadata-updated", patch),
  );
  if (c.regenerateTitle === true) {
    // The title generator answers a little later through the internal completion command.
    ctx.clockTimer(REGENERATION_DELAY_MS, () => {
      const live = ctx.store.liveThread(threadId);
      if (live?.thread.titleRegeneration?.requestId !== c.commandId) return;
      const firstUser = [...live.messages.values()].find((m) => m.role === "user")?.text ?? live.thread.title;
      ctx.store.transact(live, null, (tx) => {
        tx.thread("thread.metadata-updated", {
          title: firstUser.slice(0, 60) || live.thread.title,
          titleRegeneration: null,
        });
      });
    });
  }
  return sequence;
});

export const threadTitleRegenerationComplete = patchThread("thread.metadata-updated", (record, c) => {
  if (record.thread.titleRegeneration?.requestId !== str(c, "requestId")) {
    reject(`No title regeneration ${str(c, "requestId")} is in flight.`);
  }
  const title = opt<string>(c, "title");
  return { ...(title ? { title } : {}), titleRegeneration: null };
});

/**
 * A delegated task's thread cannot run above its parent's mode (the simulator's reading of
 * upstream's `OrchestratorThreadAboveModeLimitError`, docs/simulator-fidelity.md).
 */
function modeCeiling(ctx: CommandContext, thread: AppThread): string | null {
  if (thread.lineage.relationshipToParent !== "subagent" || !thread.lineage.parentThreadId) return null;
  return ctx.store.liveThread(thread.lineage.parentThreadId)?.thread.runtimeMode ?? null;
}

export const threadRuntimeModeSet = patchThread("thread.runtime-mode-updated", (record, c, _now, ctx) => {
  const ceiling = ctx.newer ? modeCeiling(ctx, record.thread) : null;
  if (ceiling !== null && runtimeModeRank(str(c, "runtimeMode")) > runtimeModeRank(ceiling)) {
    throw threadAboveModeLimit(
      record.thread.id,
      ceiling,
      str(c, "runtimeMode"),
      record.thread.interactionMode,
    );
  }
  return { runtimeMode: str(c, "runtimeMode") };
});

export const threadInteractionModeSet = patchThread("thread.interaction-mode-updated", (_record, c) => ({
  interactionMode: str(c, "interactionMode"),
}));

/** Same provider instance only; switching instances is `provider.switch`. */
export const threadModelSelectionSet = patchThread("thread.model-selection-updated", (record, c) => {
  const modelSelection = c.modelSelection as ModelSelection;
  if (modelSelection.instanceId !== record.thread.providerInstanceId) {
    reject(
      `Model selection instance ${modelSelection.instanceId} differs from the thread's provider instance ${record.thread.providerInstanceId}; use provider.switch.`,
    );
  }
  return { modelSelection };
});

export const providerSwitch = patchThread("thread.provider-switched", (_record, c) => {
  const modelSelection = c.modelSelection as ModelSelection;
  return { modelSelection, providerInstanceId: modelSelection.instanceId };
});

const sameKey = (link: ThreadPullRequestLink, c: Record<string, unknown>) =>
  link.host === c.host && link.repository === c.repository && link.number === Number(c.number);

/** The legacy single link is derived from the newest link (threadPullRequest.ts says so). */
const legacyLink = (projectId: string, links: ThreadPullRequestLink[]): LinkedPullRequest | null => {
  const last = links.filter((link) => link.source !== "stack-dismissed").at(-1);
  return last ? { projectId, repository: last.repository, number: last.number, url: last.url } : null;
};

/** Links keyed {host, repository, number}, plus url and source; a repeat replaces the link. */
export const pullRequestLink = patchThread("thread.metadata-updated", (record, c, _now, ctx) => {
  const link: ThreadPullRequestLink = {
    host: str(c, "host"),
    repository: str(c, "repository"),
    number: Number(c.number),
    url: str(c, "url"),
    source: c.source as ThreadPullRequestLink["source"],
    linkedAt: ctx.store.iso(),
    snapshot: null,
    stack: null,
  };
  const links = [...(record.thread.pullRequests ?? []).filter((other) => !sameKey(other, c)), link];
  return { pullRequests: links, linkedPullRequest: legacyLink(record.thread.projectId, links) };
});

export const pullRequestUnlink = patchThread("thread.metadata-updated", (record, c) => {
  const current = record.thread.pullRequests ?? [];
  if (!current.some((link) => sameKey(link, c))) {
    reject(
      `Pull request ${str(c, "repository")}#${String(c.number)} is not linked to thread ${record.thread.id}.`,
    );
  }
  const links = current.filter((link) => !sameKey(link, c));
  return { pullRequests: links, linkedPullRequest: legacyLink(record.thread.projectId, links) };
});

/**
 * Builds a thread in a named state by driving the real handlers and the run engine, so seeded
 * threads have exactly the shapes live ones have. Seeding bypasses the command dispatcher:
 * nothing lands in `receivedCommands` and no receipt is stored.
 */
import type { CommandContext } from "./commands/context.js";
import { failPrepareItem, WORKSPACE_PREPARATION_FAILURE_CODE } from "./commands/newer-handlers.js";
import { dispatchMessage } from "./commands/run-handlers.js";
import { createThread } from "./commands/thread-handlers.js";
import { activeRun } from "./projection.js";
import { failRun, interruptRun } from "./provider-steps.js";
import type { RunScript } from "./scripts.js";
import { recordSecretRequest } from "./secret-requests.js";
import type { ThreadRecord } from "./store.js";
import type { AppThread, ModelSelection } from "./types.js";

export type ThreadState =
  | "idle"
  | "completed"
  | "running"
  | "waiting_user_input"
  | "waiting_approval"
  | "failed"
  | "proposed_plan"
  | "queued"
  | "interrupted"
  | "stalled"
  /** Newer servers: a deferred start whose workspace preparation failed (prepared-run.retry). */
  | "preparation_failed"
  /** Newer servers: a completed run, then a pending secret request answered only in T3. */
  | "waiting_secret";

export interface ThreadSpec {
  id?: string;
  projectId: string;
  title?: string;
  modelSelection?: ModelSelection;
  runtimeMode?: string;
  interactionMode?: string;
  state?: ThreadState;
  /** The user message that starts the run (when the state has one). */
  message?: string;
  reply?: string;
  /** When the thread's history happened (ms since epoch); default: now. */
  at?: number;
  settled?: boolean;
  snoozedUntil?: string;
  pinned?: boolean;
  archived?: boolean;
  /** `"updated"` marks the thread read up to its last change. */
  lastVisitedAt?: string | "updated";
  creationSource?: AppThread["creationSource"];
}

const SCRIPTS: Record<ThreadState, RunScript | undefined> = {
  idle: undefined,
  completed: {},
  running: { outcome: "hang" },
  waiting_user_input: { ask: true },
  waiting_approval: { approval: true },
  failed: { outcome: "fail" },
  proposed_plan: { plan: true },
  queued: { outcome: "hang" },
  interrupted: { outcome: "hang" },
  stalled: { stall: true },
  preparation_failed: undefined,
  waiting_secret: {},
};

const PREPARATION_FAILURE = "git worktree add failed: a branch with that name already exists";

const HISTORY_SPAN_MS = 30_000;

function send(ctx: CommandContext, record: ThreadRecord, text: string, script: RunScript): void {
  ctx.engine.scriptNextRun(record.thread.id, script);
  dispatchMessage(ctx, record, null, {
    messageId: ctx.store.ids.uuid(),
    text,
    attachments: [],
    createdBy: "user",
    creationSource: record.thread.creationSource,
    dispatchMode: { type: "start_immediately" },
  });
  const run = activeRun(record);
  if (run) ctx.engine.fastForward(run.id);
}

export function addThread(ctx: CommandContext, spec: ThreadSpec): string {
  const store = ctx.store;
  const at = spec.at ?? store.now();
  const id = spec.id ?? store.ids.uuid();
  const state = spec.state ?? "idle";
  const modelSelection = spec.modelSelection ?? { instanceId: "codex", model: "gpt-5.6-sol" };
  store.at(at, () =>
    createThread(ctx, null, {
      id,
      projectId: spec.projectId,
      title: spec.title ?? `Thread ${id.slice(0, 8)}`,
      modelSelection,
      runtimeMode: spec.runtimeMode ?? "full-access",
      interactionMode: spec.interactionMode ?? (state === "proposed_plan" ? "plan" : "default"),
      branch: null,
      worktreePath: null,
      createdBy: "user",
      creationSource: spec.creationSource ?? "web",
    }),
  );
  const record = store.threads.get(id);
  if (!record) return id;
  const script = SCRIPTS[state];
  if (script) {
    const text = spec.message ?? "Please look at the failing test and fix it.";
    store.at(at + 1_000, () =>
      send(ctx, record, text, { ...script, ...(spec.reply ? { reply: spec.reply } : {}) }),
    );
  }
  if (state === "preparation_failed") {
    store.at(at + 1_000, () => {
      dispatchMessage(ctx, record, null, {
        messageId: store.ids.uuid(),
        text: spec.message ?? "Please look at the failing test and fix it.",
        attachments: [],
        createdBy: "user",
        creationSource: record.thread.creationSource,
        dispatchMode: { type: "defer_start" },
      });
    });
    const run = activeRun(record);
    if (run)
      store.at(at + 2_000, () =>
        store.transact(record, null, (tx) => {
          failPrepareItem(tx, run, PREPARATION_FAILURE);
          failRun(tx, run, PREPARATION_FAILURE, "unknown", WORKSPACE_PREPARATION_FAILURE_CODE);
        }),
      );
  }
  if (state === "waiting_secret")
    store.at(at + 20_000, () => recordSecretRequest(store, id, { name: "GITHUB_TOKEN" }));
  store.at(at + HISTORY_SPAN_MS, () => {
    if (state === "queued") send(ctx, record, "After that, update the changelog.", {});
    if (state === "interrupted") {
      const run = activeRun(record);
      if (run) {
        ctx.engine.stop(run.id);
        store.transact(record, null, (tx) => void interruptRun(tx, run, "Stopped from the sidebar"));
      }
    }
    if (!spec.pinned && !spec.settled && !spec.snoozedUntil && !spec.archived) return;
    store.transact(record, null, (tx) => {
      if (spec.pinned) tx.thread("thread.pinned", { pinnedAt: tx.now });
      if (spec.settled) tx.thread("thread.settled", { settledOverride: "settled", settledAt: tx.now });
      if (spec.snoozedUntil)
        tx.thread("thread.snoozed", { snoozedUntil: spec.snoozedUntil, snoozedAt: tx.now });
      if (spec.archived) tx.thread("thread.archived", { archivedAt: tx.now });
    });
  });
  if (spec.lastVisitedAt) {
    const visitedAt = spec.lastVisitedAt === "updated" ? record.thread.updatedAt : spec.lastVisitedAt;
    // Visiting is a viewer action: it does not move the thread's history clock.
    store.at(Date.parse(record.thread.updatedAt), () =>
      store.transact(record, null, (tx) => void tx.thread("thread.visited", { lastVisitedAt: visitedAt })),
    );
  }
  return id;
}

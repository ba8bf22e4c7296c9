/**
 * Read RPCs and HTTP reads: thread detail, the bounded snapshot and history pages,
 * getThreadProjection, searchThreads and workflow scripts (the diffs: diff-reads.ts).
 */
import { z } from "zod";
import { decodeWith, idString } from "./commands/decode.js";
import type { HttpOutcome, RpcOutcome } from "./contract.js";
import { getThreadProjectionError, httpInvalidRequest, httpThreadNotFound } from "./errors.js";
import {
  OLDER_PAGE_USER_TURNS,
  SNAPSHOT_USER_TURNS,
  type WindowPolicy,
  windowBefore,
} from "./history-window.js";
import { buildProjection, visibleTurnItems } from "./projection.js";
import type { SimStore, ThreadRecord } from "./store.js";
import type { ProjectedTurnItem } from "./types.js";

export class ThreadReads {
  constructor(
    private readonly store: SimStore,
    /** Upstream's user-turn windows, or a fixed row count per window and page (tests). */
    private readonly policy: WindowPolicy,
  ) {}

  httpThread(threadId: string): HttpOutcome {
    const record = this.store.liveThread(threadId);
    if (!record) return this.#notFound();
    // The thread's own latest sequence, not the application's (fixture 91).
    return {
      kind: "ok",
      body: { snapshotSequence: record.lastSequence, projection: buildProjection(record) },
    };
  }

  httpThreadBounded(threadId: string): HttpOutcome {
    const record = this.store.liveThread(threadId);
    if (!record) return this.#notFound();
    return { kind: "ok", body: this.boundedSnapshot(record) };
  }

  /** The bounded snapshot's body (HTTP, and a thread stream's bounded snapshot). */
  boundedSnapshot(record: ThreadRecord): Record<string, unknown> {
    const { window, rows, payloadBudgetExceeded } = this.#snapshotWindow(record);
    const hasMoreHistory = window.length < rows.length;
    return {
      snapshotSequence: record.lastSequence,
      projection: buildProjection(record, window),
      historyCursor: hasMoreHistory && window[0] ? this.#cursor(record, window[0]) : null,
      hasMoreHistory,
      latestLocalTurnOrdinal: latestLocalOrdinal(record),
      payloadBudgetExceeded,
    };
  }

  #snapshotWindow(record: ThreadRecord) {
    const rows = visibleTurnItems(record);
    const bounds = windowBefore(rows, rows.length, SNAPSHOT_USER_TURNS, this.policy);
    return { rows, window: rows.slice(bounds.start), payloadBudgetExceeded: bounds.payloadBudgetExceeded };
  }

  httpThreadHistory(threadId: string, cursor: string | undefined): HttpOutcome {
    const record = this.store.liveThread(threadId);
    if (!record) return this.#notFound();
    const rows = visibleTurnItems(record);
    const anchor = cursor ? decodeCursor(cursor) : undefined;
    const index =
      anchor && anchor.st === threadId ? rows.findIndex((row) => row.sourceItemId === anchor.si) : -1;
    if (index < 0) {
      return {
        kind: "error",
        status: 400,
        body: httpInvalidRequest("invalid_history_cursor", this.store.ids.traceId()),
      };
    }
    const { start } = windowBefore(rows, index, OLDER_PAGE_USER_TURNS, this.policy);
    const items = rows.slice(start, index);
    const first = items[0];
    return {
      kind: "ok",
      body: {
        snapshotSequence: record.lastSequence,
        items,
        nextCursor: start > 0 && first ? this.#cursor(record, first) : null,
        hasMoreHistory: start > 0,
      },
    };
  }

  getThreadProjection(payload: unknown): RpcOutcome {
    const input = decodeWith(projectionInput, payload);
    if (!input.ok) return { kind: "die", defect: input.defect };
    const record = this.store.liveThread(input.value.threadId);
    if (!record) return { kind: "fail", error: getThreadProjectionError(input.value.threadId) };
    // 8ed276c windows it like the bounded snapshot (age-0046.ts); before, the whole projection.
    if (this.store.unknowns.threadProjection === "windowed") {
      return { kind: "success", value: buildProjection(record, this.#snapshotWindow(record).window) };
    }
    return { kind: "success", value: buildProjection(record) };
  }

  /**
   * `orchestration.getTurnItem {threadId, itemId, revision?}` → `{item}`: one stored item in
   * full, command output included. The sim keeps no item revisions, so
   * `revision` is accepted and ignored.
   */
  getTurnItem(payload: unknown): RpcOutcome {
    const input = decodeWith(turnItemInput, payload);
    if (!input.ok) return { kind: "die", defect: input.defect };
    const record = this.store.liveThread(input.value.threadId);
    const item = record?.turnItems.get(input.value.itemId);
    if (!record || !item) return { kind: "fail", error: getThreadProjectionError(input.value.threadId) };
    return { kind: "success", value: { item } };
  }

  #notFound(): HttpOutcome {
    return { kind: "error", status: 404, body: httpThreadNotFound(this.store.ids.traceId()) };
  }

  #cursor(record: ThreadRecord, row: ProjectedTurnItem): string {
    return Buffer.from(JSON.stringify({ si: row.sourceItemId, st: record.thread.id })).toString("base64url");
  }
}

function decodeCursor(cursor: string): { si: string; st: string } | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (value && typeof value === "object" && "si" in value && "st" in value) {
      const { si, st } = value as { si: unknown; st: unknown };
      if (typeof si === "string" && typeof st === "string") return { si, st };
    }
  } catch {
    // Not our cursor.
  }
  return undefined;
}

function latestLocalOrdinal(record: ThreadRecord): number | null {
  let max: number | null = null;
  for (const item of record.turnItems.values()) if (max === null || item.ordinal > max) max = item.ordinal;
  return max;
}

const projectionInput = z.object({ threadId: idString() });
const turnItemInput = z.object({
  threadId: idString(),
  itemId: idString(),
  revision: z.unknown().optional(),
});

const searchInput = z.object({
  query: z.string().min(2).max(200),
  limit: z.number().int().min(1).max(50).optional(),
});

const SNIPPET_CHARS = 160;

function snippet(text: string, query: string): string {
  if (text.length <= SNIPPET_CHARS) return text;
  const at = Math.max(0, text.toLowerCase().indexOf(query.toLowerCase()) - 40);
  return `${at > 0 ? "…" : ""}${text.slice(at, at + SNIPPET_CHARS)}…`;
}

/** One match per thread, newest message first; user and assistant text are searched (fixture 73). */
export function searchThreads(store: SimStore, payload: unknown): RpcOutcome {
  const input = decodeWith(searchInput, payload);
  if (!input.ok) return { kind: "die", defect: input.defect };
  const { query, limit = 20 } = input.value;
  const needle = query.toLowerCase();
  const matches: {
    threadId: string;
    projectId: string;
    source: string;
    snippet: string;
    messageCreatedAt: string;
  }[] = [];
  for (const record of store.threads.values()) {
    if (record.thread.deletedAt) continue;
    const hit = [...record.messages.values()]
      .filter((message) => message.role !== "system" && message.text.toLowerCase().includes(needle))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
    if (!hit) continue;
    matches.push({
      threadId: record.thread.id,
      projectId: record.thread.projectId,
      source: hit.role,
      snippet: snippet(hit.text, query),
      messageCreatedAt: hit.createdAt,
    });
  }
  matches.sort((a, b) => b.messageCreatedAt.localeCompare(a.messageCreatedAt));
  return { kind: "success", value: { matches: matches.slice(0, limit) } };
}

const workflowInput = z.object({ threadId: idString(), scriptPath: idString() });

/** The sim has no workflow scripts root, so every lookup fails like fixture 77. */
export function getWorkflowScript(homeDir: string, payload: unknown): RpcOutcome {
  const input = decodeWith(workflowInput, payload);
  if (!input.ok) return { kind: "die", defect: input.defect };
  return {
    kind: "fail",
    error: {
      _tag: "OrchestrationGetWorkflowScriptError",
      reason: "root-unavailable",
      scriptPath: input.value.scriptPath,
      cause: {
        name: "Error",
        message: `ENOENT: no such file or directory, realpath '${homeDir}/.claude/projects'`,
      },
    },
  };
}

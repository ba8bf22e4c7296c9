/**
 * `threads.batch` (ADR 0074): one of eight filing changes for up to 20 threads under one lease.
 * It is not a new action and never "execute anything": each item is the catalogue's own action on
 * one thread, journaled as its own operation (`threads-batch/<batchId>/<index>`), so the lease, the guards and
 * the one-send rule are each item's. A manifest keyed by the batchId binds the id to the exact
 * list, so a repeat resumes (each done item replays) and a different list under it is a conflict.
 */
import { z } from "zod";
import type { ActionId } from "./catalogue.js";
import { idString, isoDateTime } from "./fields.js";

export const THREADS_BATCH_ACTION = "threads.batch";
export const MAX_BATCH_THREADS = 20;

/** The batch verbs and the catalogue action each item runs. */
export const BATCH_VERBS = {
  pin: "thread.pin",
  unpin: "thread.unpin",
  snooze: "thread.snooze",
  unsnooze: "thread.unsnooze",
  settle: "thread.settle",
  unsettle: "thread.unsettle",
  archive: "thread.archive",
  unarchive: "thread.unarchive",
} as const satisfies Record<string, ActionId>;
export type BatchVerb = keyof typeof BATCH_VERBS;
export const BATCH_VERB_NAMES = Object.keys(BATCH_VERBS) as [BatchVerb, ...BatchVerb[]];

/** What prefixes every operationId of a batch (its manifest, then each item). */
export const BATCH_OPERATION_PREFIX = "threads-batch/";
/** Short enough that `<prefix><batchId>/<index>` stays an operationId (1024 characters). */
export const MAX_BATCH_ID_CHARS = 256;

export const threadsBatchInput = z
  .strictObject({
    action: z.enum(BATCH_VERB_NAMES),
    threads: z.array(idString).min(1).max(MAX_BATCH_THREADS),
    /** snooze only: when the threads wake (ISO 8601 with an offset). */
    until: isoDateTime.optional(),
    /**
     * The batch's own idempotency key (default: the envelope's operationId). A repeat with the same
     * batchId resumes: done items replay, nothing is sent twice.
     */
    batchId: z.string().trim().min(1).max(MAX_BATCH_ID_CHARS).optional(),
  })
  .superRefine((input, context) => {
    if ((input.action === "snooze") !== (input.until !== undefined)) {
      context.addIssue({
        code: "custom",
        path: ["until"],
        message: input.action === "snooze" ? "snooze needs until" : "until applies to snooze only",
      });
    }
    if (new Set(input.threads).size !== input.threads.length) {
      context.addIssue({ code: "custom", path: ["threads"], message: "name each thread once" });
    }
  });
export type ThreadsBatchInput = z.output<typeof threadsBatchInput>;

export const THREADS_BATCH = {
  action: THREADS_BATCH_ACTION,
  label: "File several threads at once",
  description:
    "Pin, unpin, snooze, unsnooze, settle, unsettle, archive or unarchive up to 20 threads, each once, stopping at the first uncertain one.",
  inputSchema: threadsBatchInput,
} as const;

/** The catalogue input of one item. */
export function batchItemInput(input: ThreadsBatchInput, threadId: string): Record<string, unknown> {
  return input.action === "snooze" ? { threadId, snoozedUntil: input.until } : { threadId };
}

/**
 * The operationIds of a batch: its manifest's, and each item's by its place in the list (the
 * manifest binds the list to the batchId, so a place always names the same thread).
 */
export function batchOperationIds(batchId: string, threads: readonly string[]) {
  return {
    manifest: `${BATCH_OPERATION_PREFIX}${batchId}`,
    items: threads.map((_threadId, index) => `${BATCH_OPERATION_PREFIX}${batchId}/${index}`),
  };
}

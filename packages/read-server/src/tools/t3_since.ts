import { ConnectorError } from "@t3-connector/core";
import type { CursorCodec } from "@t3-connector/core/pagination";
import { countSinceChanges, SINCE_CHANGE_KINDS } from "@t3-connector/core/state";
import { envelopeFields } from "@t3-connector/mcp-tools/read-answers";
import {
  calledEnvironmentSchema,
  environmentInput,
  scopeEnvelopeShape,
  threadItemSchema,
} from "@t3-connector/mcp-tools/read-contracts";
import * as z from "zod";
import { listedChangeSummaries, summaryKey } from "../diffs/listed-change-summaries.js";
import { sweepShells } from "../listing/shells.js";
import type { ReadContext } from "../read-context.js";
import { defineReadTool, READ_ONLY_ANNOTATIONS } from "../read-tool.js";
import { type ChangedThread, environmentSince, type SinceStart } from "../since/since-changes.js";
import { decodeSinceCursor, encodeSinceCursor, type SincePosition } from "../since/since-cursor.js";
import { titleLogOf } from "../since/title-log.js";

export const SINCE_LIMIT = { min: 1, max: 200, default: 50 } as const;

const inputSchema = z.strictObject({
  since: z
    .string()
    .min(1)
    .optional()
    .describe("An ISO 8601 time with its offset, e.g. 2026-12-06T07:00:00Z. Give since or cursor."),
  cursor: z
    .string()
    .min(1)
    .optional()
    .describe("nextCursor of the previous t3_since answer (same environment input): what changed after it."),
  environment: environmentInput,
  limit: z
    .number()
    .int()
    .min(SINCE_LIMIT.min)
    .max(SINCE_LIMIT.max)
    .optional()
    .describe(
      `Threads listed, ${SINCE_LIMIT.min}-${SINCE_LIMIT.max} (default ${SINCE_LIMIT.default}); counts cover all.`,
    ),
});

const changeSchema = z.object({
  kind: z.enum(SINCE_CHANGE_KINDS as [string, ...string[]]),
  at: z.string(),
  runId: z.string().nullable().optional(),
  runStatus: z.string().optional(),
  requestKind: z.string().optional(),
  from: z.string().optional(),
  to: z.string().optional(),
  changedFiles: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("run_ended: files the run changed (its checkpoint), where read"),
  changeLine: z.string().optional().describe('run_ended: e.g. "3 files changed, +12 -4", where read'),
});

const countsSchema = z.object({
  runsStarted: z.number().int().min(0),
  runsEnded: z.number().int().min(0),
  runsFailed: z.number().int().min(0),
  askedForPerson: z.number().int().min(0),
  threadsCreated: z.number().int().min(0),
  threadsArchived: z.number().int().min(0),
  threadsRenamed: z.number().int().min(0),
});

const outputSchema = z.object({
  environment: calledEnvironmentSchema.optional(),
  since: z.string().describe("The time asked, or for a cursor the time of the answer that issued it"),
  generatedAt: z.string(),
  ...scopeEnvelopeShape,
  counts: countsSchema,
  total: z.number().int().min(0),
  returned: z.number().int().min(0),
  truncated: z.boolean(),
  threads: z.array(threadItemSchema.extend({ changes: z.array(changeSchema) })),
  limits: z.string(),
  nextCursor: z.string(),
});

/** What the shell cannot tell, said in every answer so that a short list is never read as all. */
const LIMITS_NOTE =
  "Runs: only each thread's newest run is on its row, so a run that started and ended before a later one " +
  "is not counted. Requests: only those still pending. Times are each machine's own. T3 does not date " +
  "renames: those listed are the ones this server saw between two of its reads, dated by the later read " +
  "(none before its first read after start). A cursor looks 5 s back for rows that arrived late and skips what it " +
  "reported; past 40 changes of one machine in those 5 s one may come twice. Deleted threads and threads outside " +
  "allowedProjects are not shown.";

function startOf(
  cursors: CursorCodec,
  input: { since?: string | undefined; cursor?: string | undefined },
  scope: string,
): SinceStart {
  if ((input.since === undefined) === (input.cursor === undefined)) {
    throw new ConnectorError("invalid_input", "Give exactly one of since (an ISO time) or cursor.");
  }
  if (input.cursor !== undefined) {
    return { kind: "cursor", position: decodeSinceCursor(cursors, input.cursor, scope) };
  }
  const ms = Date.parse(input.since ?? "");
  if (!Number.isFinite(ms) || !/\d{4}-\d{2}-\d{2}T/.test(input.since ?? "")) {
    throw new ConnectorError(
      "invalid_input",
      `since is not an ISO 8601 time (${JSON.stringify(input.since)}); e.g. 2026-12-06T07:00:00Z.`,
    );
  }
  return { kind: "time", ms };
}

/**
 * Beside each run that ended, what it changed ("changed N files"), from the checkpoint of that
 * very run: a summary of another run (a newer one) is not shown against it.
 */
async function withRunChanges(context: ReadContext, listed: readonly ChangedThread[], signal: AbortSignal) {
  const wanted = listed.flatMap((thread) => {
    const ended = thread.changes.find((change) => change.kind === "run_ended" && change.runId);
    return ended
      ? [
          {
            alias: thread.item.environment.alias,
            threadId: thread.item.threadId ?? "",
            version: `${ended.runId}|${ended.at}`,
          },
        ]
      : [];
  });
  const summaries = await listedChangeSummaries(context, wanted, signal);
  return listed.map((thread) => {
    const summary = summaries.get(summaryKey(thread.item.environment.alias, thread.item.threadId ?? ""));
    const changes = thread.changes.map((change) =>
      change.kind === "run_ended" && summary && summary.runId === change.runId
        ? { ...change, changedFiles: summary.files, changeLine: summary.line }
        : change,
    );
    return { ...thread.item, changes };
  });
}

function newestFirst(a: ChangedThread, b: ChangedThread): number {
  return b.newestMs - a.newestMs;
}

export const t3SinceTool = defineReadTool({
  name: "t3_since",
  title: "What happened since",
  description:
    "What changed on every machine (or only environment) since a time or since the previous call's nextCursor: " +
    "runs started and ended (with their status; failed counted apart), threads that asked for a person " +
    "(approval, question, secret), threads created, archived and renamed. Counts cover everything; threads lists " +
    "the changed threads newest change first, each with its state now and its changes. Keep nextCursor for the " +
    "next call ('since you last looked'). limits says what the rows cannot prove. With complete:false a missing " +
    "machine's changes are not counted.",
  inputSchema,
  outputSchema,
  annotations: READ_ONLY_ANNOTATIONS,
  async handler(context, input, extra) {
    const now = context.clock.now();
    const scope = input.environment ?? "*";
    const start = startOf(context.cursors, input, scope);
    const titles = titleLogOf(context);
    const { results, envelope } = await sweepShells(
      context,
      input.environment,
      extra.signal,
      (view) => environmentSince(view, start, titles, now),
      (value) => value.threads.length,
      { withArchive: true },
    );
    const position: SincePosition = {
      // Environments that did not answer keep the mark they had, so their changes come next time.
      marks: start.kind === "cursor" ? new Map(start.position.marks) : new Map(),
      generatedAtMs: now,
    };
    for (const result of results) position.marks.set(result.environment.environmentId, result.value.mark);
    const changed = results.flatMap((result) => result.value.threads).sort(newestFirst);
    const limit = input.limit ?? SINCE_LIMIT.default;
    const listed = changed.slice(0, limit);
    return {
      ...envelopeFields(envelope),
      since: new Date(start.kind === "time" ? start.ms : start.position.generatedAtMs).toISOString(),
      generatedAt: new Date(now).toISOString(),
      counts: countSinceChanges(changed.flatMap((thread) => thread.changes)),
      total: changed.length,
      returned: listed.length,
      truncated: listed.length < changed.length,
      threads: await withRunChanges(context, listed, extra.signal),
      limits: LIMITS_NOTE,
      nextCursor: encodeSinceCursor(context.cursors, position, scope),
    };
  },
});

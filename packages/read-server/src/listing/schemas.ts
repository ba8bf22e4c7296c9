import { THREAD_STATES } from "@t3-connector/core/state";
import * as z from "zod";

/**
 * Output schemas shared by the listing tools. They are strict about types and list every field,
 * because the framework parses each result with them: a field left out here would be stripped
 * from the answer without a trace.
 */

/** `environment` on every listed item: where it lives. `name` is the server label or null. */
export const itemEnvironmentSchema = z.object({
  alias: z.string(),
  environmentId: z.string(),
  name: z.string().nullable(),
});

/** The top-level `environment` of a call that named one. */
export const calledEnvironmentSchema = z.object({
  alias: z.string(),
  environmentId: z.string(),
});

export const queriedEnvironmentSchema = itemEnvironmentSchema.extend({ found: z.number().int().min(0) });

export const environmentFailureSchema = z.object({
  alias: z.string(),
  environmentId: z.string(),
  code: z.string(),
  reason: z.string(),
});

/** The scope envelope fields, in the order they are answered. */
export const scopeEnvelopeShape = {
  complete: z.boolean(),
  queriedEnvironments: z.array(queriedEnvironmentSchema),
  environmentFailures: z.array(environmentFailureSchema),
};

export const threadStateSchema = z.enum(THREAD_STATES);

const stateSourceSchema = z.enum([
  "pending_request",
  "active_run",
  "usage_limit",
  "proposed_plan",
  "latest_run",
  "no_run",
]);

const identifierSchema = z.union([
  z.object({ runtimeRequestId: z.string().nullable() }),
  z.object({ runId: z.string().nullable() }),
]);

const backgroundTaskSchema = z.object({
  kind: z.string().nullable(),
  taskId: z.string().nullable(),
  description: z.string().nullable(),
});

/** The thread summary of contract §B.3 (`threadSummary` in core/state), field by field. */
export const threadSummaryShape = {
  threadId: z.string().nullable(),
  title: z.string().nullable(),
  project: z.object({ projectId: z.string().nullable(), title: z.string().optional() }),
  directory: z.string().nullable(),
  branch: z.string().nullable(),
  model: z.object({
    model: z.string().nullable(),
    instanceId: z.string().nullable(),
    effort: z.string().nullable(),
  }),
  runtimeMode: z.string().nullable(),
  state: threadStateSchema,
  stateSource: stateSourceSchema,
  statusRun: z.string().nullable(),
  runId: z.string().nullable(),
  latestRunId: z.string().optional(),
  latestRunStatus: z.string().nullable().optional(),
  note: z.string().optional(),
  reason: z.string().optional(),
  kind: z.string().optional(),
  identifier: identifierSchema.optional(),
  since: z.string().nullable().optional(),
  resetAt: z.string().nullable().optional(),
  resumeAt: z.string().nullable().optional(),
  backgroundTasks: z.array(backgroundTaskSchema).optional(),
  error: z.string().nullable().optional(),
  errorClass: z.string().nullable().optional(),
  updatedAt: z.string().nullable(),
  settled: z.boolean(),
  woke: z.boolean().nullable(),
  wokeAt: z.string().nullable(),
};

/** A listed thread: `threadId`, `title` and `environment` first, then the rest of the summary. */
const { threadId, title, ...summaryRest } = threadSummaryShape;
export const threadItemSchema = z.object({
  threadId,
  title,
  environment: itemEnvironmentSchema,
  ...summaryRest,
});

/** Input: the optional `environment` of a listing. */
export const environmentInput = z
  .string()
  .min(1)
  .optional()
  .describe("Alias or environmentId. Omit to read every configured environment.");

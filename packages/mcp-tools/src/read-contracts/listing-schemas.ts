import { SECRET_REQUEST_NEXT_ACTION_MESSAGE, THREAD_STATES } from "@t3-connector/core/state";
import * as z from "zod";

/**
 * Output schemas shared by the listing tools and the by-id reads. They are strict about types and
 * list every field, because the framework parses each result with them: a field left out here
 * would be stripped from the answer (or, in a strict object, fail the check) instead of passing
 * unnoticed.
 */

/** `environment` on every listed item: where it lives. `name` is the server label or null. */
export const itemEnvironmentSchema = z.strictObject({
  alias: z.string(),
  environmentId: z.string(),
  name: z.string().nullable(),
});

/** The top-level `environment` of a call that named one. */
export const calledEnvironmentSchema = z.strictObject({
  alias: z.string(),
  environmentId: z.string(),
});

export const queriedEnvironmentSchema = itemEnvironmentSchema.extend({ found: z.number().int().min(0) });

export const environmentFailureSchema = z.strictObject({
  alias: z.string(),
  environmentId: z.string(),
  code: z.string(),
  reason: z.string(),
});

/**
 * The head of a searchable listing page, in the order it is answered: the environment the call
 * named, then the page fields (`pageFields`) with the search term between total and returned.
 */
export const searchedPageShape = {
  environment: calledEnvironmentSchema.optional(),
  total: z.number().int().min(0),
  search: z.string().optional(),
  returned: z.number().int().min(0),
  truncated: z.boolean(),
  nextCursor: z.string().optional(),
};

/** The scope envelope fields, in the order they are answered. */
export const scopeEnvelopeShape = {
  complete: z.boolean(),
  queriedEnvironments: z.array(queriedEnvironmentSchema),
  environmentFailures: z.array(environmentFailureSchema),
};

export const threadStateSchema = z.enum(THREAD_STATES);

const nullableString = z.string().nullable();

/** Which signal decided a thread's `state`. */
export const stateSourceSchema = z.enum([
  "pending_request",
  "secret_request",
  "active_run",
  "usage_limit",
  "proposed_plan",
  "latest_run",
  "no_run",
]);

export const modelSummarySchema = z.strictObject({
  model: nullableString,
  instanceId: nullableString,
  effort: nullableString,
});

/**
 * The thread summary (`threadSummary` in core/state) with its state fields,
 * field by field. The one definition for listed threads and threads read by id; its nested
 * objects are strict so that a field core gains without a schema entry fails the output check.
 */
export const threadSummaryShape = {
  threadId: nullableString,
  title: nullableString,
  project: z.strictObject({ projectId: nullableString, title: z.string().optional() }),
  directory: nullableString,
  branch: nullableString,
  model: modelSummarySchema,
  runtimeMode: nullableString,
  state: threadStateSchema,
  stateSource: stateSourceSchema,
  statusRun: nullableString,
  runId: nullableString,
  latestRunId: z.string().optional(),
  latestRunStatus: nullableString.optional(),
  note: z.string().optional(),
  reason: z.string().optional(),
  kind: z.string().optional(),
  identifier: z
    .union([
      z.strictObject({ runtimeRequestId: nullableString }),
      z.strictObject({ secretRequestId: nullableString }),
      z.strictObject({ runId: nullableString }),
    ])
    .optional(),
  since: nullableString.optional(),
  resetAt: nullableString.optional(),
  resumeAt: nullableString.optional(),
  backgroundTasks: z
    .array(z.strictObject({ kind: nullableString, taskId: nullableString, description: nullableString }))
    .optional(),
  error: nullableString.optional(),
  errorClass: nullableString.optional(),
  /** A pending secret request: answered in T3 itself, never through the connector. */
  nextAction: z
    .strictObject({
      type: z.literal("answer_in_t3"),
      reason: z.literal("secret_request"),
      message: z.literal(SECRET_REQUEST_NEXT_ACTION_MESSAGE),
    })
    .optional(),
  updatedAt: nullableString,
  settled: z.boolean(),
  pinned: z.boolean(),
  snoozedUntil: nullableString,
  woke: z.boolean().nullable(),
  wokeAt: nullableString,
};

/** A listed thread: `threadId`, `title` and `environment` first, then the rest of the summary. */
const { threadId, title, ...summaryRest } = threadSummaryShape;
export const threadItemSchema = z.object({
  threadId,
  title,
  environment: itemEnvironmentSchema,
  ...summaryRest,
  /** Only on an archived thread, which a listing shows only when asked (the write bridge's `includeArchived`). */
  archived: z.literal(true).optional(),
});

/** Input: the optional `environment` of a listing. */
export const environmentInput = z
  .string()
  .min(1)
  .optional()
  .describe("Alias or environmentId. Omit to read every configured environment.");

/** Input: the `cursor` of a paged listing. */
export const cursorInput = z
  .string()
  .min(1)
  .optional()
  .describe("nextCursor of the previous page, with the same other inputs.");

/** The page size of the thread listings when `limit` is left out. */
export const THREAD_PAGE_DEFAULT_LIMIT = 20;

/** Input: the `limit` of the thread listings (t3_threads, t3_buscar_threads). */
export const threadPageLimitInput = z
  .number()
  .int()
  .min(1)
  .max(50)
  .optional()
  .describe(`Page size, 1-50 (default ${THREAD_PAGE_DEFAULT_LIMIT}).`);

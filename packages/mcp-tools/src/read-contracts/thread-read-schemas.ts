import { APPROVAL_DECISIONS } from "@t3-connector/core/state";
import * as z from "zod";
import {
  calledEnvironmentSchema,
  modelSummarySchema,
  scopeEnvelopeShape,
  threadSummaryShape,
} from "./listing-schemas.js";

/**
 * Output schemas of a thread read by id (`t3_thread`, each ok item of `t3_thread_read_batch`,
 * the envelope of `t3_mensagens`). They mirror core/state's `ThreadRead` field by field and are
 * strict: a field the projection gains without a schema entry fails the output check (and the
 * tests) instead of being dropped or leaking unnoticed.
 */

const nullableString = z.string().nullable();

/** The `environment` a thread read answers with: the same tag as a listing that named one. */
export const environmentTagSchema = calledEnvironmentSchema;

/** How a thread without `environment` was located: every environment answered, one had it. */
export const environmentDiscoverySchema = z.strictObject(scopeEnvelopeShape);

const questionSchema = z.strictObject({
  id: z.string(),
  header: z.string(),
  question: z.string(),
  options: z.array(
    z.strictObject({ label: z.string(), description: z.string(), value: z.string().optional() }),
  ),
  multiSelect: z.boolean().optional(),
  allowCustomAnswer: z.boolean().optional(),
  required: z.boolean().optional(),
});

const requestContentSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("user_input"),
    questions: z.array(questionSchema),
    responseMode: z.literal("message").optional(),
  }),
  z.strictObject({
    type: z.literal("approval"),
    prompt: z.string(),
    appName: z.string().optional(),
    options: z
      .array(
        z.strictObject({
          decision: z.enum(APPROVAL_DECISIONS),
          label: z.string(),
          warning: z.string().optional(),
        }),
      )
      .optional(),
  }),
]);

const respondInputSchema = z.strictObject({ threadId: z.string(), requestId: z.string() });

const nextActionSchema = z.union([
  z.strictObject({
    type: z.literal("respond_runtime_request"),
    action: z.literal("runtime-request.answer"),
    tool: z.literal("t3_escrever_runtime_request_answer"),
    input: respondInputSchema,
    responseField: z.literal("answers"),
    requiresUserDecision: z.literal(true),
  }),
  z.strictObject({
    type: z.literal("respond_runtime_request"),
    action: z.literal("runtime-request.approve"),
    tool: z.literal("t3_escrever_runtime_request_approve"),
    input: respondInputSchema,
    responseField: z.literal("decision"),
    requiresUserDecision: z.literal(true),
  }),
  z.strictObject({
    type: z.literal("inspect_in_t3"),
    reason: z.enum([
      "request_detail_not_in_snapshot",
      "request_detail_incomplete_or_invalid",
      "unsupported_request_kind",
      "response_capability_unavailable",
      "request_not_resumable",
    ]),
  }),
]);

export const pendingRequestSchema = z.strictObject({
  runtimeRequestId: z.string(),
  requestId: z.string(),
  kind: nullableString,
  reason: z.string(),
  nodeId: nullableString,
  since: nullableString,
  detail: nullableString,
  responseCapability: z
    .union([
      z.strictObject({ type: z.literal("live") }),
      z.strictObject({ type: z.literal("message") }),
      z.strictObject({ type: z.literal("not_resumable"), reason: nullableString }),
    ])
    .nullable(),
  contentAvailable: z.boolean(),
  content: requestContentSchema.nullable(),
  unavailableReason: z
    .enum([
      "request_detail_not_in_snapshot",
      "request_detail_incomplete_or_invalid",
      "unsupported_request_kind",
    ])
    .nullable(),
  threadSendAnswersRequest: z.literal(false),
  nextAction: nextActionSchema,
});

/** The end of a run's latest assistant response (`t3_thread`, and `t3_aguardar_thread` on request). */
export const latestResponseSchema = z.object({
  messageId: nullableString,
  runId: nullableString,
  text: z.string(),
  truncated: z.boolean(),
  streaming: z.boolean(),
  updatedAt: nullableString,
});

export const historySchema = z.strictObject({ complete: z.boolean(), payloadBudgetExceeded: z.boolean() });

/** The detail fields of `t3_thread` beyond the summary. */
/** A thread's one-line change summary, from its latest checkpoint (core `threadChangeSummary`). */
export const changeSummarySchema = z.strictObject({
  files: z.number().int().min(0),
  additions: z.number().int().min(0),
  deletions: z.number().int().min(0),
  runId: nullableString,
  turnCount: z.number().int().nullable(),
  checkpointId: nullableString,
  line: z.string(),
});

export const threadDetailShape = {
  pendingRequests: z.array(pendingRequestSchema),
  pullRequests: z
    .array(
      z.strictObject({
        host: nullableString,
        repository: nullableString,
        number: z.number().nullable(),
        url: nullableString,
        state: nullableString,
        watch: z.strictObject({ startedAt: nullableString, paused: z.boolean() }).nullable(),
      }),
    )
    .optional(),
  /** What the latest run that left a checkpoint changed; null when none did. */
  changes: changeSummarySchema.nullable().optional(),
  providerSession: z
    .object({
      status: nullableString,
      directory: nullableString,
      model: nullableString,
      informational: z.literal(true),
      note: z.string().optional(),
    })
    .nullable(),
  activeRun: z
    .object({
      runId: nullableString,
      ordinal: z.number().nullable(),
      status: z.string(),
      model: modelSummarySchema.nullable(),
    })
    .nullable(),
  latestRun: z
    .object({ runId: z.string(), ordinal: z.number().nullable(), status: nullableString })
    .nullable(),
  latestResponse: latestResponseSchema.nullable(),
  history: historySchema,
};

/** One thread as `t3_thread` returns it, and as each ok batch item carries it in `thread`. */
export const threadReadOutputSchema = z.strictObject({
  environment: environmentTagSchema,
  environmentDiscovery: environmentDiscoverySchema.optional(),
  ...threadSummaryShape,
  /** Only on an archived thread (found through the archived shell snapshot). */
  archived: z.literal(true).optional(),
  ...threadDetailShape,
});
export type ThreadReadOutput = z.input<typeof threadReadOutputSchema>;

/** Input: the optional `environment` of a read by id; without it the id is located everywhere. */
export const locatingEnvironmentInput = z
  .string()
  .min(1)
  .optional()
  .describe("Alias or environmentId; omit to locate the id everywhere");

import { THREAD_MAX_CHARACTERS } from "@t3-connector/core/state";
import { environmentTagSchema, threadReadOutputSchema } from "@t3-connector/mcp-tools/read-contracts";
import * as z from "zod";
import { BATCH_MAX_TARGETS, BATCH_TIMEOUT_MS, readThreadBatch } from "../by-id/read-batch.js";
import { defineReadTool, READ_ONLY_ANNOTATIONS } from "../read-tool.js";

const itemErrorSchema = z.strictObject({ code: z.string(), reason: z.string() });

export const t3ThreadReadBatchTool = defineReadTool({
  name: "t3_thread_read_batch",
  title: "Read several threads at once",
  description:
    `Reads up to ${BATCH_MAX_TARGETS} threads, each named by {environment, threadId}; environments can be mixed. ` +
    "Each ok item carries in thread exactly what t3_thread returns; a failed item carries error {code, reason} and never hides the others. " +
    "complete: false means some item failed for a transient reason and may succeed if read again. " +
    "Answer pending requests one by one with the write tool named in their nextAction.",
  inputSchema: z.strictObject({
    items: z
      .array(
        z.strictObject({
          environment: z.string().min(1).describe("Alias or environmentId"),
          threadId: z.string().min(1),
        }),
      )
      .min(1)
      .max(BATCH_MAX_TARGETS),
    maxCharacters: z
      .number()
      .int()
      .min(THREAD_MAX_CHARACTERS.min)
      .max(THREAD_MAX_CHARACTERS.max)
      .optional()
      .describe(`Limits each latestResponse only (default ${THREAD_MAX_CHARACTERS.default})`),
    timeoutMs: z
      .number()
      .int()
      .min(BATCH_TIMEOUT_MS.min)
      .max(BATCH_TIMEOUT_MS.max)
      .optional()
      .describe(`Deadline of the whole call (default ${BATCH_TIMEOUT_MS.default})`),
  }),
  outputSchema: z.strictObject({
    returned: z.number().int(),
    summary: z.strictObject({ ok: z.number().int(), error: z.number().int() }),
    allSucceeded: z.boolean(),
    complete: z.boolean(),
    environments: z.array(
      z.strictObject({
        alias: z.string(),
        environmentId: z.string(),
        status: z.enum(["ok", "error"]),
        observedAt: z.string().optional(),
        error: itemErrorSchema.optional(),
      }),
    ),
    items: z.array(
      z.strictObject({
        index: z.number().int(),
        environment: environmentTagSchema.nullable(),
        requestedEnvironment: z.string().optional(),
        threadId: z.string(),
        status: z.enum(["ok", "error"]),
        observedAt: z.string().optional(),
        thread: threadReadOutputSchema.optional(),
        error: itemErrorSchema.optional(),
      }),
    ),
  }),
  annotations: READ_ONLY_ANNOTATIONS,
  async handler(context, input, extra) {
    return readThreadBatch(context, input.items, {
      timeoutMs: input.timeoutMs ?? BATCH_TIMEOUT_MS.default,
      signal: extra.signal,
      ...(input.maxCharacters === undefined ? {} : { maxCharacters: input.maxCharacters }),
    });
  },
});

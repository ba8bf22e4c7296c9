import { DIFF_CAPS } from "@t3-connector/core/diff";
import { calledEnvironmentSchema, locatingEnvironmentInput } from "@t3-connector/mcp-tools/read-contracts";
import * as z from "zod";
import { readThreadDiff } from "../diffs/thread-diff.js";
import { defineReadTool, READ_ONLY_ANNOTATIONS } from "../read-tool.js";

const inputSchema = z.strictObject({
  environment: locatingEnvironmentInput,
  threadId: z.string().min(1),
  scope: z
    .enum(["run", "thread"])
    .optional()
    .describe('"run" (default): one run\'s changes; "thread": everything the thread changed.'),
  runId: z
    .string()
    .min(1)
    .optional()
    .describe("The run whose changes to show; default its latest run with a checkpoint."),
  path: z
    .string()
    .min(1)
    .max(4096)
    .optional()
    .describe(`Only this file's patch (a path the diff lists), up to ${DIFF_CAPS.pathPatchMaxBytes} bytes.`),
  cursor: z.string().min(1).optional().describe("nextCursor of the previous answer for the same diff."),
  ignoreWhitespace: z.boolean().optional().describe("Leave out changes of whitespace only (default false)."),
});

const fileSchema = z.object({
  path: z.string(),
  previousPath: z.string().optional(),
  status: z.enum(["added", "deleted", "modified", "renamed", "copied"]),
  additions: z.number().int().min(0),
  deletions: z.number().int().min(0),
  binary: z.boolean(),
  patch: z.string(),
  truncated: z.boolean(),
});

const outputSchema = z.object({
  environment: calledEnvironmentSchema,
  threadId: z.string(),
  scope: z.enum(["run", "thread"]),
  runId: z.string().nullable(),
  fromTurnCount: z.number().int().min(0),
  toTurnCount: z.number().int().min(0),
  files: z.array(fileSchema),
  totals: z.object({
    files: z.number().int().min(0),
    additions: z.number().int().min(0),
    deletions: z.number().int().min(0),
  }),
  truncated: z.boolean(),
  complete: z.boolean(),
  note: z.string().optional(),
  nextCursor: z.string().optional(),
});

export const t3DiffTool = defineReadTool({
  name: "t3_diff",
  title: "What a thread's agent changed (diff)",
  description:
    "The files a thread's agent changed and their patches (unified diff), from T3's checkpoints: by default its latest run that left one, or a given runId, or the whole thread (scope \"thread\"). " +
    `Paged by file (nextCursor); each patch is capped at ${DIFF_CAPS.patchMaxBytes} bytes and each answer at ${DIFF_CAPS.answerMaxBytes}, and truncated says when something was cut; path returns one file's patch. ` +
    "totals count the whole diff. A thread with no checkpoint answers an empty diff.",
  inputSchema,
  outputSchema,
  annotations: READ_ONLY_ANNOTATIONS,
  handler(context, input, extra) {
    return readThreadDiff(context, input, extra.signal);
  },
});

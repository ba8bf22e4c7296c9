import { WAIT_MAX_CHARACTERS } from "@t3-connector/core/state";
import {
  latestResponseSchema,
  stateSourceSchema,
  threadStateSchema,
} from "@t3-connector/mcp-tools/read-contracts";
import * as z from "zod";
import { defineReadTool, READ_ONLY_ANNOTATIONS } from "../read-tool.js";
import { waitForThread } from "../wait/wait-for-thread.js";

/** The wait's ceiling: short on purpose, since cancellation through some tunnels never arrives. */
export const WAIT_TIMEOUT_MS = { min: 1, max: 5_000 } as const;

const nullableString = z.string().nullable();

const waitOutputSchema = z.object({
  environment: z.object({ alias: z.string(), environmentId: z.string() }),
  projectId: z.string(),
  threadId: z.string(),
  title: z.string(),
  runId: nullableString.describe("The run waited on (null: the thread has no run)"),
  statusRun: nullableString,
  state: threadStateSchema,
  stateSource: stateSourceSchema,
  terminal: z.boolean(),
  timedOut: z.boolean(),
  returnReason: z.enum([
    "terminal",
    "needs_intervention",
    "no_run",
    "timeout",
    "thread_deleted",
    "subscription_closed",
  ]),
  pendingRequest: z
    .object({ runtimeRequestId: nullableString, kind: z.string(), reason: z.string(), since: nullableString })
    .nullable(),
  observedAt: z.string(),
  elapsedMs: z.number().int().min(0),
  timeoutMs: z.number().int(),
  latestResponse: latestResponseSchema.nullable().optional(),
  subscriptionError: z
    .object({ code: z.string(), message: z.string() })
    .optional()
    .describe("Why the thread stream ended early (returnReason subscription_closed)"),
});

/** The call's deadline comes from the read context's deadline source (ADR 0034), like every read's. */
export const t3AguardarThreadTool = defineReadTool({
  name: "t3_aguardar_thread",
  title: "Wait for a thread's run",
  description:
    "Waits up to timeoutMs for the thread's active run (or runId) to end or to need the user, and returns its state. " +
    "Returns at once when there is no run, the run already ended or a request is pending. " +
    "timedOut: true means it is still running: answer the user and call again on a later turn, do not chain waits (use 1000-2000 ms for voice). " +
    "On needs_intervention read t3_thread in the same environment; a pending request is answered with t3_escrever_runtime_request_answer or t3_escrever_runtime_request_approve through the write bridge.",
  inputSchema: z.strictObject({
    environment: z.string().min(1).describe("Alias or environmentId (required: a wait never sweeps)"),
    threadId: z.string().min(1),
    timeoutMs: z
      .number()
      .int()
      .min(WAIT_TIMEOUT_MS.min)
      .max(WAIT_TIMEOUT_MS.max)
      .describe("Deadline of the whole call, 1-5000 ms; 1000-2000 advised for voice"),
    runId: z.string().min(1).optional().describe("The run to follow; default the active run"),
    includeLatestResponse: z
      .boolean()
      .optional()
      .describe("Adds the end of the followed run's latest assistant response"),
    maxCharacters: z
      .number()
      .int()
      .min(WAIT_MAX_CHARACTERS.min)
      .max(WAIT_MAX_CHARACTERS.max)
      .optional()
      .describe(`Limits latestResponse (default ${WAIT_MAX_CHARACTERS.default})`),
  }),
  outputSchema: waitOutputSchema,
  annotations: READ_ONLY_ANNOTATIONS,
  async handler(context, input, extra) {
    return waitForThread(context, input, { signal: extra.signal });
  },
});

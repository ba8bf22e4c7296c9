import { MESSAGES_LIMIT, MESSAGES_MAX_CHARACTERS, THREAD_MAX_CHARACTERS } from "@t3-connector/core/state";
import * as z from "zod";
import {
  calledEnvironmentSchema,
  cursorInput,
  environmentInput,
  itemEnvironmentSchema,
  scopeEnvelopeShape,
  searchedPageShape,
  threadItemSchema,
  threadPageLimitInput,
  threadStateSchema,
} from "./listing-schemas.js";
import {
  environmentDiscoverySchema,
  environmentTagSchema,
  historySchema,
  locatingEnvironmentInput,
  threadReadOutputSchema,
} from "./thread-read-schemas.js";

/**
 * The input and output schemas of the read tools that two servers answer under the same name: the
 * read server (every environment, read-only token) and the write bridge (under a lease, `leaseId`
 * added by `leasedInput`). One object per schema, so a client sees one contract per tool name
 * whichever server it called (ADR 0053).
 */

export const t3ThreadContract = {
  inputSchema: z.strictObject({
    environment: locatingEnvironmentInput,
    threadId: z.string().min(1),
    maxCharacters: z
      .number()
      .int()
      .min(THREAD_MAX_CHARACTERS.min)
      .max(THREAD_MAX_CHARACTERS.max)
      .optional()
      .describe(`Limits latestResponse only (default ${THREAD_MAX_CHARACTERS.default})`),
  }),
  outputSchema: threadReadOutputSchema,
};

const messageSchema = z.strictObject({
  messageId: z.string().nullable(),
  role: z.string().nullable(),
  text: z.string(),
  truncated: z.boolean(),
  streaming: z.boolean(),
  createdAt: z.string().nullable(),
});

export const t3MensagensContract = {
  inputSchema: z.strictObject({
    environment: locatingEnvironmentInput,
    threadId: z.string().min(1),
    limit: z
      .number()
      .int()
      .min(MESSAGES_LIMIT.min)
      .max(MESSAGES_LIMIT.max)
      .optional()
      .describe(`How many of the latest messages (default ${MESSAGES_LIMIT.default})`),
    maxCharacters: z
      .number()
      .int()
      .min(MESSAGES_MAX_CHARACTERS.min)
      .max(MESSAGES_MAX_CHARACTERS.max)
      .optional()
      .describe(
        `Characters kept from the start of each message (default ${MESSAGES_MAX_CHARACTERS.default})`,
      ),
  }),
  outputSchema: z.strictObject({
    environment: environmentTagSchema,
    environmentDiscovery: environmentDiscoverySchema.optional(),
    threadId: z.string(),
    messages: z.array(messageSchema),
    history: historySchema,
  }),
};

export const t3AtencaoContract = {
  inputSchema: z.strictObject({ environment: environmentInput }),
  outputSchema: z.object({
    environment: calledEnvironmentSchema.optional(),
    total: z.number().int().min(0),
    ...scopeEnvelopeShape,
    threads: z.array(threadItemSchema),
  }),
};

export const t3ThreadsContract = {
  inputSchema: z.strictObject({
    environment: environmentInput,
    projectId: z
      .string()
      .min(1)
      .optional()
      .describe("Only threads of this project (projectIds differ per environment)."),
    state: threadStateSchema.optional().describe("Only threads in this canonical state."),
    includeNoRun: z
      .boolean()
      .optional()
      .describe(
        "Without state: also list threads that never ran (default false: they are left out and counted in hiddenNoRun).",
      ),
    includeArchived: z
      .boolean()
      .optional()
      .describe("Also list archived threads, each marked archived (default false)."),
    woke: z.boolean().optional().describe("true: only threads T3 marks Woke; false: only the others."),
    search: z
      .string()
      .min(1)
      .optional()
      .describe("Part of the title or threadId; case and accents are ignored."),
    limit: threadPageLimitInput,
    cursor: cursorInput,
  }),
  outputSchema: z.object({
    ...searchedPageShape,
    changedSinceStart: z.number().int().min(1).optional(),
    hiddenNoRun: z.number().int().min(1).optional(),
    /** With hiddenNoRun: what was left out and the input that lists it, in one sentence. */
    note: z.string().optional(),
    ...scopeEnvelopeShape,
    threads: z.array(threadItemSchema),
  }),
};

const projectItemSchema = z.object({
  projectId: z.string(),
  title: z.string(),
  environment: itemEnvironmentSchema,
  directory: z.string().nullable(),
  runningThreads: z.number().int().min(0),
  threadsNeedingIntervention: z.number().int().min(0),
});

export const t3ProjetosContract = {
  inputSchema: z.strictObject({
    environment: environmentInput,
    search: z
      .string()
      .min(1)
      .optional()
      .describe("Part of the title or projectId; case and accents are ignored."),
    limit: z.number().int().min(1).optional().describe("Page size (default: every match)."),
    cursor: cursorInput,
  }),
  outputSchema: z.object({
    ...searchedPageShape,
    ...scopeEnvelopeShape,
    projects: z.array(projectItemSchema),
  }),
};
export type ProjectItem = z.output<typeof projectItemSchema>;

/** The five shared contracts by tool name: what the bridge's leased reads answer under these names. */
export const SHARED_READ_CONTRACTS = {
  t3_projetos: t3ProjetosContract,
  t3_threads: t3ThreadsContract,
  t3_atencao: t3AtencaoContract,
  t3_thread: t3ThreadContract,
  t3_mensagens: t3MensagensContract,
} as const;
export type SharedReadToolName = keyof typeof SHARED_READ_CONTRACTS;

/** The lease a read under the write lease runs in (the bridge's tools). */
export const leaseIdInput = z.string().trim().min(1).max(1024).describe("The lease to read under.");

/** A shared tool's input with `leaseId`: every key of the read server's input, plus the lease. */
export function leasedInput<Shape extends z.ZodRawShape>(input: z.ZodObject<Shape>) {
  return input.extend({ leaseId: leaseIdInput });
}

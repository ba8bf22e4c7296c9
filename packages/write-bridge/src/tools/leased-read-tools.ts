/**
 * Reads under the write lease, under the read server's tool names. The gate
 * limits them to the lease's environment and projects and re-checks the lease around the read;
 * the bridge only shapes the answer with core's state projection and keeps it small.
 */
import {
  attentionThreads,
  compareThreadsForListing,
  type HistoryBoundsInput,
  MESSAGES_LIMIT,
  recentMessages,
  type ShellThreadInput,
  type ThreadProjectionInput,
  type ThreadState,
  threadRead,
  threadSummary,
} from "@t3-connector/core/state";
import * as z from "zod";
import { type BridgeContext, defineBridgeTool, READ_ONLY } from "../bridge-tool.js";

const id = z.string().trim().min(1).max(1024);
const leased = {
  leaseId: id,
  /** Alias or environmentId of an environment in the lease; there is no default. */
  environment: z.string().trim().min(1).max(1024),
};
const LIST_LIMIT = { min: 1, max: 100, default: 30 } as const;
const listLimit = z.number().int().min(LIST_LIMIT.min).max(LIST_LIMIT.max).default(LIST_LIMIT.default);

const AFTER_LEASE_CLOSED = "On lease_closed call t3_pedir_aprovacao. This read never renews the lease.";

/** Where the read ran, and the lease it ran under (ADR 0028). */
const where = { leaseId: z.string(), environment: z.string(), environmentId: z.string() };
const threadRow = z.object({
  threadId: z.string().nullable(),
  title: z.string().nullable(),
  projectId: z.string().nullable(),
  state: z.string(),
  runId: z.string().nullable(),
  updatedAt: z.string().nullable(),
  settled: z.boolean(),
  archived: z.boolean(),
});
/** A row of the listing; `state` keeps core's type so the attention rule applies to it. */
type ThreadRow = Omit<z.output<typeof threadRow>, "state"> & { state: ThreadState };

interface ReadAnswer {
  leaseId: string;
  environment: string;
  environmentId: string;
  [key: string]: unknown;
}

async function leasedRead(
  context: BridgeContext,
  input: { leaseId: string; environment: string },
  read: "projects" | "threads" | "thread",
  extra: { signal: AbortSignal },
  target: { projectId?: string; threadId?: string; includeArchived?: boolean } = {},
): Promise<ReadAnswer> {
  const answer = await context.relay.call(
    { op: "leased_read", leaseId: input.leaseId, environment: input.environment, read, ...target },
    extra.signal,
  );
  return {
    ...answer,
    leaseId: String(answer.leaseId ?? input.leaseId),
    environment: String(answer.environment ?? input.environment),
    environmentId: String(answer.environmentId ?? ""),
  };
}

function rowsOf(value: unknown): ShellThreadInput[] {
  return Array.isArray(value) ? (value as ShellThreadInput[]) : [];
}

function summarize(rows: readonly ShellThreadInput[], now: number): ThreadRow[] {
  return rows.map((row) => {
    const summary = threadSummary(row, { now });
    return {
      threadId: summary.threadId,
      title: summary.title,
      projectId: summary.project.projectId,
      state: summary.state,
      runId: summary.runId,
      updatedAt: summary.updatedAt,
      settled: summary.settled,
      archived: Boolean(row.archivedAt),
    };
  });
}

export const leasedProjectsTool = defineBridgeTool({
  name: "t3_projetos",
  title: "Projects in the lease",
  description: `Lists the projects the write lease covers in one environment. ${AFTER_LEASE_CLOSED}`,
  inputSchema: z.strictObject(leased),
  outputSchema: z.object({
    ...where,
    projects: z.array(
      z.object({ projectId: z.string(), title: z.string().nullable(), workspaceRoot: z.string().nullable() }),
    ),
  }),
  annotations: READ_ONLY,
  async handler(context, input, extra) {
    const answer = await leasedRead(context, input, "projects", extra);
    const projects = (Array.isArray(answer.projects) ? answer.projects : []) as Record<string, unknown>[];
    return {
      leaseId: answer.leaseId,
      environment: answer.environment,
      environmentId: answer.environmentId,
      projects: projects.map((project) => ({
        projectId: String(project.id),
        title: typeof project.title === "string" ? project.title : null,
        workspaceRoot: typeof project.workspaceRoot === "string" ? project.workspaceRoot : null,
      })),
    };
  },
});

const threadsInput = z.strictObject({
  ...leased,
  projectId: id.optional(),
  includeArchived: z.boolean().default(false),
  limit: listLimit,
});

export const leasedThreadsTool = defineBridgeTool({
  name: "t3_threads",
  title: "Threads in the lease",
  description: `Lists threads of the lease's projects (newest first), optionally of one project. Use t3_thread for one thread's detail. ${AFTER_LEASE_CLOSED}`,
  inputSchema: threadsInput,
  outputSchema: z.object({ ...where, threads: z.array(threadRow), truncated: z.boolean() }),
  annotations: READ_ONLY,
  async handler(context, input, extra) {
    const answer = await leasedRead(context, input, "threads", extra, {
      ...(input.projectId === undefined ? {} : { projectId: input.projectId }),
      // Archived threads are not in the shell: the gate reads them from their own snapshot.
      ...(input.includeArchived ? { includeArchived: true } : {}),
    });
    const rows = summarize(rowsOf(answer.threads), context.now())
      .filter((row) => input.includeArchived || !row.archived)
      .sort(compareThreadsForListing);
    return {
      leaseId: answer.leaseId,
      environment: answer.environment,
      environmentId: answer.environmentId,
      threads: rows.slice(0, input.limit),
      truncated: rows.length > input.limit,
    };
  },
});

export const leasedAttentionTool = defineBridgeTool({
  name: "t3_atencao",
  title: "Threads that need the user",
  description:
    "Lists the lease's threads that need the user: a pending question or approval (answer it with t3_escrever_runtime_request_answer " +
    `or t3_escrever_runtime_request_approve, never with a send), or a failed run nobody settled. ${AFTER_LEASE_CLOSED}`,
  inputSchema: z.strictObject({ ...leased, projectId: id.optional() }),
  outputSchema: z.object({ ...where, threads: z.array(threadRow) }),
  annotations: READ_ONLY,
  async handler(context, input, extra) {
    const answer = await leasedRead(
      context,
      input,
      "threads",
      extra,
      input.projectId === undefined ? {} : { projectId: input.projectId },
    );
    const rows = summarize(rowsOf(answer.threads), context.now()).filter((row) => !row.archived);
    return {
      leaseId: answer.leaseId,
      environment: answer.environment,
      environmentId: answer.environmentId,
      threads: attentionThreads(rows),
    };
  },
});

interface ThreadAnswer {
  row: ShellThreadInput;
  projection: ThreadProjectionInput;
  bounds: HistoryBoundsInput;
  leaseId: string;
  environment: string;
  environmentId: string;
}

async function readThread(
  context: BridgeContext,
  input: { leaseId: string; environment: string; threadId: string },
  extra: { signal: AbortSignal },
): Promise<ThreadAnswer> {
  const answer = await leasedRead(context, input, "thread", extra, { threadId: input.threadId });
  const detail = (answer.detail ?? {}) as HistoryBoundsInput & { projection?: ThreadProjectionInput };
  return {
    row: (answer.thread ?? {}) as ShellThreadInput,
    projection: detail.projection ?? {},
    bounds: detail,
    leaseId: answer.leaseId,
    environment: answer.environment,
    environmentId: answer.environmentId,
  };
}

export const leasedThreadTool = defineBridgeTool({
  name: "t3_thread",
  title: "One thread in the lease",
  description:
    "Reads one thread of the lease: state, active run, model and pending requests with the exact tool to answer each. " +
    `A thread outside the lease's projects is thread_not_found. ${AFTER_LEASE_CLOSED}`,
  inputSchema: z.strictObject({ ...leased, threadId: id }),
  outputSchema: z.object({ ...where, thread: z.record(z.string(), z.unknown()) }),
  annotations: READ_ONLY,
  async handler(context, input, extra) {
    const read = await readThread(context, input, extra);
    return {
      leaseId: read.leaseId,
      environment: read.environment,
      environmentId: read.environmentId,
      thread: threadRead(read.row, read.projection, read.bounds, { now: context.now() }) as unknown as Record<
        string,
        unknown
      >,
    };
  },
});

export const leasedMessagesTool = defineBridgeTool({
  name: "t3_mensagens",
  title: "Recent messages of a thread in the lease",
  description: `Returns the last messages of one thread of the lease, oldest first, each text cut to its start. ${AFTER_LEASE_CLOSED}`,
  inputSchema: z.strictObject({
    ...leased,
    threadId: id,
    limit: z.number().int().min(MESSAGES_LIMIT.min).max(MESSAGES_LIMIT.max).default(MESSAGES_LIMIT.default),
  }),
  outputSchema: z.object({
    ...where,
    threadId: z.string(),
    messages: z.array(
      z.object({
        messageId: z.string().nullable(),
        role: z.string().nullable(),
        text: z.string(),
        truncated: z.boolean(),
        streaming: z.boolean(),
        createdAt: z.string().nullable(),
      }),
    ),
  }),
  annotations: READ_ONLY,
  async handler(context, input, extra) {
    const read = await readThread(context, input, extra);
    return {
      leaseId: read.leaseId,
      environment: read.environment,
      environmentId: read.environmentId,
      threadId: input.threadId,
      messages: recentMessages(read.projection, { limit: input.limit }),
    };
  },
});

export const LEASED_READ_TOOLS = [
  leasedProjectsTool,
  leasedThreadsTool,
  leasedAttentionTool,
  leasedThreadTool,
  leasedMessagesTool,
];

/**
 * Reads under the write lease, under the read server's tool names and with its contracts: each
 * tool's input is the read tool's with `leaseId` (`leasedInput`), its output schema the very same
 * object (`@t3-connector/mcp-tools/read-contracts`, ADR 0053). The gate limits a read to the
 * lease's environment and projects and re-checks the lease around it; the bridge shapes the answer
 * with core's state projection, as the read server does.
 */
import { paginate, type SignatureValue } from "@t3-connector/core/pagination";
import { matchesSearch, normalizeSearchTerm } from "@t3-connector/core/search";
import {
  attentionThreads,
  filterThreadList,
  type HistoryBoundsInput,
  historyBounds,
  MESSAGES_LIMIT,
  MESSAGES_MAX_CHARACTERS,
  recentMessages,
  type ShellThreadInput,
  THREAD_MAX_CHARACTERS,
  type ThreadProjectionInput,
  threadRead,
} from "@t3-connector/core/state";
import {
  hiddenNoRunNote,
  leasedInput,
  PROJECT_ORDER,
  THREAD_LISTING_ORDER,
  THREAD_PAGE_DEFAULT_LIMIT,
  t3AtencaoContract,
  t3MensagensContract,
  t3ProjetosContract,
  t3ThreadContract,
  t3ThreadsContract,
} from "@t3-connector/mcp-tools/read-contracts";
import * as z from "zod";
import { type BridgeContext, defineBridgeTool, READ_ONLY } from "../bridge-tool.js";
import {
  calledEnvironment,
  itemEnvironment,
  type LeasedWhere,
  leasedCursors,
  leasedIdentity,
  leasedRead,
  oneEnvironmentEnvelope,
  pageFields,
  rowsOf,
  threadItem,
} from "./leased-read.js";

const AFTER_LEASE_CLOSED = "On lease_closed call t3_pedir_aprovacao. This read never renews the lease.";
const ONE_ENVIRONMENT = "Reads the one environment of the lease named by environment.";

export const leasedProjectsTool = defineBridgeTool({
  name: "t3_projetos",
  title: "Projects in the lease",
  description: `Lists the projects the write lease covers in one environment, with how many threads are running or need intervention. ${ONE_ENVIRONMENT} ${AFTER_LEASE_CLOSED}`,
  inputSchema: leasedInput(t3ProjetosContract.inputSchema),
  outputSchema: t3ProjetosContract.outputSchema,
  annotations: READ_ONLY,
  async handler(context, input, extra) {
    const answer = await leasedRead(context, input, "projects", extra.signal);
    const threads = await leasedRead(context, input, "threads", extra.signal);
    const now = context.now();
    const counts = new Map<string, { running: number; needsIntervention: number }>();
    for (const row of rowsOf(threads.body.threads)) {
      if (row.archivedAt) continue;
      const { state } = threadItem(answer, row, now);
      const entry = counts.get(String(row.projectId)) ?? { running: 0, needsIntervention: 0 };
      if (state === "running") entry.running += 1;
      if (state === "needs_intervention") entry.needsIntervention += 1;
      counts.set(String(row.projectId), entry);
    }
    const search = normalizeSearchTerm(input.search);
    const projects = (Array.isArray(answer.body.projects) ? answer.body.projects : []) as Record<
      string,
      unknown
    >[];
    const items = projects
      .filter((project) => !project.archivedAt)
      .map((project) => ({
        projectId: String(project.id),
        title: typeof project.title === "string" ? project.title : "",
        environment: itemEnvironment(answer),
        directory: typeof project.workspaceRoot === "string" ? project.workspaceRoot : null,
        runningThreads: counts.get(String(project.id))?.running ?? 0,
        threadsNeedingIntervention: counts.get(String(project.id))?.needsIntervention ?? 0,
      }))
      .filter((project) => matchesSearch(search, { id: project.projectId, title: project.title }));
    const page = paginate(leasedCursors(), items, PROJECT_ORDER, {
      signature: leasedIdentity("t3_projetos", [search ?? null], answer),
      cursor: input.cursor,
      limit: input.limit,
    });
    return {
      environment: calledEnvironment(answer),
      ...pageFields(page),
      ...(input.search === undefined ? {} : { search: input.search }),
      ...oneEnvironmentEnvelope(answer, items.length),
      projects: page.items,
    };
  },
});

export const leasedThreadsTool = defineBridgeTool({
  name: "t3_threads",
  title: "Threads in the lease",
  description: `Lists threads of the lease's projects (newest first), optionally of one project; includeArchived adds archived threads, marked archived. Use t3_thread for one thread's detail. ${ONE_ENVIRONMENT} ${AFTER_LEASE_CLOSED}`,
  inputSchema: leasedInput(t3ThreadsContract.inputSchema).extend({
    includeArchived: z.boolean().optional().describe("Also list archived threads (default false)."),
  }),
  outputSchema: t3ThreadsContract.outputSchema,
  annotations: READ_ONLY,
  async handler(context, input, extra) {
    const answer = await leasedRead(context, input, "threads", extra.signal, {
      ...(input.projectId === undefined ? {} : { projectId: input.projectId }),
      // Archived threads are not in the shell: the gate reads them from their own snapshot.
      ...(input.includeArchived ? { includeArchived: true } : {}),
    });
    const now = context.now();
    const search = normalizeSearchTerm(input.search);
    const includeNoRun = input.includeNoRun ?? false;
    const items = rowsOf(answer.body.threads)
      .filter((row) => input.includeArchived === true || !row.archivedAt)
      .filter((row) => matchesSearch(search, { id: String(row.id ?? ""), title: String(row.title ?? "") }))
      .map((row) => threadItem(answer, row, now));
    const { threads, hiddenNoRun } = filterThreadList(items, {
      ...(input.state === undefined ? {} : { state: input.state }),
      includeNoRun,
      ...(input.woke === undefined ? {} : { woke: input.woke }),
    });
    const filters: SignatureValue[] = [
      input.projectId ?? null,
      input.state ?? null,
      includeNoRun,
      search ?? null,
      ...(input.woke === undefined ? [] : [{ woke: input.woke }]),
      ...(input.includeArchived ? [{ includeArchived: true }] : []),
    ];
    const page = paginate(leasedCursors(), threads, THREAD_LISTING_ORDER, {
      signature: leasedIdentity("t3_threads", filters, answer),
      cursor: input.cursor,
      limit: input.limit ?? THREAD_PAGE_DEFAULT_LIMIT,
    });
    return {
      environment: calledEnvironment(answer),
      ...pageFields(page),
      ...(input.search === undefined ? {} : { search: input.search }),
      ...(hiddenNoRun > 0 ? { hiddenNoRun, note: hiddenNoRunNote(hiddenNoRun) } : {}),
      ...oneEnvironmentEnvelope(answer, threads.length),
      threads: page.items,
    };
  },
});

export const leasedAttentionTool = defineBridgeTool({
  name: "t3_atencao",
  title: "Threads that need the user",
  description:
    "Lists the lease's threads that need the user: a pending question or approval (answer it with t3_escrever_runtime_request_answer " +
    `or t3_escrever_runtime_request_approve, never with a send), or a failed run nobody settled. ${ONE_ENVIRONMENT} ${AFTER_LEASE_CLOSED}`,
  inputSchema: leasedInput(t3AtencaoContract.inputSchema),
  outputSchema: t3AtencaoContract.outputSchema,
  annotations: READ_ONLY,
  async handler(context, input, extra) {
    const answer = await leasedRead(context, input, "threads", extra.signal);
    const now = context.now();
    const threads = attentionThreads(
      rowsOf(answer.body.threads)
        .filter((row) => !row.archivedAt)
        .map((row) => threadItem(answer, row, now)),
    );
    return {
      environment: calledEnvironment(answer),
      total: threads.length,
      ...oneEnvironmentEnvelope(answer, threads.length),
      threads,
    };
  },
});

interface ThreadAnswer {
  where: LeasedWhere;
  row: ShellThreadInput;
  projection: ThreadProjectionInput;
  bounds: HistoryBoundsInput;
}

async function readThread(
  context: BridgeContext,
  input: { leaseId: string; environment?: string | undefined; threadId: string },
  signal: AbortSignal,
): Promise<ThreadAnswer> {
  const answer = await leasedRead(context, input, "thread", signal, { threadId: input.threadId });
  const detail = (answer.body.detail ?? {}) as HistoryBoundsInput & { projection?: ThreadProjectionInput };
  return {
    where: answer,
    row: (answer.body.thread ?? {}) as ShellThreadInput,
    projection: detail.projection ?? {},
    bounds: detail,
  };
}

export const leasedThreadTool = defineBridgeTool({
  name: "t3_thread",
  title: "One thread in the lease",
  description:
    "Reads one thread of the lease: state, active run, model and pending requests with the exact tool to answer each. " +
    `A thread outside the lease's projects is thread_not_found. ${ONE_ENVIRONMENT} ${AFTER_LEASE_CLOSED}`,
  inputSchema: leasedInput(t3ThreadContract.inputSchema),
  outputSchema: t3ThreadContract.outputSchema,
  annotations: READ_ONLY,
  async handler(context, input, extra) {
    const read = await readThread(context, input, extra.signal);
    return {
      environment: calledEnvironment(read.where),
      ...threadRead(read.row, read.projection, read.bounds, {
        now: context.now(),
        maxCharacters: input.maxCharacters ?? THREAD_MAX_CHARACTERS.default,
      }),
    };
  },
});

export const leasedMessagesTool = defineBridgeTool({
  name: "t3_mensagens",
  title: "Recent messages of a thread in the lease",
  description: `Returns the last messages of one thread of the lease, oldest first, each text cut to its start. ${ONE_ENVIRONMENT} ${AFTER_LEASE_CLOSED}`,
  inputSchema: leasedInput(t3MensagensContract.inputSchema),
  outputSchema: t3MensagensContract.outputSchema,
  annotations: READ_ONLY,
  async handler(context, input, extra) {
    const read = await readThread(context, input, extra.signal);
    return {
      environment: calledEnvironment(read.where),
      threadId: input.threadId,
      messages: recentMessages(read.projection, {
        limit: input.limit ?? MESSAGES_LIMIT.default,
        maxCharacters: input.maxCharacters ?? MESSAGES_MAX_CHARACTERS.default,
      }),
      history: historyBounds(read.bounds),
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

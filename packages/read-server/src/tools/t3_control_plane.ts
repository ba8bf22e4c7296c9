import {
  type ChangeSummary,
  CONTROL_PLANE_LIMIT,
  type ControlPlaneCandidate,
  type ControlPlaneItem,
  controlPlaneLists,
  countByState,
  type LimitedList,
  type ShellThreadInput,
  THREAD_STATES,
} from "@t3-connector/core/state";
import {
  cachedThreadSummary,
  controlPlaneRows,
  type ItemEnvironment,
  projectsById,
  stateRow,
} from "@t3-connector/mcp-tools/read-answers";
import {
  calledEnvironmentSchema,
  changeSummarySchema,
  environmentFailureSchema,
  environmentInput,
  threadItemSchema,
} from "@t3-connector/mcp-tools/read-contracts";
import * as z from "zod";
import { listedChangeSummaries, summaryKey, type WantedSummary } from "../diffs/listed-change-summaries.js";
import { withSecretsFromConnection } from "../listing/secrets-from-threads.js";
import { sweepShells } from "../listing/shells.js";
import { defineReadTool, READ_ONLY_ANNOTATIONS } from "../read-tool.js";

const inputSchema = z.strictObject({
  environment: environmentInput,
  limit: z
    .number()
    .int()
    .min(CONTROL_PLANE_LIMIT.min)
    .max(CONTROL_PLANE_LIMIT.max)
    .optional()
    .describe(
      `Items per list, ${CONTROL_PLANE_LIMIT.min}-${CONTROL_PLANE_LIMIT.max} (default ${CONTROL_PLANE_LIMIT.default}).`,
    ),
});

const controlPlaneItemSchema = threadItemSchema.extend({
  activeRun: z.object({ runId: z.string().nullable(), status: z.string() }).nullable(),
  pendingRequest: z
    .object({
      requestId: z.string().nullable(),
      kind: z.string().nullable(),
      reason: z.string(),
      since: z.string().nullable(),
      contentInThreadRead: z.literal(true),
    })
    .nullable(),
  readyReasons: z
    .array(
      z.enum([
        "latest_run_completed_unsettled",
        "latest_run_failed_unsettled",
        "latest_run_cancelled_unsettled",
        "woke",
      ]),
    )
    .optional(),
  blockers: z.array(z.literal("background_work_pending")).optional(),
  actionableNow: z.boolean().optional(),
  changes: changeSummarySchema
    .nullable()
    .optional()
    .describe(
      "What its latest run that left a checkpoint changed; null: none did; absent: not read this call",
    ),
  next: z.object({
    tool: z.literal("t3_thread"),
    input: z.object({ environment: z.string(), threadId: z.string().nullable() }),
  }),
});

const listSchema = z.object({
  total: z.number().int().min(0),
  returned: z.number().int().min(0),
  truncated: z.boolean(),
  threads: z.array(controlPlaneItemSchema),
});

const byStateSchema = z.object(
  Object.fromEntries(THREAD_STATES.map((state) => [state, z.number().int().min(0)])) as Record<
    (typeof THREAD_STATES)[number],
    z.ZodNumber
  >,
);

const outputSchema = z.object({
  contractVersion: z.literal(1),
  scope: z.enum(["environment", "all_environments"]),
  environment: calledEnvironmentSchema.optional(),
  complete: z.boolean(),
  incompleteReason: z.string().optional(),
  generatedAt: z.string(),
  coherence: z.object({ mode: z.literal("per_environment"), note: z.string() }),
  queriedEnvironments: z.array(
    z.object({
      alias: z.string(),
      environmentId: z.string(),
      name: z.string().nullable(),
      found: z.number().int().min(0),
      snapshotSequence: z.number().int().min(0).nullable(),
      readAt: z.string(),
      visibleThreads: z.number().int().min(0),
      byState: byStateSchema,
    }),
  ),
  environmentFailures: z.array(environmentFailureSchema),
  limit: z.number().int(),
  needsIntervention: listSchema,
  running: listSchema,
  ready: listSchema,
});

type Changes = Map<string, ChangeSummary | null>;

/**
 * Core's items allow a missing server label; ours always say `name` (null when unknown). Each
 * item carries its change summary where it is known (`changes`).
 */
function named(
  list: LimitedList<ControlPlaneItem>,
  changes: Changes,
): LimitedList<ControlPlaneItem & { environment: ItemEnvironment; changes?: ChangeSummary | null }> {
  return {
    ...list,
    threads: list.threads.map((item) => {
      const key = summaryKey(item.environment.alias, item.threadId ?? "");
      return {
        ...item,
        environment: { ...item.environment, name: item.environment.name ?? null },
        ...(changes.has(key) ? { changes: changes.get(key) ?? null } : {}),
      };
    }),
  };
}

/** The listed threads whose summary to read: those that ran (one that never ran changed nothing). */
function wantedSummaries(
  lists: ReturnType<typeof controlPlaneLists>,
  rows: ReadonlyMap<string, ShellThreadInput>,
): { wanted: WantedSummary[]; neverRan: string[] } {
  const wanted: WantedSummary[] = [];
  const neverRan: string[] = [];
  for (const item of [...lists.needsIntervention.threads, ...lists.running.threads, ...lists.ready.threads]) {
    const key = summaryKey(item.environment.alias, item.threadId ?? "");
    const row = rows.get(key);
    if (!row?.latestRunId) neverRan.push(key);
    else
      wanted.push({
        alias: item.environment.alias,
        threadId: item.threadId ?? "",
        version: `${row.latestRunId}|${row.status ?? ""}|${row.latestRunCompletedAt ?? ""}`,
      });
  }
  return { wanted, neverRan };
}

const COHERENCE_NOTE =
  "Each environment is one shell read (one backend snapshot at readAt). Environments are read concurrently, " +
  "not at one instant, and a thread can change right after its environment was read.";

export const t3ControlPlaneTool = defineReadTool({
  name: "t3_control_plane",
  title: "Control plane snapshot",
  description:
    "One call to decide what to do next across every environment (or only environment): threads that need " +
    "intervention, that are running, and that are ready (latest run ended and not settled or snoozed, or woke), " +
    "with blockers, the change summary of each thread's latest checkpoint (changes; t3_diff shows the patch) and " +
    "the t3_thread call that reads each. Ready is not acceptance: read the thread before acting. " +
    "If complete is false, say which environments are missing instead of reporting that nothing needs attention. " +
    "For more than limit items, call t3_threads with state in that environment.",
  inputSchema,
  outputSchema,
  annotations: READ_ONLY_ANNOTATIONS,
  // MCP Apps: a host that renders views shows the board (src/board/) with this result; others
  // ignore it. The flat key is the same link as hosts of the extension's first drafts read it.
  _meta: {
    ui: { resourceUri: "ui://t3-connector/board.html" },
    "ui/resourceUri": "ui://t3-connector/board.html",
  },
  async handler(context, input, extra) {
    const now = context.clock.now();
    const limit = input.limit ?? CONTROL_PLANE_LIMIT.default;
    const { results, envelope } = await sweepShells(
      context,
      input.environment,
      extra.signal,
      (view) => {
        const projects = projectsById(view);
        const { rows, byState, visible } = controlPlaneRows(view);
        const candidates: ControlPlaneCandidate[] = rows.map((thread) => ({
          environment: view.environment,
          thread: stateRow(thread),
          summary: cachedThreadSummary(thread, now, projects.get(thread.projectId)),
        }));
        return {
          candidates,
          byState,
          visible,
          snapshotSequence: view.shell.snapshotSequence ?? null,
          readAt: view.readAt,
        };
      },
      (value) => value.visible,
      // A server whose rows name no secret request: read the running threads for one (ADR 0069).
      { enrich: withSecretsFromConnection },
    );

    const lists = controlPlaneLists(
      results.flatMap((result) => result.value.candidates),
      { now, limit },
    );
    const rows = new Map(
      results.flatMap((result) =>
        result.value.candidates.map((candidate) => [
          summaryKey(candidate.environment.alias, candidate.thread.id ?? ""),
          candidate.thread,
        ]),
      ),
    );
    const { wanted, neverRan } = wantedSummaries(lists, rows);
    const changes: Changes = await listedChangeSummaries(context, wanted, extra.signal);
    for (const key of neverRan) changes.set(key, null);
    const queriedEnvironments = envelope.queriedEnvironments.map((queried) => {
      const value = results.find(
        (result) => result.environment.environmentId === queried.environmentId,
      )?.value;
      return {
        ...queried,
        snapshotSequence: value?.snapshotSequence ?? null,
        readAt: value?.readAt ?? new Date(now).toISOString(),
        visibleThreads: value?.visible ?? 0,
        byState: value?.byState ?? countByState([]),
      };
    });
    const failures = envelope.environmentFailures;
    return {
      contractVersion: 1 as const,
      scope: input.environment === undefined ? ("all_environments" as const) : ("environment" as const),
      ...(envelope.environment === undefined ? {} : { environment: envelope.environment }),
      complete: envelope.complete,
      ...(envelope.complete
        ? {}
        : {
            incompleteReason:
              `Not a global view: ${failures.map((f) => `${f.alias} (${f.code})`).join(", ")} did not answer; ` +
              "their threads are missing from every list and count.",
          }),
      generatedAt: new Date(now).toISOString(),
      coherence: { mode: "per_environment" as const, note: COHERENCE_NOTE },
      queriedEnvironments,
      environmentFailures: failures,
      limit,
      needsIntervention: named(lists.needsIntervention, changes),
      running: named(lists.running, changes),
      ready: named(lists.ready, changes),
    };
  },
});

/** Actions 32-36: launching a thread, sending a message, metadata and pull-request links. */
import { z } from "zod";
import { defineAction, defineLaunchAction, PROVENANCE, requireId, threadInput } from "./define.js";
import {
  attachments,
  idString,
  MAX_ID_CHARS,
  messageText,
  modelSelection,
  PULL_REQUEST_SOURCES,
  requiredId,
  runtimeMode,
  titleText,
  workspaceStrategy,
} from "./fields.js";
import {
  MODEL_SELECTION_GUARD,
  noPendingRequest,
  REQUEST_ID_GUARD,
  THREAD_PROVIDER_GUARD,
  workspacePath,
} from "./guards.js";

/** The writes `t3_preflight` judges before a client asks the person (ADR 0075). */
export const PREFLIGHT_ACTIONS = ["thread.launch", "thread.send"] as const;
export type PreflightAction = (typeof PREFLIGHT_ACTIONS)[number];

export const threadLaunch = defineLaunchAction({
  action: "thread.launch",
  label: "Start a new thread",
  group: "run",
  runEffect: "starts-run",
  description: "Creates a thread in a project with a model and workspace, optionally with a first message.",
  inputSchema: z
    .strictObject({
      projectId: idString,
      title: titleText,
      modelSelection,
      workspaceStrategy,
      // Omitted: the sender's ceiling fills it (prepareAction, ADR 0037).
      runtimeMode: runtimeMode.optional(),
      text: messageText.optional(),
      attachments: attachments.optional(),
    })
    .refine((input) => input.attachments === undefined || input.text !== undefined, {
      message: "attachments need a text: they travel in the first message",
      path: ["attachments"],
    }),
  extraIds: ["threadId", "messageId"],
  guards: [MODEL_SELECTION_GUARD, workspacePath("workspaceStrategy", "worktreePath")],
  runtimeModeField: "runtimeMode",
  serializeByProject: true,
  targets: (input) => ({ threadIds: [], projectIds: [input.projectId] }),
  launch: (input, ids) => ({
    commandId: ids.commandId,
    creationSource: PROVENANCE.creationSource,
    threadId: requireId(ids, "threadId", "thread.launch"),
    projectId: input.projectId,
    title: input.title,
    modelSelection: input.modelSelection,
    runtimeMode: input.runtimeMode,
    interactionMode: "default",
    workspaceStrategy: input.workspaceStrategy,
    initialMessage:
      input.text === undefined
        ? undefined
        : {
            messageId: requireId(ids, "messageId", "thread.launch"),
            text: input.text,
            attachments: input.attachments ?? [],
          },
  }),
});

const sendCommon = {
  threadId: idString,
  text: messageText,
  /** Must equal the envelope's operationId; checked by the gate (request_id_mismatch). */
  clientRequestId: idString,
  attachments: attachments.optional(),
};

/** The delivery is always explicit: no default, no fallback, a refused steer never becomes a queue. */
export const threadSendInput = z.discriminatedUnion(
  "delivery",
  [
    z.strictObject({
      ...sendCommon,
      delivery: z.literal("steer_active"),
      targetRunId: requiredId("target_run_id_required"),
    }),
    z.strictObject({ ...sendCommon, delivery: z.literal("start_immediately") }),
    z.strictObject({
      ...sendCommon,
      delivery: z.literal("restart_active"),
      targetRunId: requiredId("target_run_id_required"),
    }),
    z.strictObject({
      ...sendCommon,
      delivery: z.literal("queue_after_active"),
      deferUntilActiveCompletes: z.literal(true, {
        error: "queue_explicit_intent_required: queue_after_active needs deferUntilActiveCompletes: true",
      }),
    }),
  ],
  {
    error:
      "delivery_required: delivery must be one of steer_active, start_immediately, restart_active, queue_after_active",
  },
);
export type ThreadSendInput = z.output<typeof threadSendInput>;

function dispatchMode(input: ThreadSendInput): Record<string, string> {
  switch (input.delivery) {
    case "steer_active":
    case "restart_active":
      return { type: input.delivery, targetRunId: input.targetRunId };
    case "start_immediately":
    case "queue_after_active":
      return { type: input.delivery };
  }
}

export const threadSend = defineAction({
  action: "thread.send",
  label: "Send a message",
  group: "run",
  runEffect: "starts-run",
  description: "Sends a message to the thread's agent, which may start or redirect a run.",
  inputSchema: threadSendInput,
  commandType: "message.dispatch",
  extraIds: ["messageId"],
  guards: [REQUEST_ID_GUARD, noPendingRequest(null), THREAD_PROVIDER_GUARD],
  fields: (input, ids) => ({
    ...PROVENANCE,
    threadId: input.threadId,
    messageId: requireId(ids, "messageId", "thread.send"),
    text: input.text,
    attachments: input.attachments ?? [],
    dispatchMode: dispatchMode(input),
  }),
});

export const threadMetadataUpdate = defineAction({
  action: "thread.metadata.update",
  label: "Change branch, worktree or title",
  group: "run",
  // A branch or worktree change moves where the thread's queued and next runs work; a title does not.
  runEffect: "changes-run",
  effectHolds: (input) => input.branch !== undefined || input.worktreePath !== undefined,
  description: "Changes the thread's title, branch or worktree path.",
  inputSchema: threadInput({
    title: titleText.optional(),
    regenerateTitle: z.boolean().optional(),
    branch: idString.nullable().optional(),
    worktreePath: idString.nullable().optional(),
    expectedWorktreePath: idString.nullable().optional(),
  })
    .refine(
      (input) =>
        input.title !== undefined ||
        input.regenerateTitle === true ||
        input.branch !== undefined ||
        input.worktreePath !== undefined,
      "nothing to update: give title, regenerateTitle, branch or worktreePath",
    )
    .refine((input) => !(input.title !== undefined && input.regenerateTitle === true), {
      message: "title and regenerateTitle: true exclude each other",
      path: ["regenerateTitle"],
    }),
  guards: [workspacePath("worktreePath")],
  fields: (input) => ({
    threadId: input.threadId,
    title: input.title,
    regenerateTitle: input.regenerateTitle,
    branch: input.branch,
    worktreePath: input.worktreePath,
    expectedWorktreePath: input.expectedWorktreePath,
  }),
});

const pullRequestRef = {
  host: z.string().trim().min(1).max(255),
  repository: idString,
  number: z.number().int().positive(),
};

export const threadPullRequestLink = defineAction({
  action: "thread.pull-request.link",
  label: "Link a pull request",
  group: "organize",
  runEffect: "runs-nothing",
  description: "Links a pull request to the thread.",
  inputSchema: threadInput({
    ...pullRequestRef,
    url: z.url({ protocol: /^https?$/ }).max(MAX_ID_CHARS),
    source: z.enum(PULL_REQUEST_SOURCES),
  }),
  fields: (input) => ({
    threadId: input.threadId,
    host: input.host,
    repository: input.repository,
    number: input.number,
    url: input.url,
    source: input.source,
  }),
});

export const threadPullRequestUnlink = defineAction({
  action: "thread.pull-request.unlink",
  label: "Unlink a pull request",
  group: "organize",
  runEffect: "runs-nothing",
  description: "Removes a pull-request link from the thread.",
  inputSchema: threadInput(pullRequestRef),
  fields: (input) => ({
    threadId: input.threadId,
    host: input.host,
    repository: input.repository,
    number: input.number,
  }),
});

/**
 * Newer T3 servers only: "Watch for changes" on a pull request (checks, reviews, conflicts wake the
 * thread). Watching one that is not linked links it in the same command when `link` is given.
 * Confirmed by reading the thread's `pullRequests[].watch`, never by an event name.
 */
export const threadPullRequestWatch = defineAction({
  action: "thread.pull-request.watch",
  label: "Watch a pull request",
  group: "organize",
  // A watched pull request wakes the thread (a run in its mode) on checks, reviews and conflicts.
  runEffect: "starts-run",
  effectHolds: (input) => input.watching && input.paused !== true,
  description:
    "Starts or stops watching a pull request of the thread for changes (checks, reviews, conflicts).",
  inputSchema: threadInput({
    ...pullRequestRef,
    watching: z.boolean(),
    link: z
      .strictObject({
        url: z.url({ protocol: /^https?$/ }).max(MAX_ID_CHARS),
        source: z.enum(["agent", "manual"]),
      })
      .optional(),
    paused: z.boolean().optional(),
  }),
  fields: (input) => ({
    threadId: input.threadId,
    host: input.host,
    repository: input.repository,
    number: input.number,
    watching: input.watching,
    link: input.link,
    paused: input.paused,
  }),
});

/**
 * One zod schema per `orchestration.dispatchCommand` command type (plus the
 * client-relevant newer additions). Field lists follow the V2 contract; `strict` also rejects
 * unknown keys (T3 itself ignores them).
 */
import { z } from "zod";
import {
  type DecodeResult,
  dateTimeString,
  decodeWith,
  idString,
  oncePerStrictness,
  type SchemaKit,
  schemaKit,
} from "./decode.js";

const actor = () => z.enum(["user", "agent", "system"]);
const creationSource = () => z.enum(["web", "mobile", "mcp", "provider", "server"]);
const runtimeMode = () => z.enum(["approval-required", "auto-accept-edits", "auto", "full-access"]);
const interactionMode = () => z.enum(["default", "plan"]);
const decision = () => z.enum(["accept", "acceptForSession", "acceptAlways", "decline", "cancel"]);

/** Accepts the legacy `{provider, model}` form and object-shaped options, like T3's decoder. */
function modelSelection(k: SchemaKit) {
  const option = k.object({ id: idString(), value: z.union([z.string(), z.boolean()]) });
  const canonical = k.object({
    instanceId: idString(),
    model: idString(),
    options: z.array(option).optional(),
  });
  return z.preprocess((raw) => {
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return raw;
    const value = { ...(raw as Record<string, unknown>) };
    if (value.instanceId === undefined && typeof value.provider === "string") {
      value.instanceId = value.provider;
      delete value.provider;
    }
    if (value.options && typeof value.options === "object" && !Array.isArray(value.options)) {
      value.options = Object.entries(value.options as Record<string, unknown>).map(([id, v]) => ({
        id,
        value: v,
      }));
    }
    return value;
  }, canonical);
}

function attachments(k: SchemaKit) {
  const attachment = k.object({
    type: z.enum(["image", "file", "pdf", "video"]),
    id: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[a-z0-9_-]+$/),
    name: z.string().min(1).max(255),
    mimeType: z.string().min(1),
    sizeBytes: z.number().int().min(0),
  });
  return z.array(attachment).max(8);
}

const linkedPullRequest = (k: SchemaKit) =>
  k.object({
    projectId: idString(),
    repository: idString(),
    number: z.number().int().min(1),
    url: z.string(),
  });

const sourcePoint = (k: SchemaKit) =>
  z.discriminatedUnion("type", [
    k.object({ type: z.literal("latest_stable") }),
    k.object({ type: z.literal("run"), runId: idString() }),
    k.object({ type: z.literal("checkpoint"), checkpointId: idString() }),
  ]);

const failure = (k: SchemaKit) =>
  k.object({
    class: z.enum(["provider_error", "transport_error", "permission_error", "validation_error", "unknown"]),
    message: z.string().min(1).max(4096),
    code: z.string().nullable(),
    retryable: z.boolean().nullable(),
  });

const dispatchMode = (k: SchemaKit) =>
  z.discriminatedUnion("type", [
    // Current upstream: `defer_start` may say how to prepare the workspace before the run starts.
    k.object({
      type: z.literal("defer_start"),
      workspaceStrategy: z.record(z.string(), z.unknown()).optional(),
    }),
    k.object({ type: z.literal("steer_active"), targetRunId: idString() }),
    k.object({ type: z.literal("restart_active"), targetRunId: idString() }),
    k.object({ type: z.literal("queue_after_active") }),
    k.object({ type: z.literal("start_immediately") }),
  ]);

type ShapeBuilder = (k: SchemaKit) => z.ZodRawShape;

const threadOnly: ShapeBuilder = () => ({ threadId: idString() });

/**
 * Command types in the order of the 0.0.31 union (fixture 33b), then the newer additions.
 * The extra literal fields named here show up in the union defect text like Effect prints them.
 */
const COMMANDS: [type: string, shape: ShapeBuilder, literalHint?: string][] = [
  [
    "thread.create",
    (k) => ({
      createdBy: actor(),
      creationSource: creationSource(),
      threadId: idString(),
      projectId: idString(),
      title: idString(),
      modelSelection: modelSelection(k),
      runtimeMode: runtimeMode(),
      interactionMode: interactionMode(),
      branch: idString().nullable(),
      worktreePath: idString().nullable(),
    }),
  ],
  ["thread.archive", threadOnly],
  ["thread.unarchive", threadOnly],
  ["thread.delete", threadOnly],
  ["thread.settle", () => ({ threadId: idString(), settledAt: dateTimeString().optional() })],
  ["thread.unsettle", () => ({ threadId: idString(), reason: z.literal("user") }), '"reason": "user"'],
  ["thread.snooze", () => ({ threadId: idString(), snoozedUntil: z.string() })],
  ["thread.unsnooze", () => ({ threadId: idString(), reason: z.literal("user") }), '"reason": "user"'],
  ["thread.pin", () => ({ threadId: idString(), orderKey: idString().optional() })],
  ["thread.unpin", threadOnly],
  ["thread.visit", () => ({ threadId: idString(), visitedAt: z.string() })],
  ["thread.mark-unread", threadOnly],
  [
    "thread.metadata.update",
    (k) => ({
      threadId: idString(),
      title: idString().optional(),
      regenerateTitle: z.boolean().optional(),
      branch: idString().nullable().optional(),
      worktreePath: idString().nullable().optional(),
      expectedWorktreePath: idString().nullable().optional(),
      linkedPullRequest: linkedPullRequest(k).nullable().optional(),
      // Sent by the connector: refuse when the thread already has messages.
      expectedEmpty: z.boolean().optional(),
    }),
  ],
  [
    "thread.title.regeneration.complete",
    () => ({ threadId: idString(), requestId: idString(), title: idString().optional() }),
  ],
  ["thread.runtime-mode.set", () => ({ threadId: idString(), runtimeMode: runtimeMode() })],
  ["thread.interaction-mode.set", () => ({ threadId: idString(), interactionMode: interactionMode() })],
  ["thread.model-selection.set", (k) => ({ threadId: idString(), modelSelection: modelSelection(k) })],
  [
    "provider-session.detach",
    () => ({ threadId: idString(), providerSessionId: idString(), reason: z.string().optional() }),
  ],
  [
    "message.dispatch",
    (k) => ({
      createdBy: actor(),
      creationSource: creationSource(),
      threadId: idString(),
      messageId: idString(),
      text: z.string().max(120_000),
      attachments: attachments(k),
      titleSeed: idString().optional(),
      modelSelection: modelSelection(k).optional(),
      sourcePlanRef: k.object({ threadId: idString(), planId: idString() }).optional(),
      restartContinuationOfRunId: idString().optional(),
      delegatedCompletion: k
        .object({
          parentRunId: idString(),
          generation: z.number().int().min(1),
          taskIds: z.array(idString()),
        })
        .optional(),
      dispatchMode: dispatchMode(k),
      deliveryIntent: z.enum(["auto", "steer", "restart"]).optional(),
    }),
  ],
  ["prepared-run.release", () => ({ threadId: idString(), runId: idString() })],
  [
    "prepared-run.progress",
    () => ({ threadId: idString(), runId: idString(), phase: z.enum(["worktree", "setup"]) }),
  ],
  ["prepared-run.fail", (k) => ({ threadId: idString(), runId: idString(), failure: failure(k) })],
  [
    "run.interrupt",
    () => ({
      threadId: idString(),
      runId: idString(),
      reason: z.string().optional(),
      holdQueue: z.boolean().optional(),
      keepDelegatedCompletions: z.boolean().optional(),
    }),
  ],
  [
    "queued-message.promote-to-steer",
    () => ({ threadId: idString(), queuedRunId: idString(), targetRunId: idString() }),
  ],
  [
    "queued-run.reorder",
    () => ({ threadId: idString(), runId: idString(), beforeRunId: idString().nullable() }),
  ],
  ["queued-run.cancel", () => ({ threadId: idString(), runId: idString() })],
  [
    "queued-run.edit",
    (k) => ({
      threadId: idString(),
      runId: idString(),
      text: z.string(),
      attachments: attachments(k).optional(),
    }),
  ],
  [
    "runtime-request.respond",
    () => ({
      threadId: idString(),
      requestId: idString(),
      decision: decision().optional(),
      answers: z.record(z.string(), z.unknown()).optional(),
    }),
  ],
  [
    "checkpoint.rollback",
    // restoreFiles: sent by the connector, not in the 0.0.31 contract.
    () => ({
      threadId: idString(),
      scopeId: idString(),
      checkpointId: idString(),
      restoreFiles: z.boolean().optional(),
    }),
  ],
  [
    "thread.fork",
    (k) => ({
      createdBy: actor(),
      creationSource: creationSource(),
      sourceThreadId: idString(),
      targetThreadId: idString(),
      sourcePoint: sourcePoint(k),
      title: idString().optional(),
      policyCeiling: k
        .object({
          callerThreadId: idString(),
          runtimeMode: runtimeMode(),
          interactionMode: interactionMode(),
        })
        .optional(),
      createdAt: dateTimeString().optional(),
    }),
  ],
  [
    "thread.merge_back",
    (k) => ({
      createdBy: actor(),
      creationSource: creationSource(),
      sourceThreadId: idString(),
      targetThreadId: idString(),
      sourcePoint: sourcePoint(k),
      createdAt: dateTimeString().optional(),
    }),
  ],
  [
    "delegated_task.request",
    (k) => ({
      createdBy: actor(),
      creationSource: creationSource(),
      parentThreadId: idString(),
      parentRunId: idString(),
      parentNodeId: idString(),
      task: idString(),
      title: idString().optional(),
      modelSelection: modelSelection(k),
      runtimeMode: runtimeMode(),
      interactionMode: interactionMode(),
      completionWake: z.enum(["always", "settled_only"]).optional(),
      createdAt: dateTimeString().optional(),
    }),
  ],
  [
    "delegated_task.wake-policy",
    () => ({
      parentThreadId: idString(),
      taskId: idString(),
      completionWake: z.enum(["always", "settled_only"]),
    }),
  ],
  [
    "delegated_task.completion-delivery.acknowledge",
    () => ({ parentThreadId: idString(), taskId: idString(), observedByRunId: idString().nullable() }),
  ],
  ["delegated_task.completion-delivery.dispose", () => ({ parentThreadId: idString(), taskId: idString() })],
  [
    "thread.created.record",
    () => ({
      parentThreadId: idString(),
      parentRunId: idString(),
      parentNodeId: idString(),
      targetThreadId: idString(),
      targetRunId: idString().nullable(),
    }),
  ],
  ["provider.switch", (k) => ({ threadId: idString(), modelSelection: modelSelection(k) })],
  // Newer additions the connector sends.
  ["thread.pin.reorder", () => ({ threadId: idString(), orderKey: idString() })],
  [
    "thread.auto-settle",
    () => ({ threadId: idString(), snapshotAt: dateTimeString(), settledAt: dateTimeString().optional() }),
  ],
  ["thread.active.reorder", () => ({ threadId: idString(), orderKey: idString() })],
  ["thread.auto-settle.set", () => ({ threadId: idString(), enabled: z.boolean() })],
  ["queue.resume", threadOnly],
  ["thread.user-input.dismiss", () => ({ threadId: idString(), requestId: idString() })],
  [
    "thread.pull-request.link",
    () => ({
      threadId: idString(),
      host: idString(),
      repository: idString(),
      number: z.number().int().min(1),
      url: z.string(),
      source: z.enum(["manual", "created", "agent", "stack", "stack-dismissed"]),
    }),
  ],
  [
    "thread.pull-request.unlink",
    () => ({
      threadId: idString(),
      host: idString(),
      repository: idString(),
      number: z.number().int().min(1),
    }),
  ],
  // The five newer command types (docs/t3-protocol-notes.md). Two are user actions; the other
  // three are sent only by the server itself and nothing of the connector offers them.
  ["prepared-run.retry", () => ({ threadId: idString(), runId: idString() })],
  [
    "thread.pull-request.watch",
    (k) => ({
      threadId: idString(),
      host: idString(),
      repository: idString(),
      number: z.number().int().min(1),
      watching: z.boolean(),
      link: k.object({ url: z.string(), source: z.enum(["agent", "manual"]) }).optional(),
      paused: z.boolean().optional(),
    }),
  ],
  [
    "thread.pull-request-link.sync",
    (k) => ({
      threadId: idString(),
      host: idString(),
      repository: idString(),
      number: z.number().int().min(1),
      snapshot: k.object({
        state: idString(),
        title: z.string(),
        headBranch: z.string(),
        baseBranch: z.string(),
        isDraft: z.boolean(),
        updatedAt: dateTimeString(),
        syncedAt: dateTimeString(),
      }),
      stack: z.unknown().nullable(),
    }),
  ],
  [
    "thread.pull-request.sync",
    (k) => ({
      threadId: idString(),
      projectId: idString(),
      snapshotSequence: z.number().int().min(0),
      expected: k.object({
        workspaceRoot: idString(),
        branch: idString().nullable(),
        worktreePath: idString().nullable(),
        linkedPullRequest: linkedPullRequest(k).nullable(),
        branchPullRequest: linkedPullRequest(k).nullable(),
      }),
      branchPullRequest: linkedPullRequest(k).nullable(),
      linkedPullRequest: linkedPullRequest(k).nullable().optional(),
    }),
  ],
  ["notification.delivery.accept", () => ({ threadId: idString(), messageId: idString() })],
];

/** The newer command types only the server sends: decoded, never offered by the connector. */
export const SERVER_ONLY_COMMAND_TYPES: readonly string[] = [
  "thread.pull-request-link.sync",
  "thread.pull-request.sync",
  "notification.delivery.accept",
];

export const COMMAND_TYPES: readonly string[] = COMMANDS.map(([type]) => type);

function unionDefect(): string {
  return `Expected ${COMMANDS.map(
    ([type, , hint]) =>
      `{ readonly "type": ${JSON.stringify(type)}, ${hint ? `readonly ${hint}, ` : ""}... }`,
  ).join(" | ")}`;
}

export interface DecodedCommand {
  type: string;
  commandId: string;
  [field: string]: unknown;
}

const commandSchemas = oncePerStrictness((strict): ReadonlyMap<string, z.ZodType> => {
  const kit = schemaKit(strict);
  return new Map(
    COMMANDS.map(([type, shape]) => [
      type,
      kit.object({ type: z.literal(type), commandId: idString(), ...shape(kit) }),
    ]),
  );
});

const UNION_DEFECT = unionDefect();

/** Decodes a dispatched command with the schemas of its strictness (shared by every simulator). */
export class CommandDecoder {
  readonly #schemas: ReadonlyMap<string, z.ZodType>;

  constructor(strict: boolean) {
    this.#schemas = commandSchemas(strict);
  }

  decode(payload: unknown): DecodeResult<DecodedCommand> {
    const type =
      payload !== null && typeof payload === "object" ? (payload as Record<string, unknown>).type : undefined;
    const schema = typeof type === "string" ? this.#schemas.get(type) : undefined;
    if (!schema) return { ok: false, defect: UNION_DEFECT };
    return decodeWith(schema as z.ZodType<DecodedCommand>, payload);
  }
}

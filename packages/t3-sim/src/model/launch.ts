/**
 * `orchestration.launchThread` (fixture 79): creates a thread (optionally with a first
 * message) and answers `{threadId, projection, resumed}`. Deduped by commandId; with
 * `reuseExistingThread` an existing thread id is answered as `resumed: true` without changes.
 */
import { z } from "zod";
import type { CommandContext } from "./commands/context.js";
import { decodeWith, idString, oncePerStrictness, schemaKit } from "./commands/decode.js";
import type { CommandDispatcher } from "./commands/dispatcher.js";
import { dispatchMessage } from "./commands/run-handlers.js";
import { createThread } from "./commands/thread-handlers.js";
import type { RpcOutcome } from "./contract.js";
import { DomainError, threadLaunchError } from "./errors.js";
import { buildProjection } from "./projection.js";
import type { AppThread, ModelSelection } from "./types.js";

function launchSchema(strict: boolean) {
  const k = schemaKit(strict);
  return k.object({
    commandId: idString(),
    creationSource: z.enum(["web", "mobile", "mcp", "provider", "server"]).optional(),
    threadId: idString().optional(),
    reuseExistingThread: z.boolean().optional(),
    projectId: idString(),
    title: idString(),
    generateTitle: z.boolean().optional(),
    modelSelection: k.object({
      instanceId: idString(),
      model: idString(),
      options: z.array(k.object({ id: idString(), value: z.union([z.string(), z.boolean()]) })).optional(),
    }),
    runtimeMode: z.enum(["approval-required", "auto-accept-edits", "auto", "full-access"]),
    interactionMode: z.enum(["default", "plan"]),
    workspaceStrategy: z.discriminatedUnion("type", [
      k.object({ type: z.literal("root"), branch: idString().optional() }),
      k.object({
        type: z.literal("existing_worktree"),
        worktreePath: idString(),
        branch: idString().optional(),
      }),
      k.object({
        type: z.literal("worktree"),
        baseRef: idString(),
        branch: idString().optional(),
        startFromOrigin: z.boolean().optional(),
      }),
    ]),
    initialMessage: k
      .object({ messageId: idString().optional(), text: z.string(), attachments: z.array(z.unknown()) })
      .optional(),
  });
}

const launchSchemaOf = oncePerStrictness(launchSchema);

type LaunchInput = z.infer<ReturnType<typeof launchSchema>>;

export class ThreadLauncher {
  readonly #schema: ReturnType<typeof launchSchema>;
  readonly #launched = new Map<
    string,
    { threadId: string; resumed: boolean } | { error: Record<string, unknown> }
  >();

  constructor(
    private readonly ctx: CommandContext,
    private readonly dispatcher: CommandDispatcher,
    strict: boolean,
  ) {
    this.#schema = launchSchemaOf(strict);
  }

  launch(payload: unknown): RpcOutcome {
    const decoded = decodeWith(this.#schema, payload);
    if (!decoded.ok) return { kind: "die", defect: decoded.defect };
    const input = decoded.value;
    const previous = this.#launched.get(input.commandId);
    if (previous)
      return "error" in previous
        ? { kind: "fail", error: previous.error }
        : this.#answer(previous.threadId, previous.resumed);
    try {
      const result = this.#apply(input);
      this.#launched.set(input.commandId, result);
      this.dispatcher.record(input.commandId, "orchestration.launchThread", payload, this.ctx.store.sequence);
      return this.#answer(result.threadId, result.resumed);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const failure = threadLaunchError(input.commandId, input.projectId, error.message);
      this.#launched.set(input.commandId, { error: failure });
      return { kind: "fail", error: failure };
    }
  }

  #apply(input: LaunchInput): { threadId: string; resumed: boolean } {
    const store = this.ctx.store;
    const project = store.projects.get(input.projectId);
    if (!project) throw new DomainError("Project not found.");
    const threadId = input.threadId ?? store.ids.uuid();
    const existing = store.threads.get(threadId);
    if (existing) {
      if (input.reuseExistingThread && !existing.thread.deletedAt) return { threadId, resumed: true };
      throw new DomainError(`Thread ${threadId} already exists.`);
    }
    const strategy = input.workspaceStrategy;
    const branch = strategy.branch ?? null;
    const worktreePath =
      strategy.type === "existing_worktree"
        ? strategy.worktreePath
        : strategy.type === "worktree"
          ? `${project.workspaceRoot}/.t3/worktrees/${branch ?? threadId.slice(0, 8)}`
          : null;
    createThread(this.ctx, input.commandId, {
      id: threadId,
      projectId: input.projectId,
      title: input.title,
      modelSelection: input.modelSelection as ModelSelection,
      runtimeMode: input.runtimeMode,
      interactionMode: input.interactionMode,
      branch: strategy.type === "worktree" ? (branch ?? `t3/${threadId.slice(0, 8)}`) : branch,
      worktreePath,
      createdBy: "user",
      creationSource: (input.creationSource ?? "web") as AppThread["creationSource"],
    });
    const record = store.threads.get(threadId);
    if (record && input.initialMessage) {
      dispatchMessage(this.ctx, record, input.commandId, {
        messageId: input.initialMessage.messageId ?? store.ids.uuid(),
        text: input.initialMessage.text,
        attachments: input.initialMessage.attachments,
        createdBy: "user",
        creationSource: (input.creationSource ?? "web") as AppThread["creationSource"],
        dispatchMode: { type: "start_immediately" },
      });
    }
    return { threadId, resumed: false };
  }

  #answer(threadId: string, resumed: boolean): RpcOutcome {
    const record = this.ctx.store.liveThread(threadId);
    if (!record)
      return { kind: "fail", error: threadLaunchError("", "", `Thread ${threadId} no longer exists.`) };
    return { kind: "success", value: { threadId, projection: buildProjection(record), resumed } };
  }
}

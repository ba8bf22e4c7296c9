/**
 * Project admin as 0.0.31 plays it, on its two surfaces (captures 10, 10a, 11, 100-115):
 * - `projects.mutate` (WebSocket, `orchestration:operate`): `project.create` checks the folder
 *   (created first when `createWorkspaceRootIfMissing`), `project.update` renames or moves,
 *   `project.delete` refuses a project that still holds a live or archived thread unless `force`,
 *   which deletes those threads first. Refusals are a typed `ProjectMutationError`; a mutation
 *   type it does not know (`project.meta.update`, the orchestration command's own name) is a
 *   decode defect.
 * - `POST /api/projects/mutate` (HTTP): the same mutations, but the route drops
 *   `createWorkspaceRootIfMissing` and `force`, and never counts threads: a delete takes the
 *   project's threads with it (capture 107). Refusals are a bare 500.
 * Both dedupe by commandId (capture 112), and each change takes one sequence.
 */
import path from "node:path";
import { z } from "zod";
import { decodeWith, idString } from "./commands/decode.js";
import type { CommandDispatcher } from "./commands/dispatcher.js";
import type { HttpOutcome, RpcOutcome } from "./contract.js";
import type { RunEngine } from "./engine.js";
import { httpInternal, httpInvalidRequest } from "./errors.js";
import { projectRow } from "./projection.js";
import type { SimStore } from "./store.js";
import type { ModelSelection, ProjectRecord } from "./types.js";

const modelSelection = z.object({
  instanceId: idString(),
  model: idString(),
  options: z.array(z.object({ id: idString(), value: z.union([z.string(), z.boolean()]) })).optional(),
});

const mutation = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("project.create"),
    commandId: idString(),
    projectId: idString(),
    title: idString(),
    workspaceRoot: idString(),
    createWorkspaceRootIfMissing: z.boolean().optional(),
    defaultModelSelection: modelSelection.nullable().optional(),
    scripts: z.array(z.unknown()).optional(),
  }),
  z.object({
    type: z.literal("project.update"),
    commandId: idString(),
    projectId: idString(),
    title: idString().optional(),
    workspaceRoot: idString().optional(),
    defaultModelSelection: modelSelection.nullable().optional(),
    scripts: z.array(z.unknown()).optional(),
  }),
  z.object({
    type: z.literal("project.delete"),
    commandId: idString(),
    projectId: idString(),
    force: z.boolean().optional(),
  }),
]);
type Mutation = z.infer<typeof mutation>;

/** The decode defect 0.0.31 answers to a mutation outside its union (capture 104). */
const UNKNOWN_MUTATION_DEFECT =
  'Expected { readonly "type": "project.create", ... } | { readonly "type": "project.update", ... } | { readonly "type": "project.delete", ... }';

/** The folders project.create and project.update look at (the real file system by default). */
export interface WorkspaceFolders {
  exists(folder: string): boolean;
  /** Makes a missing folder (project.create with createWorkspaceRootIfMissing). */
  create(folder: string): void;
}

/** Why a mutation was refused, in the shape of the inner cause 0.0.31 names. */
type Refusal =
  | { readonly kind: "not_empty" }
  | { readonly kind: "cause"; readonly cause: Record<string, unknown> };

type Applied =
  | { readonly ok: true; readonly project: ProjectRecord }
  | { readonly ok: false; readonly refusal: Refusal };

/** The surface a mutation came through: the WebSocket honours force and folder creation. */
type Surface = "rpc" | "http";

export class ProjectMutations {
  readonly #answers = new Map<string, HttpOutcome>();
  readonly #rpcAnswers = new Map<string, RpcOutcome>();

  constructor(
    private readonly store: SimStore,
    private readonly engine: RunEngine,
    private readonly dispatcher: CommandDispatcher,
    private readonly folders: WorkspaceFolders,
    /** Where a relative workspaceRoot resolves (the server's own working directory). */
    private readonly serverCwd: string,
  ) {}

  list(): HttpOutcome {
    return {
      kind: "ok",
      body: {
        projects: [...this.store.projects.values()].filter((project) => !project.deletedAt).map(projectRow),
        updatedAt: this.store.projectsUpdatedAt,
      },
    };
  }

  /** Adds a project without the workspace check (seeds and test setup). */
  add(fields: {
    id: string;
    title: string;
    workspaceRoot: string;
    defaultModelSelection?: ModelSelection | null;
  }): ProjectRecord {
    const now = this.store.iso();
    const project: ProjectRecord = {
      id: fields.id,
      title: fields.title,
      workspaceRoot: fields.workspaceRoot,
      repositoryIdentity: null,
      faviconPath: null,
      defaultModelSelection: fields.defaultModelSelection ?? { instanceId: "codex", model: "gpt-5.6-sol" },
      scripts: [],
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    };
    this.store.commitProject(project, false);
    return project;
  }

  /** `POST /api/projects/mutate`. */
  mutate(body: unknown): HttpOutcome {
    const decoded = decodeWith(mutation, body);
    if (!decoded.ok) return this.#error(400, httpInvalidRequest("invalid_command", this.store.ids.traceId()));
    const input = decoded.value;
    const previous = this.#answers.get(input.commandId);
    if (previous) return previous;
    const applied = this.#apply(input, "http");
    const answer: HttpOutcome = applied.ok
      ? { kind: "ok", body: projectRow(applied.project) }
      : this.#error(500, httpInternal("project_mutation_failed", this.store.ids.traceId()));
    this.#answers.set(input.commandId, answer);
    if (applied.ok) this.dispatcher.record(input.commandId, input.type, body, this.store.sequence);
    return answer;
  }

  /** `projects.mutate` over the WebSocket. */
  mutateRpc(payload: unknown): RpcOutcome {
    const decoded = decodeWith(mutation, payload);
    if (!decoded.ok) return { kind: "die", defect: UNKNOWN_MUTATION_DEFECT };
    const input = decoded.value;
    const previous = this.#rpcAnswers.get(input.commandId);
    if (previous) return previous;
    const applied = this.#apply(input, "rpc");
    const answer: RpcOutcome = applied.ok
      ? { kind: "success", value: projectRow(applied.project) }
      : { kind: "fail", error: mutationError(input, applied.refusal) };
    this.#rpcAnswers.set(input.commandId, answer);
    if (applied.ok) this.dispatcher.record(input.commandId, input.type, payload, this.store.sequence);
    return answer;
  }

  #apply(input: Mutation, surface: Surface): Applied {
    const existing = this.store.projects.get(input.projectId);
    const live = existing !== undefined && !existing.deletedAt ? existing : undefined;
    switch (input.type) {
      case "project.create": {
        if (existing) return refused(operationFailed("create", input.projectId));
        const root = path.resolve(this.serverCwd, input.workspaceRoot);
        if (!this.folders.exists(root)) {
          // The HTTP route drops createWorkspaceRootIfMissing (capture 10a); the socket honours it (102).
          if (surface === "http" || input.createWorkspaceRootIfMissing !== true)
            return refused(rootMissing(input.projectId, root));
          this.folders.create(root);
        }
        const owner = this.#ownerOf(root);
        if (owner !== undefined) return refused(rootTaken(root, owner));
        return {
          ok: true,
          project: this.add({
            id: input.projectId,
            title: input.title,
            workspaceRoot: root,
            defaultModelSelection: input.defaultModelSelection ?? null,
          }),
        };
      }
      case "project.update": {
        if (!live) return refused(projectNotFound(input.projectId));
        const root =
          input.workspaceRoot === undefined ? undefined : path.resolve(this.serverCwd, input.workspaceRoot);
        if (root !== undefined && !this.folders.exists(root))
          return refused(rootMissing(input.projectId, root));
        const owner = root === undefined ? undefined : this.#ownerOf(root);
        if (root !== undefined && owner !== undefined && owner !== live.id)
          return refused(rootTaken(root, owner));
        const { lastSequence: _seq, ...base } = live;
        const project: ProjectRecord = {
          ...base,
          ...(input.title !== undefined ? { title: input.title } : {}),
          ...(root !== undefined ? { workspaceRoot: root } : {}),
          ...(input.defaultModelSelection !== undefined
            ? { defaultModelSelection: input.defaultModelSelection }
            : {}),
          ...(input.scripts !== undefined ? { scripts: input.scripts } : {}),
          updatedAt: this.store.iso(),
        };
        this.store.commitProject(project, false);
        return { ok: true, project };
      }
      case "project.delete": {
        if (!live) return refused(projectNotFound(input.projectId));
        const threads = [...this.store.threads.values()].filter(
          (record) => record.thread.projectId === input.projectId && !record.thread.deletedAt,
        );
        // Only the socket counts threads; the HTTP route deletes them along (capture 107).
        if (surface === "rpc" && threads.length > 0 && input.force !== true)
          return { ok: false, refusal: { kind: "not_empty" } };
        for (const record of threads) {
          this.engine.stopThread(record.thread.id);
          this.store.transact(
            record,
            `${input.commandId}:delete-thread:${record.thread.id}`,
            (tx) => void tx.thread("thread.deleted", { deletedAt: tx.now }),
          );
        }
        const deletedAt = this.store.iso();
        const { lastSequence: _seq, ...base } = live;
        const project: ProjectRecord = { ...base, updatedAt: deletedAt, deletedAt };
        this.store.commitProject(project, true);
        return { ok: true, project };
      }
    }
  }

  /** The live project whose folder is `root`, if any (one folder, one project). */
  #ownerOf(root: string): string | undefined {
    for (const project of this.store.projects.values()) {
      if (!project.deletedAt && project.workspaceRoot === root) return project.id;
    }
    return undefined;
  }

  #error(status: number, body: Record<string, unknown>): HttpOutcome {
    return { kind: "error", status, body };
  }
}

function refused(cause: Record<string, unknown>): Applied {
  return { ok: false, refusal: { kind: "cause", cause } };
}

function mutationError(input: Mutation, refusal: Refusal): Record<string, unknown> {
  if (refusal.kind === "not_empty") {
    return {
      _tag: "ProjectMutationError",
      commandId: input.commandId,
      message: `Project ${input.projectId} is not empty.`,
    };
  }
  return {
    _tag: "ProjectMutationError",
    commandId: input.commandId,
    message: "Failed to mutate project.",
    cause: refusal.cause,
  };
}

function operationFailed(operation: string, projectId: string): Record<string, unknown> {
  return {
    name: "ProjectOperationError",
    message: `Project operation '${operation}' failed for ${projectId}.`,
  };
}

function rootMissing(projectId: string, root: string): Record<string, unknown> {
  return {
    ...operationFailed("normalize-workspace", projectId),
    cause: { name: "WorkspaceRootNotExistsError", message: `Workspace root does not exist: ${root}` },
  };
}

function rootTaken(root: string, owner: string): Record<string, unknown> {
  return { name: "ProjectConflictError", message: `Workspace ${root} already belongs to project ${owner}.` };
}

function projectNotFound(projectId: string): Record<string, unknown> {
  return { name: "ProjectNotFoundError", message: `Project ${projectId} was not found.` };
}

/**
 * `GET /api/projects` and `POST /api/projects/mutate` (fixtures 10, 10a, 11). Mutations are
 * idempotent by commandId like dispatched commands, and each change takes one sequence.
 */
import { z } from "zod";
import { decodeWith, idString } from "./commands/decode.js";
import type { CommandDispatcher } from "./commands/dispatcher.js";
import type { HttpOutcome } from "./contract.js";
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

export class ProjectMutations {
  readonly #answers = new Map<string, HttpOutcome>();

  constructor(
    private readonly store: SimStore,
    private readonly engine: RunEngine,
    private readonly dispatcher: CommandDispatcher,
    private readonly workspaceRootExists: (path: string) => boolean,
  ) {}

  list(): HttpOutcome {
    return {
      kind: "ok",
      body: {
        projects: [...this.store.projects.values()].map(projectRow),
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

  mutate(body: unknown): HttpOutcome {
    const decoded = decodeWith(mutation, body);
    if (!decoded.ok) return this.#error(400, httpInvalidRequest("invalid_command", this.store.ids.traceId()));
    const input = decoded.value;
    const previous = this.#answers.get(input.commandId);
    if (previous) return previous;
    const answer = this.#apply(input);
    this.#answers.set(input.commandId, answer);
    if (answer.kind === "ok") this.dispatcher.record(input.commandId, input.type, body, this.store.sequence);
    return answer;
  }

  #apply(input: z.infer<typeof mutation>): HttpOutcome {
    const failed = () => this.#error(500, httpInternal("project_mutation_failed", this.store.ids.traceId()));
    const existing = this.store.projects.get(input.projectId);
    switch (input.type) {
      case "project.create": {
        // Even createWorkspaceRootIfMissing does not help on 0.0.31 (fixture 10a).
        if (existing || !this.workspaceRootExists(input.workspaceRoot)) return failed();
        const project = this.add({
          id: input.projectId,
          title: input.title,
          workspaceRoot: input.workspaceRoot,
          defaultModelSelection: input.defaultModelSelection ?? null,
        });
        return { kind: "ok", body: projectRow(project) };
      }
      case "project.update": {
        if (!existing) return failed();
        if (input.workspaceRoot && !this.workspaceRootExists(input.workspaceRoot)) return failed();
        const { lastSequence: _seq, ...base } = existing;
        const project: ProjectRecord = {
          ...base,
          ...(input.title !== undefined ? { title: input.title } : {}),
          ...(input.workspaceRoot !== undefined ? { workspaceRoot: input.workspaceRoot } : {}),
          ...(input.defaultModelSelection !== undefined
            ? { defaultModelSelection: input.defaultModelSelection }
            : {}),
          ...(input.scripts !== undefined ? { scripts: input.scripts } : {}),
          updatedAt: this.store.iso(),
        };
        this.store.commitProject(project, false);
        return { kind: "ok", body: projectRow(project) };
      }
      case "project.delete": {
        if (!existing) return failed();
        const threads = [...this.store.threads.values()].filter(
          (record) => record.thread.projectId === input.projectId && !record.thread.deletedAt,
        );
        if (threads.length > 0 && !input.force) return failed();
        for (const record of threads) {
          this.engine.stopThread(record.thread.id);
          this.store.transact(
            record,
            input.commandId,
            (tx) => void tx.thread("thread.deleted", { deletedAt: tx.now }),
          );
        }
        const deletedAt = this.store.iso();
        const { lastSequence: _seq, ...base } = existing;
        this.store.commitProject({ ...base, deletedAt }, true);
        return { kind: "ok", body: { projectId: input.projectId, deletedAt } };
      }
    }
  }

  #error(status: number, body: Record<string, unknown>): HttpOutcome {
    return { kind: "error", status, body };
  }
}

/**
 * Project admin (ADR 0074): create a project for new work, rename (or move) one, delete one.
 * Sent by `projects.mutate`, whose mutation names on 0.0.31 are `project.create`, `project.update`
 * and `project.delete`; the catalogue names the update `project.meta.update`, T3's own name for the
 * command the server makes of it (fixtures 100-115).
 *
 * `workspaceRoot` is the one input that names a place on the person's machine: it must lie under
 * a root the environment's `projectRoots` allows (none by default), resolved without following a
 * symlink out of it. A delete is refused while the project holds any live or archived thread,
 * counted fresh right before the send, unless the input says `force`.
 */
import { z } from "zod";
import { defineProjectAction } from "./define.js";
import { idString, modelSelection } from "./fields.js";
import type { Guard } from "./guards.js";

const title = z.string().trim().min(1).max(1024);
/** Absolute; normalised by the preflight's check, which refuses `..` and relative paths. */
const workspaceRoot = z.string().trim().min(1).max(4096);

const ROOT_GUARD: Guard = {
  kind: "workspace_root_confined",
  path: ["workspaceRoot"],
  createField: "createWorkspaceRootIfMissing",
  code: "workspace_root_refused",
};

export const projectCreate = defineProjectAction({
  action: "project.create",
  commandType: "project.create",
  label: "Create a project",
  group: "organize",
  description:
    "Create a project over a folder under an allowed root (the folder is made when asked and missing).",
  inputSchema: z.strictObject({
    title,
    workspaceRoot,
    createWorkspaceRootIfMissing: z.boolean().optional(),
    defaultModelSelection: modelSelection.optional(),
  }),
  extraIds: ["projectId"],
  guards: [ROOT_GUARD],
  runEffect: "runs-nothing",
  serializeByProject: true,
  // A new project touches no existing thread or project; what admits it is the lease's action
  // and the allowed roots (ADR 0074).
  targets: () => ({ threadIds: [], projectIds: [] }),
  fields: (input, ids) => ({
    projectId: ids.projectId,
    title: input.title,
    workspaceRoot: input.workspaceRoot,
    createWorkspaceRootIfMissing: input.createWorkspaceRootIfMissing,
    defaultModelSelection: input.defaultModelSelection,
  }),
});

export const projectMetaUpdate = defineProjectAction({
  action: "project.meta.update",
  commandType: "project.update",
  label: "Rename or move a project",
  group: "organize",
  description: "Change a project's title, its folder (under an allowed root) or its default model.",
  inputSchema: z
    .strictObject({
      projectId: idString,
      title: title.optional(),
      workspaceRoot: workspaceRoot.optional(),
      defaultModelSelection: modelSelection.optional(),
    })
    .refine(
      (input) =>
        input.title !== undefined ||
        input.workspaceRoot !== undefined ||
        input.defaultModelSelection !== undefined,
      { message: "name at least one of title, workspaceRoot, defaultModelSelection" },
    ),
  guards: [{ ...ROOT_GUARD, createField: null } as Guard],
  runEffect: "runs-nothing",
  serializeByProject: true,
  targets: (input) => ({ threadIds: [], projectIds: [input.projectId] }),
  fields: (input) => ({
    projectId: input.projectId,
    title: input.title,
    workspaceRoot: input.workspaceRoot,
    defaultModelSelection: input.defaultModelSelection,
  }),
});

export const projectDelete = defineProjectAction({
  action: "project.delete",
  commandType: "project.delete",
  label: "Delete a project",
  group: "destructive",
  description:
    "Delete an empty project; with force, delete it and every thread it holds (live and archived).",
  inputSchema: z.strictObject({ projectId: idString, force: z.boolean().optional() }),
  guards: [
    {
      kind: "project_empty_unless_forced",
      projectField: "projectId",
      forceField: "force",
      code: "project_not_empty",
    },
  ],
  runEffect: "runs-nothing",
  serializeByProject: true,
  targets: (input) => ({ threadIds: [], projectIds: [input.projectId] }),
  fields: (input) => ({ projectId: input.projectId, force: input.force === true ? true : undefined }),
});

/**
 * Project writes a lease is bound to (ADR 0074, "What the page says"). A project create or a move
 * names a folder on the person's machine and a forced delete takes every thread of a project: the
 * page says exactly which folder (and whether it exists or would be made) and how many threads, so
 * the lease admits only those inputs. A create, a move (an update naming `workspaceRoot`) or a
 * delete with `force` whose input no bound write of the grant matches is refused `scope_denied`: a
 * client cannot ask for one folder and write another.
 */
import { z } from "zod";
import { idString } from "./fields.js";
import { isNormalizedAbsolutePath } from "./guards.js";

const absolutePath = z
  .string()
  .min(1)
  .max(4096)
  .refine(isNormalizedAbsolutePath, "must be an absolute, normalised path");

/** One bound write, with the facts the page showed (read when the request was made). */
export const boundProjectWriteSchema = z.discriminatedUnion("action", [
  z.strictObject({
    action: z.literal("project.create"),
    workspaceRoot: absolutePath,
    createWorkspaceRootIfMissing: z.boolean(),
    /** The folder did not exist when the page was shown, so T3 would make it. */
    wouldCreate: z.boolean(),
  }),
  z.strictObject({
    action: z.literal("project.delete"),
    projectId: idString,
    force: z.literal(true),
    /** Live and archived threads counted when the page was shown. */
    threadCount: z.number().int().min(0),
  }),
  /** A move: the folder existed when the page was shown (T3 never makes a move's folder). */
  z.strictObject({
    action: z.literal("project.meta.update"),
    projectId: idString,
    workspaceRoot: absolutePath,
  }),
]);
export type BoundProjectWrite = z.output<typeof boundProjectWriteSchema>;

/** What of a write's input must match a bound write; null for a write that needs none. */
export type ProjectWriteKey =
  | {
      readonly action: "project.create";
      readonly workspaceRoot: string;
      readonly createWorkspaceRootIfMissing: boolean;
    }
  | { readonly action: "project.delete"; readonly projectId: string; readonly force: true }
  | { readonly action: "project.meta.update"; readonly projectId: string; readonly workspaceRoot: string };

/** The part of `input` a lease must have bound, for a create, a move or a forced delete; else null. */
export function projectWriteKey(action: string, input: unknown): ProjectWriteKey | null {
  const fields = (input ?? {}) as Record<string, unknown>;
  if (action === "project.create") {
    return {
      action,
      workspaceRoot: String(fields.workspaceRoot),
      createWorkspaceRootIfMissing: fields.createWorkspaceRootIfMissing === true,
    };
  }
  if (action === "project.delete" && fields.force === true) {
    return { action, projectId: String(fields.projectId), force: true };
  }
  // A rename or a new default model names no folder: only a move is bound.
  if (action === "project.meta.update" && fields.workspaceRoot !== undefined) {
    return { action, projectId: String(fields.projectId), workspaceRoot: String(fields.workspaceRoot) };
  }
  return null;
}

/** Whether a bound write admits exactly this key (every field the page named, equal). */
export function boundWriteMatches(bound: BoundProjectWrite, key: ProjectWriteKey): boolean {
  if (bound.action === "project.create" && key.action === "project.create") {
    return (
      bound.workspaceRoot === key.workspaceRoot &&
      bound.createWorkspaceRootIfMissing === key.createWorkspaceRootIfMissing
    );
  }
  if (bound.action === "project.delete" && key.action === "project.delete") {
    return bound.projectId === key.projectId;
  }
  if (bound.action === "project.meta.update" && key.action === "project.meta.update") {
    return bound.projectId === key.projectId && bound.workspaceRoot === key.workspaceRoot;
  }
  return false;
}

/** The bound write of a grant that admits the key, if any. */
export function boundWriteFor(
  bound: readonly BoundProjectWrite[] | undefined,
  key: ProjectWriteKey,
): BoundProjectWrite | undefined {
  return (bound ?? []).find((write) => boundWriteMatches(write, key));
}

/** Why a grant does not admit the key, or null when one of its bound writes does. */
export function unboundProjectWrite(
  bound: readonly BoundProjectWrite[] | undefined,
  key: ProjectWriteKey | null,
): string | null {
  if (key === null || boundWriteFor(bound, key) !== undefined) return null;
  const what =
    key.action === "project.create"
      ? `a project at ${key.workspaceRoot}${key.createWorkspaceRootIfMissing ? " (making the folder)" : ""}`
      : key.action === "project.meta.update"
        ? `a move of project ${key.projectId} to ${key.workspaceRoot}`
        : `a forced delete of project ${key.projectId}`;
  return (
    `the lease was not approved for ${what}: the approval page named another folder or flag, or none. ` +
    "Ask again with t3_pedir_aprovacao naming this exact write in projectWrites"
  );
}

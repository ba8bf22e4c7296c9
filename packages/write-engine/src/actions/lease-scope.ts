/**
 * The scope a write lease grants: per environment, the projects (from
 * the live inventory, never from model input) and the actions the passkey holder approved.
 * Lists are sorted and unique so that the scope hash shown on the approval page is stable.
 */
import { z } from "zod";
import { boundProjectWriteSchema } from "./bound-project-writes.js";
import { ACTION_IDS, type ActionId } from "./catalogue.js";
import { idString, RUNTIME_MODES, type RuntimeMode } from "./fields.js";
import { isNormalizedAbsolutePath } from "./guards.js";

export const SCOPE_VERSION = 2;
export const LEASE_DURATION_MINUTES = 60;

const absolutePath = z
  .string()
  .min(1)
  .max(4096)
  .refine(isNormalizedAbsolutePath, "must be an absolute, normalised path");

function isSortedUnique(values: readonly string[]): boolean {
  for (let index = 1; index < values.length; index += 1) {
    const previous = values[index - 1];
    const current = values[index];
    if (previous === undefined || current === undefined || !(previous < current)) return false;
  }
  return true;
}

export const scopeProjectSchema = z
  .strictObject({
    id: idString,
    name: z.string().max(1024),
    /** The project's workspace root as the shell reports it. */
    directory: absolutePath,
    /** `directory` plus any extra approved roots, unique. */
    workspaceRoots: z.array(absolutePath).min(1),
  })
  .refine((project) => new Set(project.workspaceRoots).size === project.workspaceRoots.length, {
    message: "workspaceRoots must be unique",
    path: ["workspaceRoots"],
  })
  .refine((project) => project.workspaceRoots.includes(project.directory), {
    message: "workspaceRoots must include directory",
    path: ["workspaceRoots"],
  });
export type ScopeProject = z.output<typeof scopeProjectSchema>;

const actionId = z
  .string()
  .refine((value) => (ACTION_IDS as readonly string[]).includes(value), "unknown action");

export const environmentGrantSchema = z
  .strictObject({
    alias: idString,
    environmentId: idString,
    label: z.string().min(1).max(1024),
    /** Always `t3://<environmentId>`: stable, never a tunnel port. */
    destination: z.string().min(1),
    projects: z.array(scopeProjectSchema).min(1),
    actions: z.array(actionId).min(1),
    readProjectIds: z.array(idString),
    /**
     * When present, the only existing threads a write may touch here (sorted, unique; ADR 0041):
     * the threads the client named, unless the person widened the lease to whole projects. A
     * thread the lease launched itself is admitted too (the gate keeps those).
     */
    threadIds: z.array(idString).optional(),
    /**
     * The only project creates and forced deletes a write may make here, as the approval page
     * named them (ADR 0074): none when absent.
     */
    projectWrites: z.array(boundProjectWriteSchema).max(20).optional(),
  })
  .superRefine((grant, context) => {
    if (grant.destination !== `t3://${grant.environmentId}`) {
      context.addIssue({
        code: "custom",
        path: ["destination"],
        message: "destination must be t3://<environmentId>",
      });
    }
    if (!isSortedUnique(grant.projects.map((project) => project.id))) {
      context.addIssue({
        code: "custom",
        path: ["projects"],
        message: "projects must be unique and sorted by id",
      });
    }
    if (!isSortedUnique(grant.actions)) {
      context.addIssue({ code: "custom", path: ["actions"], message: "actions must be unique and sorted" });
    }
    if (grant.threadIds !== undefined && !isSortedUnique(grant.threadIds)) {
      context.addIssue({
        code: "custom",
        path: ["threadIds"],
        message: "threadIds must be unique and sorted",
      });
    }
    if (!isSortedUnique(grant.readProjectIds)) {
      context.addIssue({
        code: "custom",
        path: ["readProjectIds"],
        message: "readProjectIds must be unique and sorted",
      });
    }
  });
export type EnvironmentGrant = Omit<z.output<typeof environmentGrantSchema>, "actions"> & {
  readonly actions: readonly ActionId[];
};

const scopeShape = {
  scopeVersion: z.literal(SCOPE_VERSION),
  /** The ceiling: the highest runtime mode a write under the lease may run an agent in (ADR 0022). */
  runtimeMode: z.enum(RUNTIME_MODES),
  environments: z.array(environmentGrantSchema).min(1),
};

function checkEnvironments(
  scope: { environments: readonly { alias: string; environmentId: string }[] },
  context: z.RefinementCtx,
) {
  if (!isSortedUnique(scope.environments.map((grant) => grant.alias))) {
    context.addIssue({
      code: "custom",
      path: ["environments"],
      message: "grants must be unique and sorted by alias",
    });
  }
  const ids = scope.environments.map((grant) => grant.environmentId);
  if (new Set(ids).size !== ids.length) {
    context.addIssue({ code: "custom", path: ["environments"], message: "environmentIds must be unique" });
  }
}

export const leaseScopeSchema = z.strictObject(scopeShape).superRefine(checkEnvironments);
export type LeaseScope = {
  readonly scopeVersion: typeof SCOPE_VERSION;
  readonly runtimeMode: RuntimeMode;
  readonly environments: readonly EnvironmentGrant[];
};

/** What an approval request carries: the scope plus its duration and the requesting caller. */
export const scopeRequestSchema = z
  .strictObject({
    ...scopeShape,
    durationMinutes: z.literal(LEASE_DURATION_MINUTES),
    caller: idString,
  })
  .superRefine(checkEnvironments);
export type ScopeRequest = LeaseScope & {
  readonly durationMinutes: typeof LEASE_DURATION_MINUTES;
  readonly caller: string;
};

export function parseLeaseScope(value: unknown): LeaseScope {
  return leaseScopeSchema.parse(value) as LeaseScope;
}

/** The grant for an environment, matched on both environmentId and destination. */
export function findGrant(
  scope: LeaseScope,
  environmentId: string,
  destination: string,
): EnvironmentGrant | undefined {
  return scope.environments.find(
    (grant) => grant.environmentId === environmentId && grant.destination === destination,
  );
}

/** Whether a grant allows an action on every one of a non-empty list of projects. */
export function grantAllows(grant: EnvironmentGrant, action: string, projectIds: readonly string[]): boolean {
  if (projectIds.length === 0 || !(grant.actions as readonly string[]).includes(action)) return false;
  const granted = new Set(grant.projects.map((project) => project.id));
  return projectIds.every((projectId) => granted.has(projectId));
}

/** Every approved workspace root of a grant's projects (input of the workspace guard). */
export function approvedWorkspaceRoots(
  grant: EnvironmentGrant,
  projectIds?: readonly string[],
): readonly string[] {
  const wanted = projectIds === undefined ? undefined : new Set(projectIds);
  return grant.projects
    .filter((project) => wanted === undefined || wanted.has(project.id))
    .flatMap((project) => project.workspaceRoots);
}

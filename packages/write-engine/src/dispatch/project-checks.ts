/**
 * The preflight's project checks (ADR 0074), on reads made right before the send:
 * - the workspace folder is confined to the environment's allowed roots (core's project-folder.ts), and
 *   a missing one is allowed only when the input asks T3 to make it;
 * - a project to delete holds no live or archived thread, counted now from the active shell and
 *   the archived one, unless the input says `force`.
 * A URL environment's folders are on this machine; an SSH environment's are not, so no project
 * folder is allowed there (the walk cannot be made over ssh without trusting the remote shell).
 */
import { ConnectorError } from "@t3-connector/core";
import { confineWorkspaceRoot, type RootFileSystem, type Transport } from "@t3-connector/core/config";
import type { ConnectedEnvironment } from "@t3-connector/core/environments";
import type {
  BoundProjectWrite,
  Guard,
  ProjectEmptyGuard,
  ProjectWriteKey,
  WorkspaceRootGuard,
} from "../actions/index.js";
import { getAction, valueAtPath } from "../actions/index.js";

export interface ProjectCheckContext {
  readonly input: unknown;
  readonly environment: ConnectedEnvironment;
  readonly transport: Transport;
  readonly projectRoots: readonly string[];
  readonly rootFileSystem?: RootFileSystem;
  /**
   * A forced delete's thread count as the approval page named it: a project holding more now is
   * refused, so a delete never takes threads the person was not told of (ADR 0074).
   */
  readonly boundThreadCount?: number;
}

/** The folder check; on success the input carries the resolved folder (what is sent). */
export async function checkWorkspaceRoot(
  guard: WorkspaceRootGuard,
  context: ProjectCheckContext,
): Promise<{ readonly resolved: string; readonly exists: boolean } | null> {
  const wanted = valueAtPath(context.input, guard.path);
  if (wanted === undefined) return null;
  if (context.transport.kind === "ssh") {
    throw new ConnectorError(
      "workspace_root_refused",
      "project folders can only be checked on an environment that runs on this machine (this one is reached over ssh)",
      { details: { reason: "remote_environment" } },
    );
  }
  const confined = await confineWorkspaceRoot(String(wanted), context.projectRoots, context.rootFileSystem);
  const create =
    guard.createField === null ? false : valueAtPath(context.input, [guard.createField]) === true;
  if (!confined.exists && !create) {
    throw new ConnectorError(
      "workspace_root_refused",
      guard.createField === null
        ? `${confined.resolved} does not exist; a project moves only to an existing folder`
        : `${confined.resolved} does not exist; set ${guard.createField}: true to have T3 make it`,
      { details: { reason: "folder_missing" } },
    );
  }
  return confined;
}

/** Live and archived threads of a project, counted now (the archived shell is a socket read). */
export async function countProjectThreads(
  environment: ConnectedEnvironment,
  projectId: string,
): Promise<number> {
  const [shell, archived] = await Promise.all([
    environment.http.getShell(),
    environment.rpc().then((rpc) => rpc.getArchivedShellSnapshot()),
  ]);
  const ids = new Set<string>();
  for (const thread of [...shell.threads, ...shell.archivedThreads, ...archived.threads]) {
    if (thread.projectId === projectId && !thread.deletedAt) ids.add(thread.id);
  }
  return ids.size;
}

/**
 * Every project check an entry declares, in order: what the operator's path (ops) runs before its
 * send, so that it applies the same folder and thread-count rules as the gate's dispatcher.
 * Returns the first refusal, or null.
 */
export async function projectRefusal(
  guards: readonly Guard[],
  context: ProjectCheckContext,
): Promise<ConnectorError | null> {
  for (const guard of guards) {
    try {
      if (guard.kind === "workspace_root_confined") await checkWorkspaceRoot(guard, context);
      if (guard.kind === "project_empty_unless_forced") await checkProjectEmpty(guard, context);
    } catch (error) {
      if (error instanceof ConnectorError) return error;
      throw error;
    }
  }
  return null;
}

/** Refuses a delete of a project that still holds threads, unless forced; answers the count. */
export async function checkProjectEmpty(
  guard: ProjectEmptyGuard,
  context: ProjectCheckContext,
): Promise<number> {
  const projectId = String(valueAtPath(context.input, [guard.projectField]));
  const count = await countProjectThreads(context.environment, projectId);
  if (count > 0 && valueAtPath(context.input, [guard.forceField]) !== true) {
    throw new ConnectorError(
      "project_not_empty",
      `project ${projectId} still holds ${count} thread${count === 1 ? "" : "s"} (live and archived); ` +
        "delete or move them first, or set force: true to delete the project and its threads",
      { details: { reason: "project_not_empty", projectId, threadCount: count } },
    );
  }
  if (context.boundThreadCount !== undefined && count > context.boundThreadCount) {
    throw new ConnectorError(
      "project_not_empty",
      `project ${projectId} now holds ${count} threads, more than the ${context.boundThreadCount} the approval named; ` +
        "nothing was deleted: ask again with t3_pedir_aprovacao so the person sees the count as it is",
      {
        details: {
          reason: "threads_added_since_approval",
          projectId,
          threadCount: count,
          approvedThreadCount: context.boundThreadCount,
        },
      },
    );
  }
  return count;
}

/**
 * What the approval page names for a project write before the person approves it (ADR 0074): a
 * create's or a move's folder walked now under the allowed roots (refused as the send would refuse
 * it) and whether T3 would make it; a forced delete's live and archived threads counted now. The
 * lease then binds exactly this input.
 */
export async function boundProjectWriteFacts(
  key: ProjectWriteKey,
  context: Omit<ProjectCheckContext, "input">,
): Promise<BoundProjectWrite> {
  if (key.action === "project.delete") {
    return { ...key, threadCount: await countProjectThreads(context.environment, key.projectId) };
  }
  const guard = getAction(key.action).guards.find(
    (candidate): candidate is WorkspaceRootGuard => candidate.kind === "workspace_root_confined",
  );
  if (guard === undefined) throw new Error(`${key.action} has no folder guard`);
  // A move's folder must exist (its guard has no create flag), so a walk that passes found it.
  const confined = await checkWorkspaceRoot(guard, { ...context, input: key });
  if (key.action === "project.meta.update") return key;
  return { ...key, wouldCreate: confined === null ? false : !confined.exists };
}

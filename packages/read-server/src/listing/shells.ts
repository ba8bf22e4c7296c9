import {
  isListableThread,
  type ShellThreadInput,
  type ThreadSummary,
  threadSummary,
} from "@t3-connector/core/state";
import type { ProjectShell, ShellSnapshot, ThreadShell } from "@t3-connector/core/t3";
import type { ReadContext } from "../read-context.js";
import { readScope, type ScopeResult } from "../scope/read-scope.js";

/** `environment` as every listed item carries it. */
export interface ItemEnvironment {
  alias: string;
  environmentId: string;
  name: string | null;
}

/** One environment's shell, read once, with the ACL that applies to it. */
export interface ShellView {
  readonly environment: ItemEnvironment;
  readonly shell: ShellSnapshot;
  readonly allowedProjects: ReadonlySet<string>;
  /** When the shell answered (ISO), from the context's clock. */
  readonly readAt: string;
}

/**
 * Reads the shell of each environment in scope (one, or all through the sweep) and hands it to
 * `project`, which runs inside that environment's read: an error it throws (a refused filter, a
 * project the environment does not authorize) is that environment's failure during a sweep, and
 * the tool's error when the caller named the environment.
 */
export function sweepShells<T>(
  context: ReadContext,
  environment: string | undefined,
  signal: AbortSignal,
  project: (view: ShellView) => T,
  countFound: (value: T) => number,
): Promise<ScopeResult<T>> {
  return readScope(
    context,
    environment,
    async ({ connection, allowedProjects }, readSignal) => {
      const shell = await connection.http.getShell({ signal: readSignal });
      const view: ShellView = {
        environment: {
          alias: connection.alias,
          environmentId: connection.environmentId,
          name: connection.name,
        },
        shell,
        allowedProjects,
        readAt: new Date(context.clock.now()).toISOString(),
      };
      return project(view);
    },
    { signal, countFound },
  );
}

/**
 * A wire row as the state projection reads it. The wire schema keeps `modelSelection.options` as
 * `unknown` (T3 has sent both arrays and objects); the projection accepts either shape and
 * ignores anything else, so handing it the parsed row unchanged is safe.
 */
export function stateRow(thread: ThreadShell): ShellThreadInput {
  return thread as ShellThreadInput;
}

/** Threads a listing may show: in an allowed project, neither deleted nor archived. */
export function visibleThreads(view: ShellView): ThreadShell[] {
  return view.shell.threads.filter(
    (thread) => isListableThread(stateRow(thread)) && view.allowedProjects.has(thread.projectId),
  );
}

/**
 * Threads a search by title or ID may find: archived ones too (a read by ID accepts them), never
 * deleted ones, and only in allowed projects. Each carries whether it is archived.
 */
export function searchableThreads(view: ShellView): Array<{ thread: ThreadShell; archived: boolean }> {
  const rows = [
    ...view.shell.threads.map((thread) => ({ thread, archived: Boolean(thread.archivedAt) })),
    ...view.shell.archivedThreads.map((thread) => ({ thread, archived: true })),
  ];
  const seen = new Set<string>();
  return rows.filter(({ thread }) => {
    // A row seen in both lists (never observed, but not excluded by the wire) is counted once.
    if (seen.has(thread.id)) return false;
    seen.add(thread.id);
    return !thread.deletedAt && view.allowedProjects.has(thread.projectId);
  });
}

/** Projects a listing may show: allowed by the ACL, neither deleted nor archived. */
export function visibleProjects(view: ShellView): ProjectShell[] {
  return view.shell.projects.filter(
    (project) => !project.deletedAt && !project.archivedAt && view.allowedProjects.has(project.id),
  );
}

export function projectsById(view: ShellView): Map<string, ProjectShell> {
  return new Map(view.shell.projects.map((project) => [project.id, project]));
}

/** A thread summary led by `threadId`, `title` and `environment`, as the listings return it. */
export type ThreadItem = ThreadSummary & { environment: ItemEnvironment };

/** Summaries of `threads`, all judged at `now` (one instant per call). */
export function threadItems(view: ShellView, threads: readonly ThreadShell[], now: number): ThreadItem[] {
  const projects = projectsById(view);
  return threads.map((thread) => threadItem(view.environment, thread, now, projects.get(thread.projectId)));
}

export function threadItem(
  environment: ItemEnvironment,
  thread: ThreadShell,
  now: number,
  project: ProjectShell | undefined,
): ThreadItem {
  const { threadId, title, ...rest } = threadSummary(stateRow(thread), { now, project });
  return { threadId, title, environment, ...rest };
}

/**
 * Threads of every environment, grouped by environment and project, each with its canonical state
 * (core/state), a display status and an age. Environments are read at the same time; one that
 * does not answer is reported in `unreachable` and never hides the others.
 */
import { addArchivedThreads } from "@t3-connector/core/environments";
import type { ThreadState } from "@t3-connector/core/state";
import { isListableThread, parseInstant, resolveNow, threadSummary } from "@t3-connector/core/state";
import type { ProjectShell, ShellSnapshot, ThreadShell } from "@t3-connector/core/t3";
import type { OpsEnvironments, ResolvedEnvironment } from "./environments.js";
import { errorFields } from "./error-fields.js";
import { stateRow } from "./shell-rows.js";
import { STATE_ICON } from "./status-icons.js";

export interface ListedThread {
  threadId: string;
  title: string;
  /** The canonical state of core/state, the same word `t3_threads` gives this thread. */
  state: ThreadState;
  icon: string;
  statusRun: string | null;
  settled: boolean;
  pinned: boolean;
  /** While snoozed: when it wakes. */
  snoozedUntil: string | null;
  woke: boolean | null;
  updatedAt: string | null;
  /** Seconds since updatedAt at the time of the listing; null when unknown. */
  ageSeconds: number | null;
}

export interface ListedProject {
  projectId: string | null;
  title: string | null;
  threads: ListedThread[];
}

export interface ListedEnvironment {
  alias: string;
  environmentId: string;
  projects: ListedProject[];
}

export interface ThreadListing {
  /** Which threads are listed (ls --settled / --archived). */
  showing: ListShowing;
  environments: ListedEnvironment[];
  unreachable: { alias: string; environmentId: string; code: string; message: string }[];
}

/** One environment's shell with the thread rows a reference may name. */
export interface EnvironmentShell {
  env: ResolvedEnvironment;
  shell: ShellSnapshot;
}

/** One environment's shell; with `archived`, completed by the archived shell snapshot (one more read). */
export async function readShell(
  env: ResolvedEnvironment,
  options: { archived?: boolean } = {},
): Promise<EnvironmentShell> {
  const connection = await env.handle.connect();
  const shell = await connection.http.getShell();
  return { env, shell: options.archived === true ? await addArchivedThreads(connection, shell) : shell };
}

export function listedThread(
  thread: ThreadShell,
  project: ProjectShell | undefined,
  now: number,
): ListedThread {
  const summary = threadSummary(stateRow(thread), { now, project });
  const updated = parseInstant(thread.updatedAt);
  return {
    threadId: thread.id,
    title: thread.title,
    state: summary.state,
    icon: STATE_ICON[summary.state],
    statusRun: summary.statusRun,
    settled: summary.settled,
    pinned: summary.pinned,
    snoozedUntil: summary.snoozedUntil,
    woke: summary.woke,
    updatedAt: thread.updatedAt ?? null,
    ageSeconds: updated === null ? null : Math.max(0, Math.floor((now - updated) / 1000)),
  };
}

/** Which threads `ls` shows: the active list (default), or only the settled, the archived, or either. */
export interface ListOptions {
  settled?: boolean;
  archived?: boolean;
}

export type ListShowing = "active" | "settled" | "archived" | "settled_or_archived";

function showingOf(options: ListOptions): ListShowing {
  if (options.settled === true && options.archived === true) return "settled_or_archived";
  if (options.settled === true) return "settled";
  if (options.archived === true) return "archived";
  return "active";
}

/** The rows of `shell` that `showing` selects (archived rows come from the archived snapshot). */
function selectThreads(shell: ShellSnapshot, showing: ListShowing, now: number): ThreadShell[] {
  const listable = shell.threads.filter((thread) => isListableThread(stateRow(thread)));
  const archived = (shell.archivedThreads ?? []).filter((thread) => !thread.deletedAt);
  const settled = () => listable.filter((thread) => threadSummary(stateRow(thread), { now }).settled);
  switch (showing) {
    case "active":
      return listable;
    case "settled":
      return settled();
    case "archived":
      return archived;
    case "settled_or_archived":
      return [...settled(), ...archived];
  }
}

function groupByProject(shell: ShellSnapshot, showing: ListShowing, now: number): ListedProject[] {
  const projects = new Map(shell.projects.map((project) => [project.id, project]));
  const groups = new Map<string | null, ListedProject>();
  const threads = selectThreads(shell, showing, now);
  // Newest first inside each project, like the sidebar.
  threads.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0));
  for (const thread of threads) {
    const projectId = thread.projectId;
    const project = projectId === null ? undefined : projects.get(projectId);
    let group = groups.get(projectId);
    if (group === undefined) {
      group = { projectId, title: project?.title ?? null, threads: [] };
      groups.set(projectId, group);
    }
    group.threads.push(listedThread(thread, project, now));
  }
  return [...groups.values()].sort((a, b) => (a.title ?? "").localeCompare(b.title ?? ""));
}

export async function listThreads(
  environments: OpsEnvironments,
  options: ListOptions = {},
): Promise<ThreadListing> {
  const now = resolveNow(environments.clock);
  const showing = showingOf(options);
  const all = environments.all();
  const archived = options.archived === true;
  const answers = await Promise.allSettled(all.map((env) => readShell(env, { archived })));
  const listing: ThreadListing = { showing, environments: [], unreachable: [] };
  answers.forEach((answer, index) => {
    const env = all[index] as ResolvedEnvironment;
    const { alias, environmentId } = env.config;
    if (answer.status === "fulfilled") {
      listing.environments.push({
        alias,
        environmentId,
        projects: groupByProject(answer.value.shell, showing, now),
      });
    } else {
      const { code, message } = errorFields(answer.reason);
      listing.unreachable.push({ alias, environmentId, code, message });
    }
  });
  return listing;
}

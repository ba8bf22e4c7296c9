/**
 * The fresh reads every write makes: which referenced threads exist (not deleted), in which
 * project, and in which state. Never cached: the lease's project check and the guards must see
 * T3 as it is now, not as a list someone read a minute ago.
 *
 * Each referenced thread is read on its own (its bounded window, or the full snapshot on a server
 * without it), and projects only when the input names some: a write's reads cost the same whether
 * the environment holds ten threads or twenty thousand (ADR 0026). The whole shell is never read.
 * A thread's runs and pending requests travel whole in a bounded window, which is all the guards
 * and the lease check need. Projects come from `GET /api/projects`; on a server without that route
 * (0.0.46 may lack it, ADR 0069) from the shell, the only read that lists them there; the client
 * remembers the absence, so that server is asked once.
 */

import { ACTIVE_RUN_STATUSES, ConnectorError, isConnectorError } from "@t3-connector/core";
import type { ConnectedEnvironment } from "@t3-connector/core/environments";
import { fetchThreadWindow, type ThreadProjection } from "@t3-connector/core/t3";
import { isRuntimeMode, type RuntimeMode, type ThreadStateView } from "../actions/index.js";

/** What the checks read of one thread, derived from its projection as the shell row would say it. */
export interface FreshThread {
  readonly id: string;
  readonly projectId: string;
  /** The newest run's status, `idle` without runs (the shell row's `status`). */
  readonly status: string;
  readonly latestRunId: string | null;
  /** A preparing, starting or running run (the shell row's `activeRunId`; a waiting run is not). */
  readonly activeRunId: string | null;
  readonly pendingRuntimeRequest: { readonly id: string; readonly kind: string } | null;
  /** The thread's model selection (the conditional send checks a model step landed). */
  readonly modelSelection: ThreadProjection["thread"]["modelSelection"];
  /** The mode its agent runs in now (null when the server does not say): a message runs in it. */
  readonly runtimeMode: RuntimeMode | null;
  /** Queued runs not held: the next one starts when the active run ends (the runtime ceiling). */
  readonly queuedToStart: number;
}

export interface FreshThreads {
  /** The highest `snapshotSequence` read: every effect of a later send has a higher sequence. */
  readonly snapshotSequence: number;
  readonly found: ReadonlyMap<string, FreshThread>;
  readonly missing: readonly string[];
  /** The projects the input named that exist and are not deleted. */
  readonly liveProjectIds: ReadonlySet<string>;
}

/** Statuses that occupy the thread's provider and show as the row's active run. */
const ROW_ACTIVE_STATUSES: ReadonlySet<string> = new Set(
  ACTIVE_RUN_STATUSES.filter((status) => status !== "waiting" && status !== "queued"),
);

/** The shell-row view of one thread projection. */
export function freshThreadOf(projection: ThreadProjection): FreshThread {
  let latest: ThreadProjection["runs"][number] | undefined;
  let active: ThreadProjection["runs"][number] | undefined;
  let queuedToStart = 0;
  for (const run of projection.runs) {
    if (run.status === "queued" && run.queueHeld !== true) queuedToStart += 1;
    if (latest === undefined || (run.ordinal ?? 0) > (latest.ordinal ?? 0)) latest = run;
    if (active === undefined && ROW_ACTIVE_STATUSES.has(run.status)) active = run;
  }
  const pending = projection.runtimeRequests
    .filter((request) => request.status === "pending")
    .sort((a, b) => (a.createdAt ?? "").localeCompare(b.createdAt ?? ""))[0];
  return {
    id: projection.thread.id,
    projectId: projection.thread.projectId,
    status: latest?.status ?? "idle",
    latestRunId: latest?.id ?? null,
    activeRunId: active?.id ?? null,
    pendingRuntimeRequest: pending === undefined ? null : { id: pending.id, kind: pending.kind ?? "unknown" },
    modelSelection: projection.thread.modelSelection,
    runtimeMode: isRuntimeMode(projection.thread.runtimeMode) ? projection.thread.runtimeMode : null,
    queuedToStart,
  };
}

async function readOne(
  environment: ConnectedEnvironment,
  threadId: string,
): Promise<{ sequence: number; thread: FreshThread } | null> {
  try {
    const window = await fetchThreadWindow(environment.http, threadId);
    const deleted = window.projection.thread.deletedAt;
    if (deleted !== null && deleted !== undefined) return null;
    return { sequence: window.snapshotSequence, thread: freshThreadOf(window.projection) };
  } catch (error) {
    if (isConnectorError(error, "thread_not_found")) return null;
    throw error;
  }
}

async function projectList(environment: ConnectedEnvironment) {
  if (!environment.http.lacksRoute("projects")) {
    try {
      return (await environment.http.getProjects()).projects;
    } catch (error) {
      if (!isConnectorError(error, "route_absent")) throw error;
    }
  }
  return (await environment.http.getShell()).projects;
}

async function liveProjects(
  environment: ConnectedEnvironment,
  projectIds: readonly string[],
): Promise<Set<string>> {
  if (projectIds.length === 0) return new Set();
  const projects = await projectList(environment);
  const wanted = new Set(projectIds);
  return new Set(
    projects
      .filter((project) => wanted.has(project.id))
      .filter((project) => project.deletedAt === null || project.deletedAt === undefined)
      .map((project) => project.id),
  );
}

/** Reads each referenced thread by id, and the named projects; nothing else. */
export async function readFreshThreads(
  environment: ConnectedEnvironment,
  threadIds: readonly string[],
  projectIds: readonly string[] = [],
): Promise<FreshThreads> {
  const wanted = [...new Set(threadIds)];
  const [reads, live] = await Promise.all([
    Promise.all(wanted.map((threadId) => readOne(environment, threadId))),
    liveProjects(environment, projectIds),
  ]);
  const found = new Map<string, FreshThread>();
  let snapshotSequence = 0;
  reads.forEach((read, index) => {
    const threadId = wanted[index];
    if (read === null || threadId === undefined) return;
    // A read answered for another id would be a server defect: never trust it as this thread.
    if (read.thread.id !== threadId)
      throw new ConnectorError(
        "invalid_response",
        `a read of thread ${threadId} answered thread ${read.thread.id}`,
      );
    found.set(threadId, read.thread);
    snapshotSequence = Math.max(snapshotSequence, read.sequence);
  });
  return {
    snapshotSequence,
    found,
    missing: wanted.filter((id) => !found.has(id)),
    liveProjectIds: live,
  };
}

/** The fields the catalogue's thread guards read. */
export function threadStateView(thread: FreshThread): ThreadStateView {
  return {
    status: thread.status,
    activeRunId: thread.activeRunId,
    pendingRuntimeRequest: thread.pendingRuntimeRequest,
  };
}

/** Sorted unique project ids of the found threads plus the ones the input names directly. */
export function projectsOf(fresh: FreshThreads, directProjectIds: readonly string[]): string[] {
  const ids = new Set(directProjectIds);
  for (const thread of fresh.found.values()) ids.add(thread.projectId);
  return [...ids].sort();
}

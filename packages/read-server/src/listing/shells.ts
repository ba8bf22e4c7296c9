import { addArchivedThreads, type ConnectedEnvironment } from "@t3-connector/core/environments";
import { type ShellRead, ThreadListIndex } from "@t3-connector/core/mirror";
import {
  isListableThread,
  type ShellThreadInput,
  type ThreadSummary,
  threadSummary,
  type WokeMarker,
  wokeMarker,
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
  /** `mirror`: the environment's live shell mirror answered (no refetch); `http`: a fresh GET. */
  readonly source: ShellRead["source"];
  /**
   * The mirror's maintained thread index (live: read it in the projection's synchronous step).
   * Absent for an HTTP shell: `threadIndexOf` builds one for it.
   */
  readonly threadIndex?: (() => ThreadListIndex | undefined) | undefined;
}

/**
 * The whole shell of one connected environment: its live mirror when that is ready and its
 * socket answers, else a fresh HTTP shell (a connection's first read starts its mirror unless
 * `startMirror` is false).
 */
export function readWholeShell(
  context: ReadContext,
  connection: ConnectedEnvironment,
  signal: AbortSignal,
  options: { startMirror?: boolean } = {},
): Promise<ShellRead> {
  if (context.mirrors !== undefined) return context.mirrors.readShell(connection, { signal, ...options });
  return connection.http.getShell({ signal }).then((shell) => ({ source: "http" as const, shell }));
}

/**
 * Reads the shell of each environment in scope (one, or all through the sweep) and hands it to
 * `project`, which runs inside that environment's read: an error it throws (a refused filter, a
 * project the environment does not authorize) is that environment's failure during a sweep, and
 * the tool's error when the caller named the environment.
 */
export async function sweepShells<T>(
  context: ReadContext,
  environment: string | undefined,
  signal: AbortSignal,
  project: (view: ShellView) => T,
  countFound: (value: T) => number,
  options: {
    withArchive?: boolean;
    /** Fills what the shell leaves out from the threads themselves (secrets-from-threads.ts). */
    enrich?: (
      connection: ConnectedEnvironment,
      shell: ShellSnapshot,
      signal: AbortSignal,
    ) => Promise<ShellSnapshot>;
  } = {},
): Promise<ScopeResult<T>> {
  // Mirrors start once the whole sweep answered: a mirror's first snapshot is a full shell to
  // parse, and starting it mid-sweep would slow the other environments' reads of this call.
  const unmirrored = new Set<ConnectedEnvironment>();
  const startMirrors = () => {
    for (const connection of unmirrored) context.mirrors?.mirrorOf(connection);
  };
  const scope = readScope(
    context,
    environment,
    async ({ connection, allowedProjects }, readSignal) => {
      const read = await readWholeShell(context, connection, readSignal, { startMirror: false });
      const { source } = read;
      if (source === "http") unmirrored.add(connection);
      // Archived threads are not in the shell (current T3, 0.0.31): their own snapshot adds them.
      const whole = options.withArchive
        ? await addArchivedThreads(connection, read.shell, { signal: readSignal })
        : read.shell;
      const shell = options.enrich ? await options.enrich(connection, whole, readSignal) : whole;
      const view: ShellView = {
        environment: {
          alias: connection.alias,
          environmentId: connection.environmentId,
          name: connection.name,
        },
        shell,
        allowedProjects,
        readAt: new Date(context.clock.now()).toISOString(),
        source,
        ...(read.source === "mirror" && !options.withArchive && shell === read.shell
          ? { threadIndex: () => read.mirror.threadIndex() }
          : {}),
      };
      return project(view);
    },
    { signal, countFound },
  );
  return scope.finally(startMirrors);
}

/**
 * A wire row as the state projection reads it. The wire schema keeps `modelSelection.options` as
 * `unknown` (T3 has sent both arrays and objects); the projection accepts either shape and
 * ignores anything else, so handing it the parsed row unchanged is safe.
 */
export function stateRow(thread: ThreadShell): ShellThreadInput {
  return thread as ShellThreadInput;
}

/** Threads a listing may show: in an allowed project, neither deleted nor archived. Shared, do not mutate. */
export function visibleThreads(view: ShellView): readonly ThreadShell[] {
  const cached = visibleCache.get(view.shell);
  if (cached !== undefined && sameSet(cached.allowedProjects, view.allowedProjects)) return cached.threads;
  const threads = view.shell.threads.filter(
    (thread) => isListableThread(stateRow(thread)) && view.allowedProjects.has(thread.projectId),
  );
  visibleCache.set(view.shell, { allowedProjects: view.allowedProjects, threads });
  return threads;
}

/**
 * Derived lists of a shell object. A mirror hands out the same object until its next change, so
 * repeated reads skip the pass over every row; an HTTP shell is a new object on every read.
 */
const visibleCache = new WeakMap<
  ShellSnapshot,
  { allowedProjects: ReadonlySet<string>; threads: readonly ThreadShell[] }
>();
const projectMapCache = new WeakMap<ShellSnapshot, ReadonlyMap<string, ProjectShell>>();

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const value of a) if (!b.has(value)) return false;
  return true;
}

/**
 * Threads a search by title or ID may find: archived ones too (a read by ID accepts them), never
 * deleted ones, and only in allowed projects. Each carries whether it is archived. The view must
 * come from a sweep `withArchive`, since the shell alone lists no archived thread.
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

/**
 * The listable threads of the view's shell in listing order, with their counts: the mirror's own
 * (maintained per event) when the view came from a ready mirror, else built once per shell object.
 */
export function threadIndexOf(view: ShellView): ThreadListIndex {
  const live = view.threadIndex?.();
  if (live !== undefined) return live;
  let index = indexCache.get(view.shell);
  if (index === undefined) {
    index = ThreadListIndex.of(view.shell.threads);
    indexCache.set(view.shell, index);
  }
  return index;
}

const indexCache = new WeakMap<ShellSnapshot, ThreadListIndex>();

/** Projects a listing may show: allowed by the ACL, neither deleted nor archived. */
export function visibleProjects(view: ShellView): ProjectShell[] {
  return view.shell.projects.filter(
    (project) => !project.deletedAt && !project.archivedAt && view.allowedProjects.has(project.id),
  );
}

/** Every project row of the shell by id. Shared, do not mutate. */
export function projectsById(view: ShellView): ReadonlyMap<string, ProjectShell> {
  let projects = projectMapCache.get(view.shell);
  if (projects === undefined) {
    projects = new Map(view.shell.projects.map((project) => [project.id, project]));
    projectMapCache.set(view.shell, projects);
  }
  return projects;
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
  const row = stateRow(thread);
  const cached = itemCache.get(thread);
  if (
    cached !== undefined &&
    cached.project === project &&
    sameEnvironment(cached.environment, environment)
  ) {
    cached.item = judgedAt(cached.item, row, now);
    return cached.item;
  }
  const { threadId, title, ...rest } = threadSummary(row, { now, project });
  const item: ThreadItem = Object.freeze({ threadId, title, environment, ...rest });
  itemCache.set(thread, { project, environment, item });
  return item;
}

/** `threadSummary` of a shell row at `now`, from the same kind of cache as `threadItem`. Frozen. */
export function cachedThreadSummary(
  thread: ThreadShell,
  now: number,
  project: ProjectShell | undefined,
): ThreadSummary {
  const row = stateRow(thread);
  const cached = summaryCache.get(thread);
  if (cached !== undefined && cached.project === project) {
    cached.summary = judgedAt(cached.summary, row, now);
    return cached.summary;
  }
  const summary = Object.freeze(threadSummary(row, { now, project }));
  summaryCache.set(thread, { project, summary });
  return summary;
}

/**
 * The woke marker is the one part of a summary that depends on `now`: it is judged again on
 * every call (it is cheap) and the cached value is rebuilt only when the verdict moved.
 */
function judgedAt<T extends WokeMarker>(value: T, row: ShellThreadInput, now: number): T {
  const { woke, wokeAt } = wokeMarker(row, now);
  if (woke === value.woke && wokeAt === value.wokeAt) return value;
  const judged: T = { ...value, woke, wokeAt };
  return Object.freeze(judged);
}

/**
 * Items and summaries of shell rows, keyed by the row object. A live mirror replaces a row (and
 * a project row) only when it changes, so an entry stays valid exactly as long as its inputs;
 * rows of an HTTP shell are new objects on every read and simply never hit. Entries die with
 * their rows. Values are shared between calls, hence frozen: copy one to add fields.
 */
const itemCache = new WeakMap<
  ThreadShell,
  { project: ProjectShell | undefined; environment: ItemEnvironment; item: ThreadItem }
>();
const summaryCache = new WeakMap<
  ThreadShell,
  { project: ProjectShell | undefined; summary: ThreadSummary }
>();

function sameEnvironment(a: ItemEnvironment, b: ItemEnvironment): boolean {
  return a === b || (a.alias === b.alias && a.environmentId === b.environmentId && a.name === b.name);
}

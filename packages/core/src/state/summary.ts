import { type ModelSummary, modelSummary } from "./model.js";
import type { SecretRequestRef } from "./secret-requests.js";
import { type PendingRequestRef, type ThreadStateFields, threadState } from "./thread-state.js";
import { type NowInput, resolveNow } from "./time.js";
import type { Maybe, ProjectInput, ShellThreadInput } from "./types.js";
import { isSnoozed, type WokeMarker, wokeMarker } from "./woke.js";

export type ProjectRef = { projectId: string | null; title: string } | { projectId: string | null };

/** The thread summary every read tool shares. */
export type ThreadSummary = {
  threadId: string | null;
  title: string | null;
  project: ProjectRef;
  directory: string | null;
  branch: string | null;
  model: ModelSummary;
  runtimeMode: string | null;
} & ThreadStateFields & {
    updatedAt: string | null;
    settled: boolean;
    /** Pinned in T3's sidebar (`pinnedAt` set). */
    pinned: boolean;
    /** While the thread sleeps: when it wakes (ISO). Null when not snoozed or already awake. */
    snoozedUntil: string | null;
  } & WokeMarker;

export interface SummaryOptions {
  now: NowInput;
  /** The thread's project row from the same shell, when known. */
  project?: Maybe<ProjectInput>;
  /** The projection's pending requests (thread reads only; rule 1b of the state precedence). */
  pending?: readonly PendingRequestRef[];
  /** The projection's pending secret requests (thread reads only), when the row has none. */
  secrets?: readonly SecretRequestRef[];
}

/** The wake instant while the thread still sleeps (T3's "effectively snoozed"), else null. */
function snoozedUntil(thread: ShellThreadInput, now: number): string | null {
  return isSnoozed(thread, now) ? (thread.snoozedUntil ?? null) : null;
}

/** `settled` is `settledAt` being set; a pin or new work clears it on T3's side. */
export function isSettled(thread: ShellThreadInput): boolean {
  return Boolean(thread.settledAt);
}

function projectRef(thread: ShellThreadInput, project: Maybe<ProjectInput>): ProjectRef {
  const projectId = thread.projectId ?? project?.id ?? null;
  return typeof project?.title === "string" ? { projectId, title: project.title } : { projectId };
}

export function threadSummary(thread: ShellThreadInput, options: SummaryOptions): ThreadSummary {
  const { project } = options;
  return {
    threadId: thread.id ?? null,
    // A non-string title (never seen, but not excluded by a lenient parse) is reported as null.
    title: typeof thread.title === "string" ? thread.title : null,
    project: projectRef(thread, project),
    directory: thread.worktreePath ?? project?.workspaceRoot ?? null,
    branch: thread.branch ?? null,
    model: modelSummary(thread.modelSelection, thread.providerInstanceId),
    runtimeMode: thread.runtimeMode ?? null,
    ...threadState(thread, options.pending ?? [], options.secrets ?? []),
    updatedAt: thread.updatedAt ?? null,
    settled: isSettled(thread),
    pinned: Boolean(thread.pinnedAt),
    snoozedUntil: snoozedUntil(thread, resolveNow(options.now)),
    ...wokeMarker(thread, resolveNow(options.now)),
  };
}

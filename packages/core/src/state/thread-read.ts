import { type ChangeSummary, threadChangeSummary } from "./change-summary.js";
import { type ThreadDetailFields, threadDetailFields } from "./detail.js";
import { type PendingRequest, pendingRequests } from "./pending-requests.js";
import { type PullRequestRef, pullRequestsOf } from "./pull-requests.js";
import { projectionSecretRequests } from "./secret-requests.js";
import { type ThreadSummary, threadSummary } from "./summary.js";
import type { NowInput } from "./time.js";
import type {
  HistoryBoundsInput,
  Maybe,
  ProjectInput,
  ShellThreadInput,
  ThreadProjectionInput,
} from "./types.js";

export type ThreadRead = ThreadSummary & {
  /** Present (true) only for an archived thread, which a read by id also shows. */
  archived?: true;
  pendingRequests: PendingRequest[];
  /** Newer servers only: the linked pull requests and their watches. */
  pullRequests?: PullRequestRef[];
  /** What the latest run that left a checkpoint changed (files, +, -); null when none did. */
  changes: ChangeSummary | null;
} & ThreadDetailFields;

export interface ThreadReadOptions {
  now: NowInput;
  project?: Maybe<ProjectInput>;
  /** Limits `latestResponse` only. */
  maxCharacters?: number;
}

/**
 * The body of `t3_thread`: the shell row decides authorization and the top-level
 * fields, the projection adds the pending requests (which also feed the state, rule 1b) and the
 * detail fields. `bounds` is the bounded snapshot itself (or null for a full snapshot).
 */
export function threadRead(
  listed: ShellThreadInput,
  projection: ThreadProjectionInput,
  bounds: Maybe<HistoryBoundsInput>,
  options: ThreadReadOptions,
): ThreadRead {
  const shell = withFresherFields(listed, projection);
  const pending = pendingRequests(shell, projection);
  const secrets = projectionSecretRequests(projection);
  const pullRequests = pullRequestsOf(shell);
  const summary = threadSummary(shell, { now: options.now, project: options.project, pending, secrets });
  const detailOptions = options.maxCharacters === undefined ? {} : { maxCharacters: options.maxCharacters };
  return {
    ...summary,
    ...(shell.archivedAt ? { archived: true as const } : {}),
    pendingRequests: pending,
    ...(pullRequests === undefined ? {} : { pullRequests }),
    changes: threadChangeSummary(projection),
    ...threadDetailFields(shell, projection, bounds, { ...detailOptions, threadModel: summary.model }),
  };
}

/**
 * The thread's own fields a write changes (pin, unpin, settle, snooze, rename, archive, mode),
 * which a shell row from a live mirror may not show yet: T3 groups shell items over a short
 * window, so right after a completed write the mirror can still hold the old row. The projection
 * is read after the row, straight from T3, so where it has one of these fields its value wins.
 */
const FRESHER_IN_PROJECTION = [
  "title",
  "pinnedAt",
  "settledAt",
  "snoozedUntil",
  "snoozedAt",
  "archivedAt",
  "runtimeMode",
  "modelSelection",
  "updatedAt",
] as const satisfies ReadonlyArray<keyof ShellThreadInput>;

function withFresherFields(row: ShellThreadInput, projection: ThreadProjectionInput): ShellThreadInput {
  const fresh = projection.thread;
  if (fresh === null || fresh === undefined || (fresh.id != null && fresh.id !== row.id)) return row;
  const merged: Record<string, unknown> = { ...row };
  for (const key of FRESHER_IN_PROJECTION) {
    if (key in fresh && fresh[key] !== undefined) merged[key] = fresh[key];
  }
  return merged as ShellThreadInput;
}

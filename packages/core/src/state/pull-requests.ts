/**
 * The thread's linked pull requests as newer T3 servers list them on the row (`pullRequests`,
 * keyed `{host, repository, number}`), with whether each is watched ("Watch for changes",
 * `thread.pull-request.watch`). Read so a watch set through the bridge can be confirmed by reading
 * the thread. Older servers have no such list: the field is then left out.
 */
import type { ShellThreadInput } from "./types.js";

export interface PullRequestRef {
  host: string | null;
  repository: string | null;
  number: number | null;
  url: string | null;
  /** The last refresh's state (`open`, `merged`, `closed`, …), null before the first refresh. */
  state: string | null;
  /** Null when not watched. */
  watch: { startedAt: string | null; paused: boolean } | null;
}

const text = (value: unknown): string | null => (typeof value === "string" ? value : null);

export function pullRequestsOf(thread: ShellThreadInput): PullRequestRef[] | undefined {
  const raw = (thread as { pullRequests?: unknown }).pullRequests;
  // Left out when there are none, so a thread reads the same on servers with and without the list.
  if (!Array.isArray(raw) || raw.length === 0) return undefined;
  return raw
    .filter((entry): entry is Record<string, unknown> => entry !== null && typeof entry === "object")
    .map((entry) => {
      const snapshot = entry.snapshot as Record<string, unknown> | null | undefined;
      const watch = entry.watch as Record<string, unknown> | null | undefined;
      return {
        host: text(entry.host),
        repository: text(entry.repository),
        number: typeof entry.number === "number" ? entry.number : null,
        url: text(entry.url),
        state: text(snapshot?.state),
        watch:
          watch !== null && typeof watch === "object"
            ? { startedAt: text(watch.startedAt), paused: watch.paused === true }
            : null,
      };
    });
}

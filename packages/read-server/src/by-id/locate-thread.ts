import type { EnvironmentRef } from "@t3-connector/core/fanout";
import type { ShellSnapshot } from "@t3-connector/core/t3";
import type { EnvironmentDiscovery, VisibleThread } from "@t3-connector/mcp-tools/read-answers";
import type { ReadContext } from "../read-context.js";
import { readScope } from "../scope/read-scope.js";
import { shellListing } from "./shell-listing.js";
import {
  ambiguousThread,
  incompleteScope,
  threadNotFoundAnywhere,
  threadNotFoundIn,
} from "./thread-errors.js";
import { findVisibleThread } from "./visible-thread.js";

/** Where a thread lives, from one shell observation of that environment. */
export interface LocatedThread {
  readonly environment: EnvironmentRef;
  readonly shell: ShellSnapshot;
  readonly visible: VisibleThread;
  /** Epoch ms right after the shell answered: the instant states and woke markers are judged at. */
  readonly observedAt: number;
  /** Only when the thread was located without `environment`. */
  readonly discovery?: EnvironmentDiscovery;
}

interface ShellLookup {
  shell: ShellSnapshot;
  visible: VisibleThread | undefined;
  observedAt: number;
}

/**
 * Finds `threadId` by reading shells only. With `environment`, only that one is read (a failure
 * there is the caller's error). Without it, every environment is read under its own ACL and the
 * thread is returned only when every environment answered and exactly one shows it; otherwise
 * the call is refused as ambiguous, incomplete (never as absent) or not found.
 */
export async function locateThread(
  context: ReadContext,
  environment: string | undefined,
  threadId: string,
  signal: AbortSignal,
): Promise<LocatedThread> {
  const { results, envelope } = await readScope<ShellLookup>(
    context,
    environment,
    async ({ connection, acl }, readSignal) => {
      // A mirror a listing already keeps answers; when it lacks the thread, T3 itself is asked.
      const shows = async (candidate: ShellSnapshot) =>
        findVisibleThread(candidate, threadId, await acl.allowedIn(candidate.projects));
      const shell = await shellListing(
        context,
        connection,
        readSignal,
        async (candidate) => (await shows(candidate)) !== undefined,
      );
      const visible = await shows(shell);
      return { shell, visible, observedAt: context.clock.now() };
    },
    { signal, countFound: (lookup) => (lookup.visible ? 1 : 0) },
  );

  const matches = results.filter((result) => result.value.visible !== undefined);
  if (environment !== undefined) {
    const only = results[0];
    if (only === undefined || matches.length === 0) {
      throw threadNotFoundIn(threadId, only?.environment.alias ?? environment);
    }
    return located(only.environment, only.value);
  }

  const foundIn = matches.map((match) => match.environment.alias);
  const missing = envelope.environmentFailures.map((failure) => ({
    alias: failure.alias,
    code: failure.code,
  }));
  // Two answering environments with the id already settle the question (the user must choose),
  // whatever a silent one holds; otherwise a silent environment forbids both "found" and "absent".
  if (matches.length > 1) throw ambiguousThread(threadId, foundIn, missing);
  if (!envelope.complete) throw incompleteScope(threadId, foundIn, missing);
  const match = matches[0];
  if (match === undefined) {
    throw threadNotFoundAnywhere(
      threadId,
      results.map((result) => result.environment.alias),
    );
  }
  return located(match.environment, match.value, {
    complete: envelope.complete,
    queriedEnvironments: envelope.queriedEnvironments,
    environmentFailures: envelope.environmentFailures,
  });
}

function located(
  environment: EnvironmentRef,
  lookup: ShellLookup,
  discovery?: EnvironmentDiscovery,
): LocatedThread {
  const visible = lookup.visible;
  // Callers only pass lookups that matched; the check keeps the type honest.
  if (visible === undefined) throw new Error("located() needs a visible thread");
  return {
    environment,
    shell: lookup.shell,
    visible,
    observedAt: lookup.observedAt,
    ...(discovery ? { discovery } : {}),
  };
}

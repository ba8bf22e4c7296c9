import { ConnectorError } from "@t3-connector/core";
import { WAIT_MAX_CHARACTERS } from "@t3-connector/core/state";
import { locateThread } from "../by-id/locate-thread.js";
import { deadlinesOf, type ReadContext } from "../read-context.js";
import { followThreadStream } from "./follow-stream.js";
import { decideFromShell, followedFromShell, type WaitReturnReason } from "./followed-run.js";
import type { ObservedThread } from "./observed-thread.js";
import { buildWaitResult, type WaitResult } from "./wait-result.js";

export interface WaitForThreadInput {
  environment: string;
  threadId: string;
  timeoutMs: number;
  runId?: string | undefined;
  includeLatestResponse?: boolean | undefined;
  maxCharacters?: number | undefined;
}

export interface WaitForThreadOptions {
  signal: AbortSignal;
}

/**
 * `t3_aguardar_thread`. One deadline bounds the whole call: locating the thread, the socket, the
 * snapshot and the events. It is a call deadline of the context's source, like the read batch's
 * (real timers unless a test injects a source it expires by hand). The shell read decides what
 * can be answered at once (no run, an ended run, a pending request); otherwise the thread stream
 * is followed.
 * It never takes a lease, never dispatches, never interrupts a run: it only reads.
 */
export async function waitForThread(
  context: ReadContext,
  input: WaitForThreadInput,
  options: WaitForThreadOptions,
): Promise<WaitResult> {
  const { signal } = options;
  if (signal.aborted) throw new ConnectorError("cancelled", "the wait was cancelled by the caller");
  const startedAt = context.clock.monotonic();
  // No reason of its own: the signal aborts with the default one, and only `aborted` is read.
  const deadline = deadlinesOf(context).start(input.timeoutMs, undefined, {});
  try {
    // Located like the reads by id (same ACL, same refusals), always in the one named environment.
    const located = await locateThread(
      context,
      input.environment,
      input.threadId,
      AbortSignal.any([signal, deadline.signal]),
    ).catch((error: unknown) => {
      if (signal.aborted) throw new ConnectorError("cancelled", "the wait was cancelled by the caller");
      // Nothing was observed before the deadline: there is no state to report.
      if (deadline.signal.aborted) {
        throw new ConnectorError(
          "unavailable",
          `environment "${input.environment}" gave no state of the thread within ${input.timeoutMs} ms`,
          { cause: error },
        );
      }
      throw error;
    });

    const { thread } = located.visible;
    const environment = {
      alias: located.environment.alias,
      environmentId: located.environment.environmentId,
    };
    const handle = context.registry.resolve(located.environment.environmentId);
    const fromShell = followedFromShell(thread, input.runId);
    const includeLatestResponse = input.includeLatestResponse === true;
    let reason: WaitReturnReason | undefined = decideFromShell(thread, fromShell, includeLatestResponse);
    let followed = { runId: fromShell.runId ?? null, status: fromShell.status };
    let observed: ObservedThread | undefined;
    let subscriptionError: { code: string; message: string } | undefined;
    if (reason === undefined) {
      const outcome = await followThreadStream({
        threadId: thread.id,
        followed: fromShell,
        requestedRunId: input.runId,
        connect: async () => (await handle.connect({ signal })).rpc(),
        signal,
        deadline: deadline.signal,
        log: (line) => context.log(line),
      });
      ({ reason, followed, observed, subscriptionError } = outcome);
    }

    return buildWaitResult({
      environment,
      thread,
      followed,
      observed,
      reason,
      observedAt: new Date(context.clock.now()).toISOString(),
      elapsedMs: Math.max(0, Math.round(context.clock.monotonic() - startedAt)),
      timeoutMs: input.timeoutMs,
      maxCharacters: includeLatestResponse ? (input.maxCharacters ?? WAIT_MAX_CHARACTERS.default) : undefined,
      ...(subscriptionError ? { subscriptionError } : {}),
    });
  } finally {
    deadline.clear();
  }
}

import { ConnectorError, isConnectorError } from "@t3-connector/core";
import { resumableThreadSubscription, type T3RpcClient } from "@t3-connector/core/t3";
import { decideFromStream, type FollowedRun, type WaitReturnReason } from "./followed-run.js";
import { ObservedThread } from "./observed-thread.js";

export interface FollowStreamOptions {
  threadId: string;
  /** The run as the shell described it (`runId` undefined: activity without a named run). */
  followed: { runId: string | null | undefined; status: string | null };
  requestedRunId: string | undefined;
  /** A verified connection's socket (shared; never closed here, only our own stream is). */
  connect: () => Promise<T3RpcClient>;
  /** The caller's cancellation. */
  signal: AbortSignal;
  /** The wait's deadline. */
  deadline: AbortSignal;
  log: (line: string) => void;
  /** Delay before resubscribing after a dropped socket. */
  reconnectDelayMs?: number;
}

export interface FollowStreamOutcome {
  observed: ObservedThread;
  followed: FollowedRun;
  reason: WaitReturnReason;
  subscriptionError?: { code: string; message: string };
}

/**
 * Follows the thread over `orchestration.subscribeThread` until the followed run ends, a request
 * is pending, the thread is deleted, the deadline passes, the stream ends, or the caller cancels.
 * Event-driven: nothing is polled. Whatever ends it, the subscription is closed before this
 * settles (an Interrupt for our stream only; the shared socket stays up for other calls).
 * A dropped socket is resumed from the last sequence seen, so no event is missed or seen twice.
 */
export function followThreadStream(o: FollowStreamOptions): Promise<FollowStreamOutcome> {
  const observed = new ObservedThread();
  let followed: FollowedRun = { runId: o.followed.runId ?? null, status: o.followed.status };

  return new Promise<FollowStreamOutcome>((resolve, reject) => {
    let settled = false;
    let checkScheduled = false;
    const cancelledError = () => new ConnectorError("cancelled", "the wait was cancelled by the caller");
    if (o.signal.aborted) {
      reject(cancelledError());
      return;
    }

    const subscription = resumableThreadSubscription({
      connect: o.connect,
      threadId: o.threadId,
      requestCompletionMarker: true,
      reconnectDelayMs: o.reconnectDelayMs ?? 100,
      onReconnect: ({ attempt, error }) =>
        o.log(`t3_aguardar_thread: resubscribing to a thread after ${error.code} (attempt ${attempt})`),
      onItem: (item) => {
        observed.apply(item);
        // One decision per Chunk: a commit's events travel together (a run that completes and
        // its plan), and deciding in the middle of one would report half of it.
        if (!checkScheduled) {
          checkScheduled = true;
          setImmediate(check);
        }
      },
    });

    const finish = (outcome: { reason: WaitReturnReason; error?: ConnectorError } | { fail: unknown }) => {
      if (settled) return;
      settled = true;
      o.signal.removeEventListener("abort", onCancel);
      o.deadline.removeEventListener("abort", onDeadline);
      subscription.close();
      if ("fail" in outcome) {
        reject(outcome.fail);
        return;
      }
      const result: FollowStreamOutcome = { observed, followed, reason: outcome.reason };
      if (outcome.error)
        result.subscriptionError = { code: outcome.error.code, message: outcome.error.message };
      resolve(result);
    };

    function check(): void {
      checkScheduled = false;
      if (settled || !observed.snapshotSeen) return;
      try {
        const decision = decideFromStream(observed, o.threadId, o.followed, o.requestedRunId);
        followed = decision.followed;
        if (decision.reason !== undefined) finish({ reason: decision.reason });
      } catch (error) {
        finish({ fail: error });
      }
    }

    const onCancel = () => finish({ fail: cancelledError() });
    const onDeadline = () => {
      // A batch that arrived just before the deadline may hold the answer: judge it first.
      check();
      finish({ reason: "timeout" });
    };
    o.signal.addEventListener("abort", onCancel, { once: true });
    o.deadline.addEventListener("abort", onDeadline, { once: true });
    if (o.deadline.aborted) onDeadline();

    // Likewise for items that arrived just before the stream ended.
    subscription.done.then(
      () => {
        check();
        finish({ reason: "subscription_closed" });
      },
      (error: unknown) => {
        check();
        const typed = isConnectorError(error)
          ? error
          : new ConnectorError("internal", "the thread subscription failed", { cause: error });
        o.log(`t3_aguardar_thread: the thread subscription ended: ${typed.code}`);
        finish({ reason: "subscription_closed", error: typed });
      },
    );
  });
}

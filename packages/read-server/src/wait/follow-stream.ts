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
  if (o.signal.aborted) return Promise.reject(cancelledError());
  return new Promise<FollowStreamOutcome>((resolve, reject) => {
    new StreamFollower(o, resolve, reject).start();
  });
}

const cancelledError = () => new ConnectorError("cancelled", "the wait was cancelled by the caller");

type Ending = { reason: WaitReturnReason; error?: ConnectorError } | { fail: unknown };

/** One follow: the subscription, what it observed, and the one way it settles (finish). */
class StreamFollower {
  readonly #o: FollowStreamOptions;
  readonly #resolve: (outcome: FollowStreamOutcome) => void;
  readonly #reject: (error: unknown) => void;
  readonly #observed = new ObservedThread();
  #followed: FollowedRun;
  #settled = false;
  #checkScheduled = false;
  #subscription: ReturnType<typeof resumableThreadSubscription> | undefined;

  constructor(
    o: FollowStreamOptions,
    resolve: (outcome: FollowStreamOutcome) => void,
    reject: (error: unknown) => void,
  ) {
    this.#o = o;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#followed = { runId: o.followed.runId ?? null, status: o.followed.status };
  }

  start(): void {
    const o = this.#o;
    this.#subscription = resumableThreadSubscription({
      connect: o.connect,
      threadId: o.threadId,
      requestCompletionMarker: true,
      reconnectDelayMs: o.reconnectDelayMs ?? 100,
      onReconnect: ({ attempt, error }) =>
        o.log(`t3_aguardar_thread: resubscribing to a thread after ${error.code} (attempt ${attempt})`),
      onItem: (item) => {
        this.#observed.apply(item);
        // One decision per Chunk: a commit's events travel together (a run that completes and
        // its plan), and deciding in the middle of one would report half of it.
        if (!this.#checkScheduled) {
          this.#checkScheduled = true;
          setImmediate(() => this.#check());
        }
      },
    });
    o.signal.addEventListener("abort", this.#onCancel, { once: true });
    o.deadline.addEventListener("abort", this.#onDeadline, { once: true });
    if (o.deadline.aborted) this.#onDeadline();
    this.#subscription.done.then(this.#onStreamEnded, this.#onStreamFailed);
  }

  #check(): void {
    this.#checkScheduled = false;
    if (this.#settled || !this.#observed.snapshotSeen) return;
    try {
      const decision = decideFromStream(
        this.#observed,
        this.#o.threadId,
        this.#o.followed,
        this.#o.requestedRunId,
      );
      this.#followed = decision.followed;
      if (decision.reason !== undefined) this.#finish({ reason: decision.reason });
    } catch (error) {
      this.#finish({ fail: error });
    }
  }

  readonly #onCancel = () => this.#finish({ fail: cancelledError() });

  readonly #onDeadline = () => {
    // A batch that arrived just before the deadline may hold the answer: judge it first.
    this.#check();
    this.#finish({ reason: "timeout" });
  };

  // Likewise for items that arrived just before the stream ended.
  readonly #onStreamEnded = () => {
    this.#check();
    this.#finish({ reason: "subscription_closed" });
  };

  readonly #onStreamFailed = (error: unknown) => {
    this.#check();
    const typed = isConnectorError(error)
      ? error
      : new ConnectorError("internal", "the thread subscription failed", { cause: error });
    this.#o.log(`t3_aguardar_thread: the thread subscription ended: ${typed.code}`);
    this.#finish({ reason: "subscription_closed", error: typed });
  };

  #finish(ending: Ending): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#o.signal.removeEventListener("abort", this.#onCancel);
    this.#o.deadline.removeEventListener("abort", this.#onDeadline);
    this.#subscription?.close();
    if ("fail" in ending) {
      this.#reject(ending.fail);
      return;
    }
    const result: FollowStreamOutcome = {
      observed: this.#observed,
      followed: this.#followed,
      reason: ending.reason,
    };
    if (ending.error) result.subscriptionError = { code: ending.error.code, message: ending.error.message };
    this.#resolve(result);
  }
}

import type { Clock } from "@t3-connector/core";
import { readBoundedBody } from "@t3-connector/core/http-edge";
import type { TimerHandle, Timers } from "@t3-connector/core/t3";
import { type DeliveryPolicy, exhaustion, retryDelayMs } from "./backoff.js";
import type { Outbox, PendingEvent } from "./outbox.js";
import type { WebhookSigner } from "./signer.js";

/** What of a receiver's answer is read (and dropped): its status is all that counts. */
export const RECEIVER_ANSWER_MAX_BYTES = 64 * 1024;

export interface DelivererOptions {
  outbox: Outbox;
  url: string;
  signer: WebhookSigner;
  policy: DeliveryPolicy;
  clock: Clock;
  timers: Timers;
  random: () => number;
  fetch: typeof fetch;
  log: (line: string) => void;
  /** POSTs in flight at once (default 4). */
  concurrency?: number;
}

/**
 * Sends the outbox's pending events, each signed afresh per attempt (the timestamp is the
 * attempt's; the body never changes). A 2xx answer is success; anything else, a network error or
 * the deadline is a failure retried with backoff until the attempt or age bound, then a dead letter.
 * An event is acknowledged (moved to `delivered/`) only after the receiver's 2xx: a crash in
 * between sends it again under the same id, which is why receivers dedupe by `webhook-id`.
 */
export class Deliverer {
  readonly #o: DelivererOptions;
  readonly #inFlight = new Map<string, Promise<void>>();
  #timer: TimerHandle | undefined;
  #stopped = false;

  constructor(options: DelivererOptions) {
    this.#o = options;
  }

  /** Looks for due events now (after an enqueue, a rescan, or a timer). */
  wake(): void {
    if (this.#stopped) return;
    this.#timer?.cancel();
    this.#timer = undefined;
    const now = this.#o.clock.now();
    const limit = this.#o.concurrency ?? 4;
    let nextDue = Number.POSITIVE_INFINITY;
    for (const entry of this.#o.outbox.pending()) {
      if (this.#inFlight.has(entry.id)) continue;
      const due = Date.parse(entry.nextAttemptAt);
      if (due > now || this.#inFlight.size >= limit) {
        if (due < nextDue) nextDue = due;
        continue;
      }
      const attempt = this.#attempt(entry).finally(() => {
        this.#inFlight.delete(entry.id);
        this.wake();
      });
      this.#inFlight.set(entry.id, attempt);
    }
    // A slot frees up through `finally` above; a later due time needs a timer.
    if (Number.isFinite(nextDue) && this.#inFlight.size < limit) {
      this.#timer = this.#o.timers.setTimeout(() => this.wake(), Math.max(0, nextDue - now));
    }
  }

  /** Stops sending; resolves when the attempts in flight have finished (and been recorded). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#timer?.cancel();
    await Promise.allSettled([...this.#inFlight.values()]);
  }

  async #attempt(entry: PendingEvent): Promise<void> {
    const { clock, outbox, log } = this.#o;
    let failure: string;
    try {
      const status = await this.#post(entry);
      if (status >= 200 && status < 300) {
        if (await outbox.markDelivered(entry.id, new Date(clock.now()).toISOString())) {
          log(`events: delivered ${entry.id} (${entry.type}) after ${entry.attempts + 1} attempt(s)`);
        }
        return;
      }
      failure = `HTTP ${status}`;
    } catch (error) {
      failure = describeFailure(error);
    }
    if (failure === "aborted") {
      if (this.#stopped) return; // stopping: the attempt did not count
      failure = "timeout";
    }
    try {
      await this.#recordFailure(entry, failure);
    } catch (error) {
      log(`events: could not record the failed delivery of ${entry.id}: ${describeFailure(error)}`);
    }
  }

  async #recordFailure(entry: PendingEvent, failure: string): Promise<void> {
    const { clock, outbox, policy, random, log } = this.#o;
    const nowMs = clock.now();
    const now = new Date(nowMs).toISOString();
    const failed = entry.attempts + 1;
    const reason = exhaustion(failed, nowMs - Date.parse(entry.ageFrom), policy);
    if (reason !== null) {
      await outbox.markDead(entry.id, failure, now, reason);
      log(
        `events: ${entry.id} (${entry.type}) is a dead letter after ${failed} attempts (${reason}; last: ${failure})`,
      );
      return;
    }
    const next = new Date(nowMs + retryDelayMs(failed, policy, random)).toISOString();
    await outbox.markFailed(entry.id, failure, now, next);
    log(`events: delivery of ${entry.id} failed (${failure}); attempt ${failed + 1} at ${next}`);
  }

  async #post(entry: PendingEvent): Promise<number> {
    const { clock, timers, policy, signer, url } = this.#o;
    const controller = new AbortController();
    const deadline = timers.setTimeout(() => controller.abort(), policy.requestTimeoutMs);
    try {
      const response = await this.#o.fetch(url, {
        method: "POST",
        headers: {
          ...signer.headers(entry.id, new Date(clock.now()), entry.body),
          "content-type": "application/json",
          "user-agent": "t3-connector-events",
        },
        body: entry.body,
        redirect: "manual",
        signal: controller.signal,
      });
      // The status decides; the answer is read only so the connection can be reused, through the
      // one bounded reader (ADR 0056): a receiver's answer past the cap is cut off, never held.
      await readBoundedBody(response, { maxBytes: RECEIVER_ANSWER_MAX_BYTES });
      return response.status;
    } finally {
      deadline.cancel();
    }
  }
}

function describeFailure(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === "AbortError") return "aborted";
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
    if (typeof cause?.code === "string") return cause.code;
    return error.message;
  }
  return String(error);
}

import { type Clock, isConnectorError } from "@t3-connector/core";
import type { ConnectedEnvironment, EnvironmentHandle } from "@t3-connector/core/environments";
import type { ShellMirror, ShellMirrorEvent, ShellMirrors } from "@t3-connector/core/mirror";
import { inboxItemId, threadState } from "@t3-connector/core/state";
import type { Run, ShellSnapshot, ThreadShell, Timers } from "@t3-connector/core/t3";
import {
  deriveTransitions,
  EMPTY_SEEN,
  runTransitions,
  stateRow,
  type ThreadSeen,
  type Transition,
} from "./derive.js";
import { eventId } from "./event-id.js";
import type { WebhookEvent } from "./event-types.js";
import type { EventSubject } from "./filters.js";
import type { Outbox } from "./outbox.js";
import type { SeenState } from "./seen-state.js";

export interface FollowerContext {
  seen: SeenState;
  outbox: Outbox;
  clock: Clock;
  timers: Timers;
  log: (line: string) => void;
  /** Whether an event is emitted: the filters, inside the read ACL judged against its shell's projects. */
  accept: (subject: EventSubject, projects: ShellSnapshot["projects"]) => Promise<boolean>;
  /** The origin the person's inbox answers at: waiting and resolved events link to their item. */
  inboxOrigin?: string;
  /** An event went into the outbox: deliver it. */
  enqueued: (event: WebhookEvent) => void;
  onReady?: (info: FollowerReady) => void;
  /** Delay before following an environment again after its mirror stopped (default 1 s, doubling to 30 s). */
  reconnectDelayMs?: number;
  /** Deadline of reading a thread's runs when the shell cannot tell how they ended (default 5 s). */
  runsTimeoutMs?: number;
  /**
   * Delay before a thread is compared again after its events could not be written to the outbox,
   * and before its runs are read again after a failed read (default 2 s).
   */
  retryDelayMs?: number;
}

export interface FollowerReady {
  alias: string;
  environmentId: string;
  /** True the first time an environment is seen: its current state was recorded, nothing emitted. */
  baseline: boolean;
  threads: number;
}

const MAX_RECONNECT_DELAY_MS = 30_000;
const RETRY_DELAY_MS = 2_000;
const RUNS_CHECK_DELAY_MS = 200;

/**
 * Follows one environment through its live shell mirror (core's `ShellMirrors`: the one
 * `subscribeShell` client, resuming with `afterSequence` after a drop) and turns each thread's
 * changes into events. Every time the mirror becomes ready (first start, after a resync) all
 * threads are compared with what was last seen, which is how transitions that happened while this
 * process was down, or while the stream was resyncing, are emitted — each once, by its id.
 */
export class EnvironmentFollower {
  readonly #handle: EnvironmentHandle;
  readonly #mirrors: ShellMirrors;
  readonly #ctx: FollowerContext;
  readonly #stop = new AbortController();
  /** One chain per thread: a thread's evaluations never overlap, different threads never wait on each other. */
  readonly #chains = new Map<string, Promise<void>>();
  /** Threads with a run-list check already waiting on its timer. */
  readonly #runsChecksDue = new Set<string>();
  readonly done: Promise<void>;

  constructor(handle: EnvironmentHandle, mirrors: ShellMirrors, ctx: FollowerContext) {
    this.#handle = handle;
    this.#mirrors = mirrors;
    this.#ctx = ctx;
    this.done = this.#run();
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.done;
    await Promise.allSettled([...this.#chains.values()]);
  }

  async #run(): Promise<void> {
    const signal = this.#stop.signal;
    let delay = this.#ctx.reconnectDelayMs ?? 1_000;
    while (!signal.aborted) {
      try {
        const connection = await this.#handle.connect({ signal });
        const mirror = this.#mirrors.mirrorOf(connection);
        if (mirror !== undefined) {
          delay = this.#ctx.reconnectDelayMs ?? 1_000;
          await this.#follow(connection, mirror);
        }
      } catch (error) {
        if (signal.aborted) return;
        this.#ctx.log(`events: environment "${this.#handle.alias}" unavailable: ${describe(error)}`);
      }
      if (signal.aborted) return;
      await this.#sleep(delay);
      delay = Math.min(delay * 2, MAX_RECONNECT_DELAY_MS);
    }
  }

  /** Until the mirror stops (its connection dropped or gave up) or this follower is stopped. */
  async #follow(connection: ConnectedEnvironment, mirror: ShellMirror): Promise<void> {
    const unlisten = mirror.onChange((event) => this.#onMirrorEvent(connection, mirror, event));
    try {
      if (mirror.ready) this.#schedule("*", () => this.#evaluateAll(connection, mirror));
      const stopped = new Promise<void>((resolve) =>
        this.#stop.signal.addEventListener("abort", () => resolve()),
      );
      await Promise.race([mirror.done, stopped]);
    } finally {
      unlisten();
    }
  }

  #onMirrorEvent(connection: ConnectedEnvironment, mirror: ShellMirror, event: ShellMirrorEvent): void {
    if (event.type === "status") {
      if (event.status === "ready") this.#schedule("*", () => this.#evaluateAll(connection, mirror));
      return;
    }
    if (!mirror.ready) return; // the next `ready` compares every thread
    const { change } = event;
    if (change.kind === "thread.updated") {
      const { threadId } = change;
      this.#schedule(threadId, () => this.#evaluate(connection, mirror, threadId, false));
    } else if (change.kind === "snapshot") {
      this.#schedule("*", () => this.#evaluateAll(connection, mirror));
    }
  }

  #schedule(key: string, task: () => Promise<void>): void {
    const previous = this.#chains.get(key) ?? Promise.resolve();
    const next = previous
      .then(task)
      .catch((error: unknown) => this.#ctx.log(`events: "${this.#handle.alias}": ${describe(error)}`));
    this.#chains.set(key, next);
    void next.then(() => {
      if (this.#chains.get(key) === next) this.#chains.delete(key);
    });
  }

  async #evaluateAll(connection: ConnectedEnvironment, mirror: ShellMirror): Promise<void> {
    const shell = mirror.snapshot();
    if (shell === undefined) return;
    const rows = [...shell.threads, ...shell.archivedThreads];
    const known = this.#ctx.seen.environment(connection.environmentId);
    if (known === undefined) {
      const threads: Record<string, ThreadSeen> = {};
      for (const row of rows) threads[row.id] = deriveTransitions(EMPTY_SEEN, row).next;
      await this.#ctx.seen.baseline(
        connection.environmentId,
        connection.alias,
        new Date(this.#ctx.clock.now()).toISOString(),
        threads,
      );
      this.#ready(connection, true, rows.length);
      return;
    }
    await Promise.all(
      rows.map(
        (row) =>
          new Promise<void>((resolve) =>
            this.#schedule(row.id, () => this.#evaluate(connection, mirror, row.id, true).finally(resolve)),
          ),
      ),
    );
    this.#ready(connection, false, rows.length);
  }

  #ready(connection: ConnectedEnvironment, baseline: boolean, threads: number): void {
    this.#ctx.log(
      `events: following "${connection.alias}" (${threads} threads${baseline ? ", first run: current state recorded" : ", caught up"})`,
    );
    this.#ctx.onReady?.({
      alias: connection.alias,
      environmentId: connection.environmentId,
      baseline,
      threads,
    });
  }

  async #evaluate(
    connection: ConnectedEnvironment,
    mirror: ShellMirror,
    threadId: string,
    catchingUp: boolean,
  ): Promise<void> {
    const shell = mirror.snapshot();
    if (shell === undefined) return;
    const row = findThread(shell, threadId);
    const environmentId = connection.environmentId;
    if (row === undefined || this.#ctx.seen.environment(environmentId) === undefined) return;
    const previous = this.#ctx.seen.thread(environmentId, threadId);
    const { transitions, next } = deriveTransitions(previous, row, { catchingUp });
    try {
      await this.#enqueue(connection, shell, row, transitions);
    } catch (error) {
      // Not consumed: the last-seen state stays as it was, and the comparison is made again.
      this.#ctx.log(`events: "${connection.alias}": thread ${threadId} not recorded: ${describe(error)}`);
      this.#evaluateLater(connection, mirror, threadId);
      return;
    }
    // Written after the events are in the outbox (a crash in between derives them again, same ids),
    // and not waited for: the next change of this thread need not wait for an fsync.
    if (previous === undefined || !sameSeen(previous, next)) this.#remember(environmentId, threadId, next);
    if (next.runsCheck !== undefined) this.#checkRunsSoon(connection, mirror, threadId);
  }

  async #enqueue(
    connection: ConnectedEnvironment,
    shell: ShellSnapshot,
    row: ThreadShell,
    transitions: readonly Transition[],
  ): Promise<void> {
    const detectedAt = new Date(this.#ctx.clock.now()).toISOString();
    for (const transition of transitions) {
      const event = buildEvent(connection, shell, row, transition, detectedAt, this.#ctx.inboxOrigin);
      const subject = { environment: event.data.environment, project: event.data.project, type: event.type };
      if (!(await this.#ctx.accept(subject, shell.projects))) continue;
      const written = this.#ctx.outbox.add(event, detectedAt);
      if (written === undefined) continue; // already held: sent, being sent, or a dead letter
      this.#ctx.enqueued(event); // the send need not wait for the disk (see Outbox.add)
      await written; // but the last-seen state does, which is what the caller writes next
    }
  }

  #remember(environmentId: string, threadId: string, next: ThreadSeen): void {
    this.#ctx.seen
      .setThread(environmentId, threadId, next)
      .catch((error: unknown) =>
        this.#ctx.log(`events: the last-seen state could not be written: ${describe(error)}`),
      );
  }

  /**
   * Reads the thread's run list for the run ends the shell could not show. Off the thread's own
   * chain, so a live change is never held up by this read.
   */
  async #checkRuns(connection: ConnectedEnvironment, mirror: ShellMirror, threadId: string): Promise<void> {
    const environmentId = connection.environmentId;
    const seen = this.#ctx.seen.thread(environmentId, threadId);
    const check = seen?.runsCheck;
    if (seen === undefined || check === undefined) return;
    let runs: Run[] | undefined;
    try {
      const client = await connection.rpc();
      const projection = await client.getThreadProjection(threadId, {
        timeoutMs: this.#ctx.runsTimeoutMs ?? 5_000,
        signal: this.#stop.signal,
      });
      runs = projection.runs;
    } catch (error) {
      // A thread that is gone has nothing more to tell.
      const gone = isConnectorError(error, "thread_not_found") || isConnectorError(error, "not_found");
      if (!gone) {
        this.#ctx.log(
          `events: "${connection.alias}": the runs of thread ${threadId} are unreadable now: ${describe(error)}`,
        );
        this.#retryLater(connection, mirror, threadId);
        return;
      }
    }
    const checkedOpen = seen.openRuns;
    const found = runs === undefined ? undefined : runTransitions(check, checkedOpen, runs);
    if (found !== undefined && found.transitions.length > 0) {
      const shell = mirror.snapshot();
      const row = shell === undefined ? undefined : findThread(shell, threadId);
      if (shell === undefined || row === undefined) {
        this.#retryLater(connection, mirror, threadId); // names and titles come from the shell
        return;
      }
      await this.#enqueue(connection, shell, row, found.transitions);
    }
    // The thread may have moved on meanwhile: only what this check resolved is taken off.
    const current = this.#ctx.seen.thread(environmentId, threadId) ?? seen;
    const resolved = new Set(checkedOpen.filter((id) => !(found?.stillOpen.includes(id) ?? false)));
    const { runsCheck, ...rest } = current;
    const next: ThreadSeen = {
      ...rest,
      openRuns: current.openRuns.filter((id) => !resolved.has(id)),
      ...(runsCheck !== undefined && runsCheck !== check ? { runsCheck } : {}),
    };
    this.#remember(environmentId, threadId, next);
  }

  /** Compares a thread again after a failed outbox write (only while it is followed). */
  #evaluateLater(connection: ConnectedEnvironment, mirror: ShellMirror, threadId: string): void {
    if (this.#stop.signal.aborted) return;
    const timer = this.#ctx.timers.setTimeout(() => {
      if (!this.#stop.signal.aborted && mirror.ready) {
        this.#schedule(threadId, () => this.#evaluate(connection, mirror, threadId, true));
      }
    }, this.#ctx.retryDelayMs ?? RETRY_DELAY_MS);
    this.#stop.signal.addEventListener("abort", () => timer.cancel(), { once: true });
  }

  /**
   * Checks a thread's runs a little later: the events the row already gave go out first (the read
   * and its decoding would otherwise hold them up), and changes in between share one read.
   */
  #checkRunsSoon(connection: ConnectedEnvironment, mirror: ShellMirror, threadId: string): void {
    this.#checkRunsAfter(connection, mirror, threadId, RUNS_CHECK_DELAY_MS);
  }

  /** Checks a thread's runs again later (they could not be read); only while it is followed. */
  #retryLater(connection: ConnectedEnvironment, mirror: ShellMirror, threadId: string): void {
    this.#checkRunsAfter(connection, mirror, threadId, this.#ctx.retryDelayMs ?? RETRY_DELAY_MS);
  }

  #checkRunsAfter(connection: ConnectedEnvironment, mirror: ShellMirror, threadId: string, ms: number): void {
    if (this.#stop.signal.aborted || this.#runsChecksDue.has(threadId)) return;
    this.#runsChecksDue.add(threadId);
    const timer = this.#ctx.timers.setTimeout(() => {
      this.#runsChecksDue.delete(threadId);
      if (!this.#stop.signal.aborted && mirror.ready) {
        this.#schedule(`runs:${threadId}`, () => this.#checkRuns(connection, mirror, threadId));
      }
    }, ms);
    this.#stop.signal.addEventListener("abort", () => timer.cancel(), { once: true });
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.#ctx.timers.setTimeout(resolve, ms);
      this.#stop.signal.addEventListener("abort", () => {
        timer.cancel();
        resolve();
      });
    });
  }
}

function findThread(shell: ShellSnapshot, threadId: string): ThreadShell | undefined {
  return (
    shell.threads.find((row) => row.id === threadId) ??
    shell.archivedThreads.find((row) => row.id === threadId)
  );
}

function sameSeen(a: ThreadSeen, b: ThreadSeen): boolean {
  return (
    a.runsCheck === b.runsCheck &&
    a.latestRunId === b.latestRunId &&
    a.status === b.status &&
    a.requestId === b.requestId &&
    (a.requestKind ?? null) === (b.requestKind ?? null) &&
    (a.secretRequestId ?? null) === (b.secretRequestId ?? null) &&
    a.openRuns.length === b.openRuns.length &&
    a.openRuns.every((id, index) => b.openRuns[index] === id)
  );
}

export function buildEvent(
  connection: Pick<ConnectedEnvironment, "alias" | "environmentId">,
  shell: ShellSnapshot,
  row: ThreadShell,
  transition: Transition,
  detectedAt: string,
  inboxOrigin?: string,
): WebhookEvent {
  const project = shell.projects.find((candidate) => candidate.id === row.projectId);
  const state = threadState(stateRow(row));
  // The state the transition put the thread in. A run end read from the run list may be newer than
  // the row (or about an older run), so the row's state is not used for it.
  const transitionState =
    transition.type === "thread.request_resolved"
      ? state.state
      : "request" in transition
        ? "needs_intervention"
        : (RUN_END_STATES[transition.status ?? ""] ?? state.state);
  const id = eventId({
    environmentId: connection.environmentId,
    threadId: row.id,
    runId: transition.runId,
    transition: transition.transition,
  });
  return {
    id,
    type: transition.type,
    timestamp: detectedAt,
    data: {
      environment: { alias: connection.alias, id: connection.environmentId },
      project: { id: row.projectId ?? null, title: project?.title ?? null },
      thread: { id: row.id, title: typeof row.title === "string" ? row.title : null },
      run: { id: transition.runId, status: transition.status },
      state: transitionState,
      occurredAt: transition.occurredAt,
      detectedAt,
      ...("request" in transition
        ? {
            request: transition.request,
            link:
              inboxOrigin === undefined
                ? null
                : `${inboxOrigin}/inbox#${inboxItemId(connection.environmentId, row.id, transition.request.id)}`,
            ...(transition.resolution === undefined ? {} : { resolution: transition.resolution }),
          }
        : {}),
      // T3's last error belongs to the newest run; an older failed run's is not in the shell.
      ...(transition.type === "run.failed"
        ? { error: transition.runId === row.latestRunId ? (state.error ?? null) : null }
        : {}),
    },
  };
}

/** The canonical states of the read tools (`t3_threads`) a run end means. */
const RUN_END_STATES: Readonly<Record<string, string>> = {
  completed: "completed",
  failed: "failed",
  interrupted: "cancelled",
};

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

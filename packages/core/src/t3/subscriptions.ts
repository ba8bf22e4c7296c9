import { ConnectorError, isConnectorError } from "../errors.js";
import type { T3RpcClient } from "./rpc/client.js";
import type { Subscription } from "./rpc/connection.js";
import { systemTimers, type TimerHandle, type Timers } from "./rpc/timers.js";
import type { ShellStreamItem, ThreadStreamItem } from "./wire/stream-items.js";

/**
 * Subscriptions that outlive a dropped socket. After a transport failure they get a client
 * through `connect()` (which may hand out a shared, cached client; it is never closed here),
 * resubscribe with `afterSequence` = the last sequence seen, and drop what was already
 * delivered, so the caller sees every change once, in order, across reconnects.
 */
export interface ResumableOptions<Item> {
  connect: () => Promise<T3RpcClient>;
  /** Start after this sequence (e.g. the `snapshotSequence` of an HTTP read). */
  afterSequence?: number;
  requestCompletionMarker?: boolean;
  onItem(item: Item): void | Promise<void>;
  signal?: AbortSignal;
  /** Consecutive failed attempts allowed before giving up (default 5). Progress resets the count. */
  maxReconnectAttempts?: number;
  /** First backoff delay; it doubles per failed attempt up to 5 s (default 200 ms). */
  reconnectDelayMs?: number;
  timers?: Timers;
  /** Told before each reconnect attempt, for logs (the error says why the last attempt ended). */
  onReconnect?(info: { attempt: number; error: ConnectorError; afterSequence: number | undefined }): void;
}

export const DEFAULT_MAX_RECONNECT_ATTEMPTS = 5;
const DEFAULT_RECONNECT_DELAY_MS = 200;
const MAX_RECONNECT_DELAY_MS = 5_000;

export function resumableThreadSubscription(
  o: ResumableOptions<ThreadStreamItem> & { threadId: string },
): Subscription {
  let cursor = o.afterSequence;
  return runResumable(o, {
    cursor: () => cursor,
    open: (client, afterSequence, deliver) =>
      client.subscribeThread({
        threadId: o.threadId,
        ...(afterSequence !== undefined ? { afterSequence } : {}),
        ...(o.requestCompletionMarker ? { requestCompletionMarker: true } : {}),
        onItem: deliver,
      }),
    accept(item) {
      if (item.kind === "synchronized") return true;
      if (item.kind === "snapshot") {
        // A snapshot is authoritative even when its sequence is lower (a recreated thread).
        if (item.snapshotSequence === cursor) return false;
        cursor = item.snapshotSequence;
        return true;
      }
      const sequence = "sequence" in item ? item.sequence : undefined;
      if (typeof sequence !== "number") return true;
      if (cursor !== undefined && sequence <= cursor) return false;
      cursor = sequence;
      return true;
    },
  });
}

export interface ResumableShellOptions extends ResumableOptions<ShellStreamItem> {
  /**
   * Also deliver metadata-only snapshots (`resolvedRepositoryIdentityRoots` present): the second
   * frame of T3's initial pair, the frame that opens a resume, and runtime enrichment refreshes.
   */
  deliverRootsCopy?: boolean;
}

/**
 * Whether a shell snapshot item is a metadata-only refresh rather than the whole shell. T3 marks
 * those with `resolvedRepositoryIdentityRoots` and sends them with `threads: []`, a subset of the
 * projects and the server's high-water sequence (upstream `ShellStream.ts`: the initial pair's
 * second frame, the opening frame of an `afterSequence` resume, background enrichment refreshes).
 * The authoritative snapshot never carries the marker.
 */
export function isMetadataOnlySnapshot(item: ShellStreamItem): boolean {
  return item.kind === "snapshot" && item.resolvedRepositoryIdentityRoots !== undefined;
}

export function resumableShellSubscription(o: ResumableShellOptions): Subscription {
  let cursor = o.afterSequence;
  let snapshotSequence: number | undefined;
  // Shell updates are merged per thread over a short window, so their sequences are not
  // strictly increasing across threads; dedupe per entity, and against the last snapshot.
  let seenByEntity = new Map<string, number>();
  return runResumable(o, {
    cursor: () => cursor,
    open: (client, afterSequence, deliver) =>
      client.subscribeShell({
        ...(afterSequence !== undefined ? { afterSequence } : {}),
        ...(o.requestCompletionMarker ? { requestCompletionMarker: true } : {}),
        onItem: deliver,
      }),
    accept(item) {
      if (item.kind === "synchronized") return true;
      if (item.kind === "snapshot") {
        const sequence = item.snapshot.snapshotSequence;
        const holdsState = cursor !== undefined || snapshotSequence !== undefined;
        if (isMetadataOnlySnapshot(item) && holdsState) {
          // Metadata only: it moves neither the cursor nor the dedupe floor. Its sequence is the
          // server's high-water mark, and the events up to it are still to come (a resume replays
          // them right after this frame; a refresh may overtake live items still in flight).
          return o.deliverRootsCopy === true;
        }
        // Drops an unchanged authoritative snapshot (same sequence) after a resume.
        if (sequence === snapshotSequence) return false;
        snapshotSequence = sequence;
        cursor = sequence;
        seenByEntity = new Map();
        return true;
      }
      const sequence = typeof item.sequence === "number" ? item.sequence : undefined;
      if (sequence === undefined) return true;
      if (snapshotSequence !== undefined && sequence <= snapshotSequence) return false;
      const key = entityKey(item);
      const seen = key ? seenByEntity.get(key) : undefined;
      if (seen !== undefined && sequence <= seen) return false;
      if (key === undefined && cursor !== undefined && sequence <= cursor) return false;
      if (key) seenByEntity.set(key, sequence);
      cursor = cursor === undefined ? sequence : Math.max(cursor, sequence);
      return true;
    },
  });
}

function entityKey(item: ShellStreamItem): string | undefined {
  switch (item.kind) {
    case "thread.updated":
      return `thread:${item.thread.id}`;
    case "thread.removed":
      return `thread:${item.threadId}`;
    case "project.updated":
      return `project:${item.project.id}`;
    case "project.removed":
      return `project:${item.projectId}`;
    default:
      return undefined;
  }
}

interface ResumableStrategy<Item> {
  cursor(): number | undefined;
  open(
    client: T3RpcClient,
    afterSequence: number | undefined,
    deliver: (item: Item) => Promise<void>,
  ): Subscription;
  /** Whether to deliver `item`; advances the cursor when it does. */
  accept(item: Item): boolean;
}

/** Failures a new socket may cure; anything else (auth, scope, unknown thread, bad data) is final. */
function isRetryable(error: ConnectorError): boolean {
  return ["unavailable", "connection_lost", "timeout", "cancelled"].includes(error.code);
}

function runResumable<Item>(o: ResumableOptions<Item>, strategy: ResumableStrategy<Item>): Subscription {
  const timers = o.timers ?? systemTimers;
  const maxAttempts = o.maxReconnectAttempts ?? DEFAULT_MAX_RECONNECT_ATTEMPTS;
  const baseDelay = o.reconnectDelayMs ?? DEFAULT_RECONNECT_DELAY_MS;
  let stopped = false;
  let current: Subscription | undefined;
  let wake: (() => void) | undefined;

  const stop = () => {
    if (stopped) return;
    stopped = true;
    o.signal?.removeEventListener("abort", stop);
    current?.close();
    wake?.();
  };

  const run = async (): Promise<void> => {
    let failures = 0;
    while (!stopped) {
      let progressed = false;
      try {
        const client = await o.connect();
        if (stopped) return;
        current = strategy.open(client, strategy.cursor(), async (item) => {
          progressed = true;
          if (!stopped && strategy.accept(item)) await o.onItem(item);
        });
        await current.done;
        return; // the server ended the stream normally
      } catch (thrown) {
        if (stopped) return;
        const error = isConnectorError(thrown)
          ? thrown
          : new ConnectorError("internal", "the subscription failed", { cause: thrown });
        if (!isRetryable(error)) throw error;
        failures = progressed ? 1 : failures + 1;
        if (failures > maxAttempts) {
          throw new ConnectorError(
            "connection_lost",
            `the subscription gave up after ${maxAttempts} reconnect attempts: ${error.message}`,
            { cause: error, details: { attempts: maxAttempts, lastCode: error.code } },
          );
        }
        o.onReconnect?.({ attempt: failures, error, afterSequence: strategy.cursor() });
        await sleep(Math.min(baseDelay * 2 ** (failures - 1), MAX_RECONNECT_DELAY_MS));
      }
    }
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      let timer: TimerHandle | undefined;
      wake = () => {
        timer?.cancel();
        wake = undefined;
        resolve();
      };
      timer = timers.setTimeout(() => wake?.(), ms);
    });

  if (o.signal?.aborted) stopped = true;
  else o.signal?.addEventListener("abort", stop, { once: true });
  const done = run().finally(() => o.signal?.removeEventListener("abort", stop));
  done.catch(() => {});
  return { close: stop, done };
}

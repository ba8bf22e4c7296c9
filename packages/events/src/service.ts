import { type FSWatcher, watch } from "node:fs";
import { join } from "node:path";
import { type Clock, ConnectorError, systemClock } from "@t3-connector/core";
import type { ReadConfig } from "@t3-connector/core/config";
import {
  acquireLockOrRefuse,
  ensurePrivateDirectory,
  type JournalFs,
  type JournalLock,
  nodeJournalFs,
} from "@t3-connector/core/durable";
import { EnvironmentRegistry, READ_SCOPES } from "@t3-connector/core/environments";
import { ShellMirrors } from "@t3-connector/core/mirror";
import { systemTimers, type TimerHandle, type Timers } from "@t3-connector/core/t3";
import { type ApprovalSource, followApprovals } from "./approval-follower.js";
import { DEFAULT_DELIVERY_POLICY, type DeliveryPolicy } from "./backoff.js";
import { Deliverer } from "./delivery.js";
import { createEventFilter, type EventFilters, wantsEnvironment } from "./filters.js";
import { EnvironmentFollower, type FollowerReady } from "./follower.js";
import { OUTBOX_DIRECTORY, Outbox, type OutboxStatus, readOutboxStatus } from "./outbox.js";
import { SeenState } from "./seen-state.js";
import { createSigner } from "./signer.js";

export interface EventsServiceOptions {
  /** The read config: its environments are followed, their read ACLs bound what is emitted. */
  config: ReadConfig;
  hookUrl: string;
  /** The Standard Webhooks secret (`whsec_` + base64). */
  secret: string;
  /** Directory of the outbox and the last-seen state (0700, created when missing). */
  stateDir: string;
  filters?: EventFilters;
  policy?: Partial<DeliveryPolicy>;
  /** Share a host's connections and mirrors (`serve --http`); by default the service makes its own. */
  registry?: EnvironmentRegistry;
  mirrors?: ShellMirrors;
  clock?: Clock;
  timers?: Timers;
  random?: () => number;
  fetch?: typeof fetch;
  fs?: JournalFs;
  log?: (line: string) => void;
  onReady?: (info: FollowerReady) => void;
  /** How often `pending/` is read again besides watching it (default 5 s). */
  rescanIntervalMs?: number;
  /** Delay before following an environment again after it dropped (default 1 s, doubling). */
  reconnectDelayMs?: number;
  /** Delay before a thread whose events could not be recorded, or runs read, is tried again (default 2 s). */
  retryDelayMs?: number;
  /** The gate's approval feed (found through the write config): `approval.*` events (ADR 0051). */
  approvals?: ApprovalSource;
}

export interface EventsService {
  status(): Promise<OutboxStatus>;
  /** Stops following, lets attempts in flight finish and be recorded, releases the state directory. */
  stop(): Promise<void>;
}

/** Refuses what cannot be a webhook URL before anything is opened. */
export function parseHookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConnectorError("invalid_input", `--hook-url "${raw}" is not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ConnectorError("invalid_input", `--hook-url must be http or https, not ${url.protocol}`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new ConnectorError(
      "invalid_input",
      "--hook-url must not carry credentials; the signature authenticates",
    );
  }
  return url;
}

/**
 * Starts following every environment of `config` and delivering its events to `hookUrl`.
 * One service per state directory (it holds the directory's lock until stopped).
 */
export async function startEventsService(options: EventsServiceOptions): Promise<EventsService> {
  const url = parseHookUrl(options.hookUrl);
  const signer = createSigner(options.secret);
  const fs = options.fs ?? nodeJournalFs;
  const clock = options.clock ?? systemClock;
  const timers = options.timers ?? systemTimers;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  if (url.protocol === "http:" && !isLoopbackHostname(url.hostname)) {
    // Signed, so not forgeable, but readable on the way: thread titles and ids travel in it.
    log(
      `events: warning: ${url.origin} is plain http to another machine; events are signed but not encrypted`,
    );
  }
  const policy: DeliveryPolicy = { ...DEFAULT_DELIVERY_POLICY, ...options.policy };
  const { lock, outbox, seen } = await openStateDir(fs, options.stateDir, clock, policy);
  const deliverer = new Deliverer({
    outbox,
    url: url.href,
    signer,
    policy,
    clock,
    timers,
    random: options.random ?? Math.random,
    fetch: options.fetch ?? globalThis.fetch,
    log,
  });
  const pendingWatch = watchPending(options, outbox, () => deliverer.wake(), { timers, log });
  const following = startFollowing(options, {
    seen,
    outbox,
    clock,
    timers,
    log,
    wake: () => deliverer.wake(),
  });
  const approvals =
    options.approvals === undefined
      ? undefined
      : followApprovals(options.approvals, {
          outbox,
          clock,
          timers,
          log,
          wake: () => deliverer.wake(),
          ...(options.filters?.types === undefined ? {} : { types: options.filters.types }),
          ...(options.retryDelayMs === undefined ? {} : { retryDelayMs: options.retryDelayMs }),
        });
  deliverer.wake(); // what a previous run left pending

  let stopping: Promise<void> | undefined;
  return {
    status: () => readOutboxStatus(options.stateDir, fs),
    stop() {
      stopping ??= (async () => {
        pendingWatch.stop();
        await approvals?.stop();
        await following.stopFollowing();
        await deliverer.stop();
        await seen.close();
        await following.closeOwnConnections();
        await lock.release();
      })();
      return stopping;
    },
  };
}

/** Locks the state directory (0700), opens the outbox and the last-seen state, prunes old events. */
async function openStateDir(
  fs: JournalFs,
  stateDir: string,
  clock: Clock,
  policy: DeliveryPolicy,
): Promise<{ lock: JournalLock; outbox: Outbox; seen: SeenState }> {
  await ensurePrivateDirectory(fs, stateDir, "events state directory");
  const lock = await lockStateDir(fs, stateDir, clock);
  try {
    const outbox = await Outbox.open(stateDir, fs, { graceMs: policy.graceMs });
    const seen = await SeenState.open(stateDir, fs);
    await outbox.prune(clock.now(), policy.retentionMs);
    return { lock, outbox, seen };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/**
 * `events retry` (another process) puts files into pending/: watched, and read again now and
 * then, since a watch may be missing or miss a change. Anything new wakes the deliverer.
 */
function watchPending(
  options: EventsServiceOptions,
  outbox: Outbox,
  wake: () => void,
  deps: { timers: Timers; log: (line: string) => void },
): { stop(): void } {
  const rescan = () =>
    void outbox.rescan().then(
      (added) => (added > 0 ? wake() : undefined),
      (error: unknown) =>
        deps.log(`events: reading the outbox failed: ${error instanceof Error ? error.message : error}`),
    );
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(join(options.stateDir, OUTBOX_DIRECTORY, "pending"), { persistent: false }, rescan);
  } catch {
    watcher = undefined; // the periodic rescan still finds retried events
  }
  let rescanTimer: TimerHandle | undefined;
  const scheduleRescan = () => {
    rescanTimer = deps.timers.setTimeout(() => {
      rescan();
      scheduleRescan();
    }, options.rescanIntervalMs ?? 5_000);
  };
  scheduleRescan();
  return {
    stop: () => {
      watcher?.close();
      rescanTimer?.cancel();
    },
  };
}

interface FollowingDeps {
  seen: SeenState;
  outbox: Outbox;
  clock: Clock;
  timers: Timers;
  log: (line: string) => void;
  wake: () => void;
}

/**
 * One follower per environment the filters want, over the host's registry and mirrors when it
 * shares them, else over the service's own (closed when it stops; a host's are left open).
 */
function startFollowing(
  options: EventsServiceOptions,
  deps: FollowingDeps,
): { stopFollowing(): Promise<void>; closeOwnConnections(): Promise<void> } {
  const { clock, log } = deps;
  const filters = options.filters ?? {};
  const registry =
    options.registry ??
    new EnvironmentRegistry({
      environments: options.config.environments,
      requiredScopes: READ_SCOPES,
      clock,
    });
  const mirrors = options.mirrors ?? new ShellMirrors({ log });
  const acl = new Map(
    options.config.environments.map((environment) => [environment.environmentId, environment]),
  );
  const accept = createEventFilter(filters, acl);
  const followers = registry.environments
    .filter((handle) => wantsEnvironment(filters, { alias: handle.alias, id: handle.environmentId }))
    .map(
      (handle) =>
        new EnvironmentFollower(handle, mirrors, {
          seen: deps.seen,
          outbox: deps.outbox,
          clock,
          timers: deps.timers,
          log,
          accept,
          enqueued: deps.wake,
          ...(options.approvals?.inboxOrigin === undefined
            ? {}
            : { inboxOrigin: options.approvals.inboxOrigin }),
          ...(options.onReady ? { onReady: options.onReady } : {}),
          ...(options.reconnectDelayMs === undefined ? {} : { reconnectDelayMs: options.reconnectDelayMs }),
          ...(options.retryDelayMs === undefined ? {} : { retryDelayMs: options.retryDelayMs }),
        }),
    );
  return {
    stopFollowing: async () => {
      if (options.mirrors === undefined) mirrors.close();
      await Promise.all(followers.map((follower) => follower.stop()));
    },
    closeOwnConnections: async () => {
      if (options.registry === undefined) await registry.close();
    },
  };
}

function isLoopbackHostname(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

function lockStateDir(fs: JournalFs, stateDir: string, clock: Clock): Promise<JournalLock> {
  return acquireLockOrRefuse(fs, stateDir, clock, (pid, cause) => {
    return new ConnectorError(
      "journal_unavailable",
      `another \`t3-connector events\` (pid ${String(pid)}) already uses ${stateDir}`,
      { cause, details: { reason: "locked", pid } },
    );
  });
}

/** What a host shares with the events it runs (read-server's `ReadContext` fits). */
export interface EventsHostContext {
  config: ReadConfig;
  registry: EnvironmentRegistry;
  mirrors?: ShellMirrors;
}

/**
 * The events as a host's background service (`serve --http`'s `BackgroundService` seam: a name,
 * `start` once it listens, `stop` before its connections close). It follows the host's own
 * connections and shell mirrors — one subscription per environment for both — and leaves them
 * open when it stops (they are the host's).
 */
export function eventsBackgroundService(
  options: Omit<EventsServiceOptions, "config" | "registry" | "mirrors">,
  host: EventsHostContext,
): { readonly name: "events"; start(): Promise<void>; stop(): Promise<void> } {
  let service: EventsService | undefined;
  return {
    name: "events",
    async start() {
      service ??= await startEventsService({
        ...options,
        config: host.config,
        registry: host.registry,
        ...(host.mirrors === undefined ? {} : { mirrors: host.mirrors }),
      });
    },
    async stop() {
      await service?.stop();
      service = undefined;
    },
  };
}

/**
 * Where a read tool's data comes from. The five reads both servers answer (t3_projetos, t3_threads,
 * t3_atencao, t3_thread, t3_mensagens) build their answers once, here, over this interface: the read
 * server supplies it over its registry and live mirrors (every environment in the caller's ACL),
 * the write bridge over the gate's leased read (one environment of the lease, its projects only).
 */
import type { EnvironmentRef, FanOutResult } from "@t3-connector/core/fanout";
import type { CursorCodec, QueryIdentity, SignatureValue } from "@t3-connector/core/pagination";
import type { HistoryBoundsInput } from "@t3-connector/core/state";
import type { ProjectShell, ThreadProjection, ThreadShell } from "@t3-connector/core/t3";
import type { ShellView } from "./shell-view.js";

/** Which environments a read covered: who answered (with how many items) and who did not. */
export interface ListingEnvelope {
  complete: boolean;
  queriedEnvironments: FanOutResult<unknown>["queriedEnvironments"];
  environmentFailures: FanOutResult<unknown>["environmentFailures"];
  /** Only when the call named one environment. */
  environment?: { alias: string; environmentId: string };
}

/** What a read of the environments in scope answered: one value per environment that answered. */
export interface SweepResult<T> {
  results: Array<{ environment: EnvironmentRef; value: T }>;
  envelope: ListingEnvelope;
}

/** A thread row a read by id may show, with its project row from the same shell. */
export interface VisibleThread {
  readonly thread: ThreadShell;
  readonly project: ProjectShell | undefined;
}

/** A thread's projection and, when it came from the bounded window, the window's history bounds. */
export interface FetchedProjection {
  readonly projection: ThreadProjection;
  /** Null for a full snapshot, which holds the whole history. */
  readonly bounds: HistoryBoundsInput | null;
}

/** Coverage of the sweep that located a thread given without `environment`. */
export interface EnvironmentDiscovery {
  complete: boolean;
  queriedEnvironments: Array<EnvironmentRef & { found: number }>;
  environmentFailures: Array<{ alias: string; environmentId: string; code: string; reason: string }>;
}

/** One thread found by id, and its projection. */
export interface ThreadReadSource {
  readonly environment: EnvironmentRef;
  readonly visible: VisibleThread;
  /** Epoch ms right after the shell answered: the instant states are judged at. */
  readonly observedAt: number;
  /** Only when the thread was located across environments (no `environment` given). */
  readonly discovery?: EnvironmentDiscovery;
  readonly fetched: FetchedProjection;
}

export interface ReadSource {
  /** Signs and checks this process's pagination cursors. */
  readonly cursors: CursorCodec;
  now(): number;
  /**
   * What a paginated call was asked for: the tool, its filters, the environment filter and the
   * environments it set out to read; refuses an environment it cannot read before anything is read.
   */
  listingIdentity(
    tool: string,
    filters: readonly SignatureValue[],
    environment: string | undefined,
  ): QueryIdentity;
  /**
   * Reads the shell of each environment in scope and hands it to `project`, inside that
   * environment's read: what `project` throws is that environment's failure during a sweep, and
   * the call's error when the caller named the environment. `withArchive` adds archived threads;
   * `withSecretRequests` asks the source to fill the secret requests a server's shell rows leave
   * out, where it can (the read server reads the running threads: ADR 0069).
   */
  sweep<T>(
    environment: string | undefined,
    signal: AbortSignal,
    project: (view: ShellView) => T,
    countFound: (value: T) => number,
    options?: { withArchive?: boolean; withSecretRequests?: boolean },
  ): Promise<SweepResult<T>>;
  /** Locates one thread a read by id may show (refusing absent, ambiguous, unanswered) and fetches its projection. */
  readThread(
    environment: string | undefined,
    threadId: string,
    signal: AbortSignal,
  ): Promise<ThreadReadSource>;
}

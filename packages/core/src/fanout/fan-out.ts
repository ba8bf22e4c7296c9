import type { ConnectedEnvironment } from "../environments/connection.js";
import { ConnectorError, isTransportFailure } from "../errors.js";
import { type FanOutDeadlines, realDeadlines } from "./deadlines.js";
import { classifyFailure, type FanOutFailureCode } from "./failure-codes.js";
import { stopOnAbort } from "./stop-on-abort.js";

export const FAN_OUT_CONCURRENCY = 4;
export const PER_ENVIRONMENT_TIMEOUT_MS = 4_000;
export const TOTAL_TIMEOUT_MS = 10_000;

/** What a sweep needs from an environment (an `EnvironmentHandle` in production). */
export interface FanOutEnvironment {
  readonly alias: string;
  readonly environmentId: string;
  connect(options?: { signal?: AbortSignal }): Promise<ConnectedEnvironment>;
  reportFailure(error: unknown): void;
}

/** One read in one environment; it must stop when `signal` aborts. */
export type EnvironmentRead<T> = (environment: ConnectedEnvironment, signal: AbortSignal) => Promise<T>;

export interface AttemptOptions {
  /**
   * True for anything that may change state. Such work is never retried, whatever failed: a
   * lost answer does not prove that nothing happened.
   */
  sideEffects?: boolean;
}

export interface FanOutOptions<T> extends AttemptOptions {
  /** The caller's cancellation: aborts the whole call, which then throws `cancelled`. */
  signal?: AbortSignal;
  concurrency?: number;
  perEnvironmentTimeoutMs?: number;
  totalTimeoutMs?: number;
  /** Where the per-environment and call deadlines come from; default real timers. */
  deadlines?: FanOutDeadlines;
  /** How many items a value holds, for `queriedEnvironments[].found`; default array length, else 1. */
  countFound?: (value: T) => number;
}

export interface EnvironmentRef {
  alias: string;
  environmentId: string;
  /** Server label, null when unknown. */
  name: string | null;
}

export interface FanOutResult<T> {
  /** In environmentId order. */
  results: Array<{ environment: EnvironmentRef; value: T }>;
  /** False when any environment failed: an empty list then proves nothing. */
  complete: boolean;
  /** The environments that answered, in environmentId order. */
  queriedEnvironments: Array<EnvironmentRef & { found: number }>;
  environmentFailures: Array<{
    alias: string;
    environmentId: string;
    code: FanOutFailureCode;
    reason: string;
  }>;
}

const ENVIRONMENT_DEADLINE = Symbol("environment deadline");
const CALL_DEADLINE = Symbol("call deadline");

function cancelled(): ConnectorError {
  return new ConnectorError("cancelled", "the read was cancelled by the caller");
}

function defaultCount(value: unknown): number {
  return Array.isArray(value) ? value.length : 1;
}

/**
 * Connects and reads once; after a transport failure (and only for work without side effects)
 * connects again, which re-verifies and recreates a dead tunnel, and reads a second time.
 */
export async function readWithRetry<T>(
  environment: FanOutEnvironment,
  read: EnvironmentRead<T>,
  signal: AbortSignal,
  options: AttemptOptions = {},
): Promise<{ connection: ConnectedEnvironment; value: T }> {
  const attempt = async () => {
    const connection = await environment.connect({ signal });
    return { connection, value: await read(connection, signal) };
  };
  try {
    return await attempt();
  } catch (error) {
    environment.reportFailure(error);
    if (options.sideEffects === true || signal.aborted || !isTransportFailure(error)) throw error;
  }
  try {
    return await attempt();
  } catch (error) {
    environment.reportFailure(error);
    throw error;
  }
}

type Outcome<T> =
  | { ok: true; connection: ConnectedEnvironment; value: T }
  | { ok: false; code: FanOutFailureCode; reason: string };

/**
 * Runs one read over many environments: a bounded number at a time, each under its own deadline
 * and all under one deadline for the call. Failures become flagged entries, never errors; only the
 * caller's own cancellation is thrown.
 */
export async function fanOut<T>(
  environments: readonly FanOutEnvironment[],
  read: EnvironmentRead<T>,
  options: FanOutOptions<T> = {},
): Promise<FanOutResult<T>> {
  const callerSignal = options.signal;
  if (callerSignal?.aborted) throw cancelled();
  const ordered = [...environments].sort((a, b) =>
    a.environmentId < b.environmentId ? -1 : a.environmentId > b.environmentId ? 1 : 0,
  );
  const concurrency = Math.max(1, options.concurrency ?? FAN_OUT_CONCURRENCY);
  const perEnvironmentMs = options.perEnvironmentTimeoutMs ?? PER_ENVIRONMENT_TIMEOUT_MS;
  const deadlines = options.deadlines ?? realDeadlines;
  const call = deadlines.start(options.totalTimeoutMs ?? TOTAL_TIMEOUT_MS, CALL_DEADLINE, {});
  const callSignal = callerSignal ? AbortSignal.any([callerSignal, call.signal]) : call.signal;
  const outcomes: Array<Outcome<T> | undefined> = new Array(ordered.length);

  const runOne = async (environment: FanOutEnvironment): Promise<Outcome<T>> => {
    const own = deadlines.start(perEnvironmentMs, ENVIRONMENT_DEADLINE, { alias: environment.alias });
    const signal = AbortSignal.any([callSignal, own.signal]);
    try {
      const { connection, value } = await stopOnAbort(
        readWithRetry(environment, read, signal, options),
        signal,
      );
      return { ok: true, connection, value };
    } catch (error) {
      if (callerSignal?.aborted) throw cancelled();
      if (signal.aborted && signal.reason === CALL_DEADLINE)
        return { ok: false, ...classifyFailure(globalTimeout()) };
      if (signal.aborted) return { ok: false, ...classifyFailure(environmentTimeout()) };
      return { ok: false, ...classifyFailure(error) };
    } finally {
      own.clear();
    }
  };

  let next = 0;
  const worker = async () => {
    while (!callSignal.aborted) {
      const index = next++;
      const environment = ordered[index];
      if (environment === undefined) return;
      outcomes[index] = await runOne(environment);
    }
  };

  try {
    const workers = Promise.all(Array.from({ length: Math.min(concurrency, ordered.length) }, worker));
    await (callerSignal ? stopOnAbort(workers, callerSignal) : workers);
  } catch (error) {
    if (callerSignal?.aborted) throw cancelled();
    throw error;
  } finally {
    call.clear();
  }
  return envelope(ordered, outcomes, options.countFound ?? defaultCount);
}

function globalTimeout(): ConnectorError {
  return new ConnectorError("global_timeout", "the call's deadline expired");
}

function environmentTimeout(): ConnectorError {
  return new ConnectorError("timeout", "the environment's deadline expired");
}

function envelope<T>(
  ordered: readonly FanOutEnvironment[],
  outcomes: ReadonlyArray<Outcome<T> | undefined>,
  countFound: (value: T) => number,
): FanOutResult<T> {
  const result: FanOutResult<T> = {
    results: [],
    complete: true,
    queriedEnvironments: [],
    environmentFailures: [],
  };
  ordered.forEach((environment, index) => {
    // An environment the call's deadline never let start is a global timeout too.
    const outcome = outcomes[index] ?? { ok: false, ...classifyFailure(globalTimeout()) };
    const { alias, environmentId } = environment;
    if (outcome.ok) {
      const ref: EnvironmentRef = { alias, environmentId, name: outcome.connection.name };
      result.results.push({ environment: ref, value: outcome.value });
      result.queriedEnvironments.push({ ...ref, found: countFound(outcome.value) });
    } else {
      result.complete = false;
      result.environmentFailures.push({ alias, environmentId, code: outcome.code, reason: outcome.reason });
    }
  });
  return result;
}

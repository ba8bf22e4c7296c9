import { ConnectorError } from "@t3-connector/core";
import type { ProjectAcl } from "@t3-connector/core/config";
import type { ConnectedEnvironment } from "@t3-connector/core/environments";
import { type EnvironmentRef, type FanOutDeadlines, fanOut, readWithRetry } from "@t3-connector/core/fanout";
import type { ListingEnvelope, SweepResult } from "@t3-connector/mcp-tools/read-answers";
import { deadlinesOf, type ReadContext } from "../read-context.js";
import { projectAclOf } from "./project-acl.js";

/** A connected environment together with the projects it may show (decided on each shell read). */
export interface ScopedEnvironment {
  readonly connection: ConnectedEnvironment;
  readonly acl: ProjectAcl;
}

export type ScopedRead<T> = (environment: ScopedEnvironment, signal: AbortSignal) => Promise<T>;

/**
 * The envelope every read returns (which environments answered and which did not), and a scope
 * read's values: the shared read answers' types (mcp-tools' read-answers), one definition.
 */
export type ScopeEnvelope = ListingEnvelope;
export type ScopeResult<T> = SweepResult<T>;

export interface ReadScopeOptions<T> {
  signal: AbortSignal;
  /** How many items a value holds, for `queriedEnvironments[].found`. */
  countFound?: (value: T) => number;
}

/**
 * Runs `read` where the caller asked: in the one named environment (a failure there is the
 * tool's error) or, with no `environment`, in every configured environment through the fan-out
 * (failures become flagged entries). There is no default environment and no fallback.
 */
export async function readScope<T>(
  context: ReadContext,
  environment: string | undefined,
  read: ScopedRead<T>,
  options: ReadScopeOptions<T>,
): Promise<ScopeResult<T>> {
  const scoped: (connection: ConnectedEnvironment, signal: AbortSignal) => Promise<T> = (
    connection,
    signal,
  ) => read({ connection, acl: projectAclOf(context, connection.environmentId) }, signal);

  if (environment === undefined) {
    const result = await fanOut(context.registry.environments, scoped, {
      signal: options.signal,
      concurrency: context.limits.concurrency,
      perEnvironmentTimeoutMs: context.limits.perEnvironmentTimeoutMs,
      totalTimeoutMs: context.limits.totalTimeoutMs,
      deadlines: deadlinesOf(context),
      ...(options.countFound ? { countFound: options.countFound } : {}),
    });
    return {
      results: result.results,
      envelope: {
        complete: result.complete,
        queriedEnvironments: result.queriedEnvironments,
        environmentFailures: result.environmentFailures,
      },
    };
  }

  const handle = context.registry.resolve(environment);
  const value = await withDeadline(environmentDeadline(context, handle.alias), options.signal, (signal) =>
    readWithRetry(handle, scoped, signal),
  );
  const ref: EnvironmentRef = {
    alias: handle.alias,
    environmentId: handle.environmentId,
    name: value.connection.name,
  };
  const found = options.countFound ? options.countFound(value.value) : defaultCount(value.value);
  return {
    results: [{ environment: ref, value: value.value }],
    envelope: {
      complete: true,
      queriedEnvironments: [{ ...ref, found }],
      environmentFailures: [],
      environment: { alias: handle.alias, environmentId: handle.environmentId },
    },
  };
}

function defaultCount(value: unknown): number {
  return Array.isArray(value) ? value.length : 1;
}

/** One environment's deadline: its length and the source that runs it. */
export interface EnvironmentDeadline {
  readonly ms: number;
  readonly alias: string;
  readonly deadlines: FanOutDeadlines;
}

/** The per-environment deadline of `context` for the environment `alias`. */
export function environmentDeadline(context: ReadContext, alias: string): EnvironmentDeadline {
  return { ms: context.limits.perEnvironmentTimeoutMs, alias, deadlines: deadlinesOf(context) };
}

const ENVIRONMENT_DEADLINE = Symbol("environment deadline");

/** Runs `work` under the caller's signal and a deadline; the deadline becomes a typed `timeout`. */
export async function withDeadline<T>(
  { ms, alias, deadlines }: EnvironmentDeadline,
  callerSignal: AbortSignal,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  if (callerSignal.aborted) throw new ConnectorError("cancelled", "the read was cancelled by the caller");
  const deadline = deadlines.start(ms, ENVIRONMENT_DEADLINE, { alias });
  const signal = AbortSignal.any([callerSignal, deadline.signal]);
  try {
    return await new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        reject(
          callerSignal.aborted
            ? new ConnectorError("cancelled", "the read was cancelled by the caller")
            : new ConnectorError("timeout", `the environment did not answer within ${ms} ms`),
        );
      };
      signal.addEventListener("abort", onAbort, { once: true });
      work(signal)
        .then(resolve, reject)
        .finally(() => signal.removeEventListener("abort", onAbort));
    });
  } finally {
    // Disarmed when the answer is settled, even if a stalled `work` never settles itself.
    deadline.clear();
  }
}

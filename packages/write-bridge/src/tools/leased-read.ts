/**
 * What the bridge's leased reads share: one relay call to the gate (which limits the read to the
 * lease's environment and projects and re-checks the lease around it), and the read server's
 * answer shapes built from what the gate returned, so a leased read answers under the read tool's
 * contract (`@t3-connector/mcp-tools/read-contracts`, ADR 0053).
 */
import { ConnectorError } from "@t3-connector/core";
import {
  type CursorCodec,
  createCursorCodec,
  type Page,
  type QueryIdentity,
} from "@t3-connector/core/pagination";
import { type ShellThreadInput, type ThreadSummary, threadSummary } from "@t3-connector/core/state";
import type { BridgeContext } from "../bridge-tool.js";

/** Where the read ran: the environment the gate resolved in the lease. */
export interface LeasedWhere {
  readonly alias: string;
  readonly environmentId: string;
}

export interface LeasedAnswer extends LeasedWhere {
  readonly body: Record<string, unknown>;
}

type LeasedReadKind = "projects" | "threads" | "thread";

/** A read under the write lease reads one environment of the lease: it has to be named. */
export function leasedEnvironment(environment: string | undefined): string {
  if (environment === undefined) {
    throw new ConnectorError(
      "environment_required",
      "a read under a write lease reads one environment of the lease: pass environment (its alias or environmentId)",
    );
  }
  return environment;
}

export async function leasedRead(
  context: BridgeContext,
  input: { leaseId: string; environment?: string | undefined },
  read: LeasedReadKind,
  signal: AbortSignal,
  target: { projectId?: string; threadId?: string; includeArchived?: boolean } = {},
): Promise<LeasedAnswer> {
  const environment = leasedEnvironment(input.environment);
  const answer = await context.relay.call(
    { op: "leased_read", leaseId: input.leaseId, environment, read, ...target },
    signal,
  );
  return {
    alias: String(answer.environment ?? environment),
    environmentId: String(answer.environmentId ?? ""),
    body: answer as Record<string, unknown>,
  };
}

/** The `environment` of an item: the read server's shape (`name` is a server label the gate does not read). */
export const itemEnvironment = (where: LeasedWhere) => ({
  alias: where.alias,
  environmentId: where.environmentId,
  name: null,
});

/** The call's `environment`. */
export const calledEnvironment = (where: LeasedWhere) => ({
  alias: where.alias,
  environmentId: where.environmentId,
});

/** The scope envelope of a read of one environment that answered. */
export function oneEnvironmentEnvelope(where: LeasedWhere, found: number) {
  return {
    complete: true,
    queriedEnvironments: [{ ...itemEnvironment(where), found }],
    environmentFailures: [],
  };
}

export function rowsOf(value: unknown): ShellThreadInput[] {
  return Array.isArray(value) ? (value as ShellThreadInput[]) : [];
}

export type LeasedThreadItem = Omit<ThreadSummary, "threadId" | "title"> & {
  threadId: string | null;
  title: string | null;
  environment: ReturnType<typeof itemEnvironment>;
  archived?: true;
};

/** A listed thread as the read server lists it, `archived` only on an archived row. */
export function threadItem(where: LeasedWhere, row: ShellThreadInput, now: number): LeasedThreadItem {
  const { threadId, title, ...rest } = threadSummary(row, { now });
  return {
    threadId,
    title,
    environment: itemEnvironment(where),
    ...rest,
    ...(row.archivedAt ? { archived: true as const } : {}),
  };
}

/** One cursor key per bridge process, as the read server has one per process. */
let codec: CursorCodec | undefined;
export function leasedCursors(): CursorCodec {
  codec ??= createCursorCodec();
  return codec;
}

/** A listing's query identity: the tool, its filters and the one environment it read. */
export function leasedIdentity(tool: string, filters: QueryIdentity["filters"], where: LeasedWhere) {
  return {
    tool,
    filters,
    environmentFilter: where.environmentId,
    selectedEnvironmentIds: [where.environmentId],
    answeredEnvironmentIds: [where.environmentId],
  };
}

/** The page fields in the read server's answer order. */
export function pageFields<T>(page: Page<T>) {
  return {
    total: page.total,
    returned: page.returned,
    truncated: page.truncated,
    ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
    ...(page.changedSinceStart === undefined ? {} : { changedSinceStart: page.changedSinceStart }),
  };
}

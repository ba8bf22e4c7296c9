/**
 * The bridge's `ReadSource` (mcp-tools' read-answers): one environment of the lease, read through
 * the gate, which limits the read to the lease's environment and projects and re-checks the lease
 * around it. The read server's answers (t3_projetos, t3_threads, t3_atencao, t3_thread,
 * t3_mensagens) are built over it unchanged; only where the rows come from differs.
 */
import { ConnectorError } from "@t3-connector/core";
import { type CursorCodec, createCursorCodec } from "@t3-connector/core/pagination";
import type { HistoryBoundsInput } from "@t3-connector/core/state";
import type { ProjectShell, ShellSnapshot, ThreadProjection, ThreadShell } from "@t3-connector/core/t3";
import {
  type ReadSource,
  type ShellView,
  withSecretsFromThreads,
} from "@t3-connector/mcp-tools/read-answers";
import type { BridgeContext } from "../bridge-tool.js";

type LeasedReadKind = "threads" | "thread";

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

interface LeasedAnswer {
  readonly environment: { alias: string; environmentId: string; name: null };
  readonly body: Record<string, unknown>;
}

async function leasedRead(
  context: BridgeContext,
  leaseId: string,
  environment: string,
  read: LeasedReadKind,
  signal: AbortSignal,
  target: { threadId?: string; includeArchived?: boolean } = {},
): Promise<LeasedAnswer> {
  const answer = await context.relay.call(
    { op: "leased_read", leaseId, environment, read, ...target },
    signal,
  );
  return {
    // `name` is a server label the gate does not read.
    environment: {
      alias: String(answer.environment ?? environment),
      environmentId: String(answer.environmentId ?? ""),
      name: null,
    },
    body: answer as Record<string, unknown>,
  };
}

const listOf = <T>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : []);

/** A project row as the gate answers it (`workspaceRoot` null when unknown) in the shell's shape. */
function projectShell(row: Record<string, unknown>): ProjectShell {
  const { workspaceRoot, ...rest } = row;
  return { ...rest, ...(typeof workspaceRoot === "string" ? { workspaceRoot } : {}) } as ProjectShell;
}

/**
 * The lease's part of one environment's shell, as the read server's listings read a shell: the
 * projects and threads the gate let through are exactly what the caller may see.
 */
function leasedView(answer: LeasedAnswer, readAt: number): ShellView {
  const projects = listOf<Record<string, unknown>>(answer.body.projects).map(projectShell);
  const rows = listOf<ThreadShell>(answer.body.threads);
  const shell = {
    snapshotSequence: 0,
    projects,
    threads: rows.filter((row) => !row.archivedAt),
    archivedThreads: rows.filter((row) => row.archivedAt),
  } as ShellSnapshot;
  return {
    environment: answer.environment,
    shell,
    allowedProjects: new Set([...projects.map((project) => project.id), ...rows.map((row) => row.projectId)]),
    readAt: new Date(readAt).toISOString(),
    source: "http",
  };
}

/** The projection and history bounds of a leased read of one thread. */
function threadDetail(answer: LeasedAnswer): HistoryBoundsInput & { projection: ThreadProjection } {
  const { projection, ...bounds } = (answer.body.detail ?? {}) as HistoryBoundsInput & {
    projection?: ThreadProjection;
  };
  return { ...bounds, projection: (projection ?? {}) as ThreadProjection };
}

const threadProjection = (answer: LeasedAnswer): ThreadProjection => threadDetail(answer).projection;

/** One cursor key per bridge process, as the read server has one per process. */
let codec: CursorCodec | undefined;
function leasedCursors(): CursorCodec {
  codec ??= createCursorCodec();
  return codec;
}

export function leasedReadSource(context: BridgeContext, leaseId: string): ReadSource {
  return {
    cursors: leasedCursors(),
    now: () => context.now(),
    listingIdentity(tool, filters, environment) {
      // The lease's environment as the caller named it: the gate resolves it when the read runs.
      const named = leasedEnvironment(environment);
      return { tool, filters, environmentFilter: named, selectedEnvironmentIds: [named] };
    },
    async sweep(environment, signal, project, countFound, options = {}) {
      const named = leasedEnvironment(environment);
      const answer = await leasedRead(
        context,
        leaseId,
        named,
        "threads",
        signal,
        // Archived threads are not in the shell: the gate reads them from their own snapshot.
        options.withArchive ? { includeArchived: true } : {},
      );
      const view = leasedView(answer, context.now());
      // Rows that name no secret request: the running threads are read as the read server reads
      // them (ADR 0069), each through the gate's leased read of one thread.
      const shell = options.withSecretRequests
        ? await withSecretsFromThreads(
            view.shell,
            async (threadId, readSignal) =>
              threadProjection(await leasedRead(context, leaseId, named, "thread", readSignal, { threadId })),
            signal,
          )
        : view.shell;
      const value = project(shell === view.shell ? view : { ...view, shell });
      const { alias, environmentId } = answer.environment;
      return {
        results: [{ environment: answer.environment, value }],
        envelope: {
          environment: { alias, environmentId },
          complete: true,
          queriedEnvironments: [{ ...answer.environment, found: countFound(value) }],
          environmentFailures: [],
        },
      };
    },
    async readThread(environment, threadId, signal) {
      const answer = await leasedRead(context, leaseId, leasedEnvironment(environment), "thread", signal, {
        threadId,
      });
      const { projection, ...bounds } = threadDetail(answer);
      const project = answer.body.project;
      return {
        environment: answer.environment,
        visible: {
          thread: answer.body.thread as ThreadShell,
          project:
            project === null || typeof project !== "object"
              ? undefined
              : projectShell(project as Record<string, unknown>),
        },
        observedAt: context.now(),
        fetched: { projection, bounds },
      };
    },
  };
}

/**
 * The checks between the reservation and the send, all on fresh reads:
 * referenced threads exist, the catalogue's local guards (run in flight, pending request, request
 * id, workspace path inside the approved roots), the chosen or the thread's provider (ready, listing
 * the model) and the model selection against a `server.getConfig` read now, and the workspace path verified where the environment runs. The first failure is
 * returned as a typed refusal; nothing has been sent.
 */

import { ConnectorError } from "@t3-connector/core";
import type { RootFileSystem, Transport } from "@t3-connector/core/config";
import type { ConnectedEnvironment } from "@t3-connector/core/environments";
import {
  type AnyActionDefinition,
  checkConfigGuards,
  checkLocalGuards,
  valueAtPath,
} from "../actions/index.js";
import { type FreshThreads, threadStateView } from "./fresh-shell.js";
import { projectRefusal } from "./project-checks.js";
import type { WorkspaceVerifier } from "./types.js";

export interface PreflightContext {
  readonly entry: AnyActionDefinition;
  readonly input: unknown;
  readonly operationId: string;
  readonly fresh: FreshThreads;
  readonly approvedWorkspaceRoots: readonly string[];
  readonly environment: ConnectedEnvironment;
  readonly transport: Transport;
  readonly verifyWorkspace: WorkspaceVerifier;
  /** The environment's allowed project folders (`projectRoots`; none: no project folder allowed). */
  readonly projectRoots: readonly string[];
  readonly rootFileSystem?: RootFileSystem;
  /** A forced delete's thread count as the approval named it (the lease's bound write). */
  readonly boundThreadCount?: number;
}

export async function runPreflight(context: PreflightContext): Promise<ConnectorError | null> {
  const { entry, input, fresh } = context;
  const missing = fresh.missing[0];
  if (missing !== undefined) {
    return new ConnectorError("thread_not_found", `thread ${missing} does not exist (or was deleted)`, {
      details: { reason: "thread_not_found", threadId: missing },
    });
  }
  const missingProject = entry.targets(input).projectIds.find((id) => !fresh.liveProjectIds.has(id));
  if (missingProject !== undefined) {
    return new ConnectorError("not_found", `project ${missingProject} does not exist (or was deleted)`, {
      details: { reason: "project_not_found", projectId: missingProject },
    });
  }
  const local = checkLocalGuards(entry.guards, input, {
    operationId: context.operationId,
    thread: (threadId) => {
      const thread = fresh.found.get(threadId);
      return thread === undefined ? undefined : threadStateView(thread);
    },
    approvedWorkspaceRoots: context.approvedWorkspaceRoots,
  });
  if (local !== null) return local;
  // The chosen provider (a launch) or the thread's own (a message): offered, ready, listing the model.
  const provider = await checkConfigGuards(
    entry.guards,
    input,
    (threadId) => fresh.found.get(threadId)?.modelSelection,
    () => readConfig(context.environment),
  );
  if (provider !== null) return provider;
  for (const guard of entry.guards) {
    if (guard.kind === "workspace_root_confined" || guard.kind === "project_empty_unless_forced") {
      const refusal = await projectRefusal([guard], context);
      if (refusal !== null) return refusal;
    }
    if (guard.kind === "workspace_path_approved") {
      const path = valueAtPath(input, guard.path);
      if (path === undefined || path === null) continue;
      const refusal = await verifyWorkspacePath(context, String(path), guard.reasons.unverified);
      if (refusal !== null) return refusal;
    }
  }
  return null;
}

/** A config that cannot be read is `model_capabilities_unavailable`, decided by the catalogue. */
async function readConfig(environment: ConnectedEnvironment): Promise<unknown> {
  try {
    const rpc = await environment.rpc();
    return await rpc.getConfig();
  } catch {
    return undefined;
  }
}

async function verifyWorkspacePath(
  context: PreflightContext,
  path: string,
  reason: string,
): Promise<ConnectorError | null> {
  const canonical = await context.verifyWorkspace(
    { environment: context.environment, transport: context.transport },
    path,
  );
  if (canonical !== null && context.approvedWorkspaceRoots.includes(canonical)) return null;
  return new ConnectorError(
    "scope_denied",
    canonical === null
      ? `workspace path ${path} could not be verified where the environment runs`
      : `workspace path ${path} resolves to ${canonical}, which is not an approved workspace root`,
    { details: { reason, path } },
  );
}

/**
 * One environment judged as the send would judge it there (ADR 0075): the send's parse, reads,
 * lease verdict over the same facts and guards, each refusal collected in the send's order.
 * Nothing is sent, reserved or journaled. A project or thread the default grant does not list is
 * answered as a missing one, as reads answer it.
 */
import { ConnectorError, isConnectorError } from "@t3-connector/core";
import type { ConnectedEnvironment, EnvironmentHandle } from "@t3-connector/core/environments";
import {
  type AnyActionDefinition,
  approvedWorkspaceRoots,
  drivenThreadMode,
  type EnvironmentGrant,
  findGrant,
  getAction,
  type PreparedAction,
  prepareAction,
  withOmittedRuntimeMode,
} from "../actions/index.js";
import { refuseUnkeptField, refuseUnsupportedAction } from "../capabilities/index.js";
import { journalKey } from "../journal/key.js";
import { type DuplicateFront, duplicateFront } from "./duplicate-front.js";
import { type FreshThreads, projectsOf, readFreshThreads } from "./fresh-shell.js";
import { leaseRequestOf } from "./lease-request.js";
import { runPreflight } from "./preflight.js";
import { scopeVerdict } from "./scope-verdict.js";
import type {
  EnvironmentVerdict,
  Judged,
  PreflightReason,
  WouldPassDeps,
  WouldPassRequest,
} from "./would-pass-types.js";

const NOT_A_LAUNCH: DuplicateFront = Object.freeze({ checked: true, threads: [] });

export function prepare(request: WouldPassRequest, key: string): PreparedAction {
  const prepared = prepareAction(request.action, request.input, key);
  // A launch that names no mode runs at the lease's ceiling (the send fills it the same way).
  return prepared.runtimeModeOmitted ? withOmittedRuntimeMode(prepared, request.scope.runtimeMode) : prepared;
}

/** What one environment's judgement carries from step to step. */
interface Judging {
  readonly entry: AnyActionDefinition;
  readonly handle: EnvironmentHandle;
  readonly environmentId: string;
  readonly destination: string;
  readonly operationId: string;
  readonly prepared: PreparedAction;
  readonly grant: EnvironmentGrant | undefined;
  /** The projects the default grant lists here: the client's projects. */
  readonly granted: ReadonlySet<string>;
}

/** One environment, judged as the send would judge it there; nothing is sent or recorded. */
export async function judge(
  deps: WouldPassDeps,
  request: WouldPassRequest,
  handle: EnvironmentHandle,
): Promise<Judged> {
  const entry = getAction(request.action);
  const environmentId = handle.environmentId;
  const destination = `t3://${environmentId}`;
  const operationId = request.operationId ?? clientRequestIdOf(request.input) ?? "preflight";
  const prepared = prepare(
    request,
    journalKey({ environmentId, destination, caller: "preflight", operationId }),
  );
  const grant = findGrant(request.scope, environmentId, destination);
  const granted = new Set(grant?.projects.map((project) => project.id) ?? []);
  const j: Judging = { entry, handle, environmentId, destination, operationId, prepared, grant, granted };
  const verdictOf = (reasons: PreflightReason[]): EnvironmentVerdict => ({
    environment: handle.alias,
    environmentId,
    wouldPass: reasons.length === 0,
    reasons,
  });
  const outsideProject = entry
    .targets(prepared.input)
    .projectIds.find((projectId) => !granted.has(projectId));
  if (outsideProject !== undefined) {
    return { verdict: verdictOf([]), outside: projectNotFound(outsideProject), duplicates: NOT_A_LAUNCH };
  }
  const read = await readTargets(deps, j);
  if ("reason" in read) return { verdict: verdictOf([read.reason]), duplicates: NOT_A_LAUNCH };
  const foreign = [...read.fresh.found.values()].find((thread) => !granted.has(thread.projectId));
  const missing = read.fresh.missing[0] ?? foreign?.id;
  // A thread of another project is indistinguishable from a missing one, as in every read.
  if (missing !== undefined)
    return { verdict: verdictOf([]), outside: threadNotFound(missing), duplicates: NOT_A_LAUNCH };
  const reasons = await sendRefusals(deps, request, j, read);
  const duplicates =
    entry.action === "thread.launch" ? await duplicateFront(read.environment, prepared.input) : NOT_A_LAUNCH;
  return { verdict: verdictOf(reasons), duplicates };
}

interface ReadTargets {
  readonly environment: ConnectedEnvironment;
  readonly fresh: FreshThreads;
}

/** The send's steps before its lease check: connect, command support, kept fields, fresh reads. */
async function readTargets(
  deps: WouldPassDeps,
  j: Judging,
): Promise<ReadTargets | { reason: PreflightReason }> {
  try {
    const environment = await j.handle.connect();
    if (deps.commandSupport !== undefined)
      await refuseUnsupportedAction(deps.commandSupport, environment, j.entry.action);
    refuseUnkeptField(environment, j.entry.action, j.prepared.input);
    const targets = j.entry.targets(j.prepared.input);
    return { environment, fresh: await readFreshThreads(environment, targets.threadIds, targets.projectIds) };
  } catch (error) {
    return { reason: reasonOf(error) };
  }
}

/** The lease's verdict over the send's facts, then the send's guards: each refusal, in that order. */
async function sendRefusals(
  deps: WouldPassDeps,
  request: WouldPassRequest,
  j: Judging,
  { environment, fresh }: ReadTargets,
): Promise<PreflightReason[]> {
  const { entry, prepared } = j;
  const reasons: PreflightReason[] = [];
  const projectIds = projectsOf(fresh, entry.targets(prepared.input).projectIds);
  const driven = drivenThreadMode(entry.action, prepared.input, fresh.found.values());
  const lease = scopeVerdict(request.scope, leaseRequestOf(j, "scope", projectIds, driven));
  if (!lease.ok) reasons.push({ code: lease.code, reason: lease.code, message: lease.message });
  const roots = lease.ok
    ? lease.approvedWorkspaceRoots
    : j.grant === undefined
      ? []
      : approvedWorkspaceRoots(j.grant, projectIds);
  // A guard whose read failed is a reason here; the send would refuse (or fail) there too.
  const guard = await runPreflight({
    entry,
    input: prepared.input,
    operationId: j.operationId,
    fresh,
    approvedWorkspaceRoots: roots,
    environment,
    transport: j.handle.transport,
    verifyWorkspace: deps.verifyWorkspace,
    projectRoots: j.handle.projectRoots,
  }).catch((error: unknown) => error);
  if (guard !== null) reasons.push(reasonOf(guard));
  return reasons;
}

function threadNotFound(threadId: string): ConnectorError {
  return new ConnectorError("thread_not_found", `thread ${threadId} does not exist (or was deleted)`, {
    details: { reason: "thread_not_found", threadId },
  });
}

function clientRequestIdOf(input: unknown): string | undefined {
  const value = (input as { clientRequestId?: unknown } | null)?.clientRequestId;
  return typeof value === "string" && value !== "" ? value : undefined;
}

function projectNotFound(projectId: string): ConnectorError {
  return new ConnectorError("not_found", `project ${projectId} does not exist (or was deleted)`, {
    details: { reason: "project_not_found", projectId },
  });
}

function reasonOf(error: unknown): PreflightReason {
  if (!isConnectorError(error)) {
    return { code: "internal", reason: "internal", message: "the environment could not be judged" };
  }
  const reason = error.details?.reason;
  return {
    code: error.code,
    reason: typeof reason === "string" ? reason : error.code,
    message: error.message,
  };
}

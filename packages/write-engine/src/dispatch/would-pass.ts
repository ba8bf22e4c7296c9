/**
 * `t3_preflight` (ADR 0075): would a launch or a message pass now, under the lease the person's
 * default grant would give? It runs the send's own steps, in the send's order and with the send's
 * functions — the strict parse (`prepareAction`), command support, the fresh reads
 * (`readFreshThreads`), the lease's verdict over the same facts (`leaseRequestOf`, `scopeVerdict`)
 * and the guards (`runPreflight`) — but collects what they refuse instead of stopping, and sends,
 * reserves and journals nothing. A launch is also compared with the project's active threads (the
 * duplicate front: a warning, never a refusal) and, when it names no environment or its own would
 * not pass, another environment where it would is recommended.
 */
import { ConnectorError, isConnectorError } from "@t3-connector/core";
import type {
  ConnectedEnvironment,
  EnvironmentHandle,
  EnvironmentRegistry,
} from "@t3-connector/core/environments";
import {
  type AnyActionDefinition,
  approvedWorkspaceRoots,
  drivenThreadMode,
  type EnvironmentGrant,
  findGrant,
  getAction,
  type LeaseScope,
  type PreflightAction,
  type PreparedAction,
  prepareAction,
  type RuntimeMode,
  withOmittedRuntimeMode,
} from "../actions/index.js";
import {
  type CommandSupportCache,
  refuseUnkeptField,
  refuseUnsupportedAction,
} from "../capabilities/index.js";
import { journalKey } from "../journal/key.js";
import { type DuplicateFront, duplicateFront } from "./duplicate-front.js";
import { type FreshThreads, projectsOf, readFreshThreads } from "./fresh-shell.js";
import { leaseRequestOf } from "./lease-request.js";
import { runPreflight } from "./preflight.js";
import { scopeVerdict } from "./scope-verdict.js";
import type { WorkspaceVerifier } from "./types.js";

export interface WouldPassRequest {
  readonly action: PreflightAction;
  /** Required for a message; a launch without one is judged on every environment. */
  readonly environment?: string;
  /** The send's `operationId` (a message's `clientRequestId` must equal it); default: that id. */
  readonly operationId?: string;
  readonly input: unknown;
  /** The scope the person's default grant would give now (the gate's approval desk, nothing proposed). */
  readonly scope: LeaseScope;
}

/** One refusal the send would give, with its code and the reason the details would carry. */
export interface PreflightReason {
  readonly code: string;
  readonly reason: string;
  readonly message: string;
}

export interface EnvironmentVerdict {
  readonly environment: string;
  readonly environmentId: string;
  readonly wouldPass: boolean;
  readonly reasons: readonly PreflightReason[];
}

export interface WouldPassAnswer {
  readonly action: PreflightAction;
  /** The environment judged: the one named, else the recommended one, else null. */
  readonly environment: string | null;
  readonly wouldPass: boolean;
  /** In one line: "would pass", or "would not pass: " and each code (with its reason when they differ). */
  readonly summary: string;
  readonly reasons: readonly PreflightReason[];
  /** The default grant's ceiling the runtime mode was judged against. */
  readonly ceiling: RuntimeMode;
  /** A launch only: active threads of the project on the same branch, worktree or title (a warning). */
  readonly duplicates: DuplicateFront;
  readonly recommendation: { readonly environment: string; readonly reason: string } | null;
  /** Every environment judged, in environmentId order (a launch without one named, or refused). */
  readonly considered: readonly EnvironmentVerdict[];
}

export interface WouldPassDeps {
  readonly registry: EnvironmentRegistry;
  readonly verifyWorkspace: WorkspaceVerifier;
  readonly commandSupport?: CommandSupportCache;
}

const NOT_A_LAUNCH: DuplicateFront = Object.freeze({ checked: true, threads: [] });

/** What judging one environment found: its reasons, or that the target is not the client's. */
interface Judged {
  readonly verdict: EnvironmentVerdict;
  /** A project or thread outside the default grant (or missing): answered as a read answers it. */
  readonly outside?: ConnectorError;
  readonly duplicates: DuplicateFront;
}

export async function wouldPass(deps: WouldPassDeps, request: WouldPassRequest): Promise<WouldPassAnswer> {
  const entry = getAction(request.action);
  const ceiling = request.scope.runtimeMode;
  if (request.action === "thread.send" || request.environment !== undefined) {
    // As the send: the environment, then the strict parse, before anything is read.
    const handle = deps.registry.resolve(request.environment);
    prepare(request, "preflight-parse");
    const named = await judge(deps, request, handle);
    if (named.outside !== undefined) throw named.outside;
    const others =
      named.verdict.wouldPass || entry.action !== "thread.launch"
        ? []
        : await judgeAll(deps, request, (other) => other.environmentId !== handle.environmentId);
    return answer(request, named, others, ceiling);
  }
  prepare(request, "preflight-parse");
  const all = await judgeAll(deps, request, () => true);
  const usable = all.filter((judged) => judged.outside === undefined);
  const first = all[0];
  if (usable.length === 0 && first?.outside !== undefined) throw first.outside;
  const chosen = usable.find((judged) => judged.verdict.wouldPass) ?? usable[0];
  if (chosen === undefined) throw new ConnectorError("environment_required", "no environment is configured");
  return answer(request, chosen, usable, ceiling);
}

function answer(
  request: WouldPassRequest,
  judged: Judged,
  others: readonly Judged[],
  ceiling: RuntimeMode,
): WouldPassAnswer {
  const passing = judged.verdict.wouldPass
    ? judged
    : others.find((other) => other.outside === undefined && other.verdict.wouldPass);
  const recommend = request.action === "thread.launch" && passing !== undefined;
  const considered = [judged, ...others.filter((other) => other !== judged && other.outside === undefined)];
  return {
    action: request.action,
    environment: judged.verdict.environment,
    wouldPass: judged.verdict.wouldPass,
    summary: summaryOf(judged.verdict),
    reasons: judged.verdict.reasons,
    ceiling,
    duplicates: judged.duplicates,
    recommendation: recommend
      ? { environment: passing.verdict.environment, reason: whyPassing(request, passing, ceiling) }
      : null,
    considered: considered.length > 1 ? considered.map((item) => item.verdict) : [],
  };
}

function summaryOf(verdict: EnvironmentVerdict): string {
  if (verdict.wouldPass) return "would pass";
  const codes = verdict.reasons.map((item) =>
    item.reason === item.code ? item.code : `${item.code} (${item.reason})`,
  );
  return `would not pass: ${codes.join(", ")}`;
}

function whyPassing(request: WouldPassRequest, judged: Judged, ceiling: RuntimeMode): string {
  const selection = (request.input as { modelSelection?: { instanceId?: string; model?: string } })
    .modelSelection;
  return (
    `provider ${selection?.instanceId} is ready there and lists ${selection?.model}, the runtime mode is within ` +
    `the default ceiling ${ceiling}, and every guard the send runs passes on ${judged.verdict.environment}`
  );
}

async function judgeAll(
  deps: WouldPassDeps,
  request: WouldPassRequest,
  include: (handle: EnvironmentHandle) => boolean,
): Promise<Judged[]> {
  const handles = deps.registry.inEnvironmentIdOrder().filter(include);
  return Promise.all(handles.map((handle) => judge(deps, request, handle)));
}

function prepare(request: WouldPassRequest, key: string): PreparedAction {
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
async function judge(
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

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
  approvedWorkspaceRoots,
  drivenThreadMode,
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
  const reasons: PreflightReason[] = [];
  const verdictOf = (): EnvironmentVerdict => ({
    environment: handle.alias,
    environmentId,
    wouldPass: reasons.length === 0,
    reasons,
  });
  const prepared = prepare(
    request,
    journalKey({ environmentId, destination, caller: "preflight", operationId }),
  );
  const targets = entry.targets(prepared.input);
  const grant = findGrant(request.scope, environmentId, destination);
  const granted = new Set(grant?.projects.map((project) => project.id) ?? []);
  const outsideProject = targets.projectIds.find((projectId) => !granted.has(projectId));
  if (outsideProject !== undefined) {
    return { verdict: verdictOf(), outside: projectNotFound(outsideProject), duplicates: NOT_A_LAUNCH };
  }
  let environment: ConnectedEnvironment;
  let fresh: FreshThreads;
  try {
    environment = await handle.connect();
    if (deps.commandSupport !== undefined)
      await refuseUnsupportedAction(deps.commandSupport, environment, entry.action);
    refuseUnkeptField(environment, entry.action, prepared.input);
    fresh = await readFreshThreads(environment, targets.threadIds, targets.projectIds);
  } catch (error) {
    reasons.push(reasonOf(error));
    return { verdict: verdictOf(), duplicates: NOT_A_LAUNCH };
  }
  const foreign = [...fresh.found.values()].find((thread) => !granted.has(thread.projectId));
  const missing = fresh.missing[0] ?? foreign?.id;
  if (missing !== undefined) {
    // A thread of another project is indistinguishable from a missing one, as in every read.
    const error = new ConnectorError(
      "thread_not_found",
      `thread ${missing} does not exist (or was deleted)`,
      {
        details: { reason: "thread_not_found", threadId: missing },
      },
    );
    return { verdict: verdictOf(), outside: error, duplicates: NOT_A_LAUNCH };
  }
  const projectIds = projectsOf(fresh, targets.projectIds);
  const facts = { entry, environmentId, destination, prepared };
  const lease = scopeVerdict(
    request.scope,
    leaseRequestOf(
      facts,
      "scope",
      projectIds,
      drivenThreadMode(entry.action, prepared.input, fresh.found.values()),
    ),
  );
  if (!lease.ok) reasons.push({ code: lease.code, reason: lease.code, message: lease.message });
  const guard = await runPreflight({
    entry,
    input: prepared.input,
    operationId,
    fresh,
    approvedWorkspaceRoots: lease.ok
      ? lease.approvedWorkspaceRoots
      : grant === undefined
        ? []
        : approvedWorkspaceRoots(grant, projectIds),
    environment,
    transport: handle.transport,
    verifyWorkspace: deps.verifyWorkspace,
    projectRoots: handle.projectRoots,
  });
  if (guard !== null) reasons.push(reasonOf(guard));
  const duplicates =
    entry.action === "thread.launch" ? await duplicateFront(environment, prepared.input) : NOT_A_LAUNCH;
  return { verdict: verdictOf(), duplicates };
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

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
import { ConnectorError } from "@t3-connector/core";
import type { EnvironmentHandle } from "@t3-connector/core/environments";
import { getAction, type RuntimeMode } from "../actions/index.js";
import { judge, prepare } from "./judge-environment.js";
import type {
  EnvironmentVerdict,
  Judged,
  WouldPassAnswer,
  WouldPassDeps,
  WouldPassRequest,
} from "./would-pass-types.js";

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

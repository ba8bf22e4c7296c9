/**
 * `create`: a new thread through `orchestration.launchThread`, its id derived from the
 * clientRequestId. A repeat finds the derived thread already there and sends nothing
 * (`created: false`). The project is an id, a workspace root or a unique title; the selection
 * (effort included) is checked against `server.getConfig` before anything is sent.
 */
import { ConnectorError } from "@t3-connector/core";
import type { ConnectedEnvironment } from "@t3-connector/core/environments";
import { resolveNow } from "@t3-connector/core/state";
import type { ProjectShell, ShellSnapshot } from "@t3-connector/core/t3";
import { getAction, type ModelSelection, prepareAction } from "@t3-connector/write-engine/actions";
import { type ConfirmedThread, confirmedThreads, sendPrepared } from "./act.js";
import type { OpsEnvironments } from "./environments.js";
import { DEFAULT_NAMESPACE, opsOperationKey } from "./operation-key.js";
import { liveThreads, preflight } from "./preflight.js";
import { opsCeiling, refuseAboveOpsCeiling } from "./runtime-ceiling.js";

export interface CreateRequest {
  /** A projectId, a workspace root or a unique project title. */
  project: string;
  title: string;
  instance: string;
  model: string;
  /** Mapped to the model's `reasoningEffort` option, else its `effort` option. */
  effort?: string;
  options?: { id: string; value: string | boolean }[];
  runtimeMode?: string;
  /** The first message; omitted: the thread starts empty. */
  brief?: string;
  clientRequestId: string;
  namespace?: string;
}

export interface CreateResult {
  created: boolean;
  environment: { alias: string; environmentId: string };
  threadId: string;
  projectId: string;
  commandId: string;
  clientRequestId: string;
  /** The receipt of the launch; null on a repeat (nothing was sent). */
  result: Record<string, unknown> | null;
  confirmation: ConfirmedThread;
  /** The mode the thread's agent runs in: the one asked for, else ops' ceiling (ADR 0037). */
  runtimeMode: string;
}

export function resolveProject(shell: ShellSnapshot, reference: string): ProjectShell {
  const projects = shell.projects.filter((project) => !project.deletedAt);
  const byId = projects.find((project) => project.id === reference);
  if (byId !== undefined) return byId;
  const byRoot = projects.filter((project) => project.workspaceRoot === reference);
  const byTitle = byRoot.length > 0 ? byRoot : projects.filter((project) => project.title === reference);
  const [first, ...rest] = byTitle;
  if (first !== undefined && rest.length === 0) return first;
  if (first === undefined) {
    throw new ConnectorError("not_found", `no project has the id, workspace root or title "${reference}"`, {
      details: { reason: "project_not_found", project: reference },
    });
  }
  const candidates = byTitle.map((p) => ({
    projectId: p.id,
    title: p.title,
    workspaceRoot: p.workspaceRoot ?? null,
  }));
  throw new ConnectorError(
    "invalid_input",
    `project "${reference}" is ambiguous: ${candidates.map((c) => `${c.projectId} (${c.workspaceRoot ?? "no root"})`).join(", ")}; name it by id or workspace root`,
    { details: { reason: "ambiguous_project", candidates } },
  );
}

/** Finds which option of the model carries the effort (reasoningEffort first, as core/state reads it). */
export async function effortOption(
  connection: ConnectedEnvironment,
  instance: string,
  model: string,
  effort: string,
): Promise<{ id: string; value: string }> {
  const config = (await (await connection.rpc()).getConfig()) as { providers?: unknown };
  const providers = Array.isArray(config.providers) ? config.providers : [];
  const provider = providers.find((p) => (p as { instanceId?: unknown }).instanceId === instance) as
    | { models?: { slug?: string; capabilities?: { optionDescriptors?: { id?: string }[] } | null }[] }
    | undefined;
  const descriptors = provider?.models?.find((m) => m.slug === model)?.capabilities?.optionDescriptors ?? [];
  const ids = descriptors.map((d) => d.id);
  const id = ["reasoningEffort", "effort"].find((candidate) => ids.includes(candidate));
  if (id === undefined) {
    throw new ConnectorError("guard_refused", `model ${model} of ${instance} has no effort option`, {
      details: { reason: "model_option_unsupported", option: "effort" },
    });
  }
  return { id, value: effort };
}

function modeOf(input: unknown): string {
  return String((input as { runtimeMode?: unknown }).runtimeMode);
}

export async function createThread(
  environments: OpsEnvironments,
  environment: string,
  request: CreateRequest,
): Promise<CreateResult> {
  const env = environments.resolve(environment);
  const { alias, environmentId } = env.config;
  const operationKey = opsOperationKey(
    environmentId,
    request.clientRequestId,
    request.namespace ?? DEFAULT_NAMESPACE,
  );
  const entry = getAction("thread.launch");
  const selection: ModelSelection = { instanceId: request.instance, model: request.model };
  const input = (projectId: string, options: ModelSelection["options"]) => ({
    projectId,
    title: request.title,
    modelSelection: options === undefined || options.length === 0 ? selection : { ...selection, options },
    workspaceStrategy: { type: "root" },
    ...(request.runtimeMode === undefined ? {} : { runtimeMode: request.runtimeMode }),
    ...(request.brief === undefined ? {} : { text: request.brief }),
  });
  const filled = { omittedRuntimeMode: opsCeiling(environments.config) }; // no mode: ops' ceiling (ADR 0037)
  // The input is checked once before any read, with a placeholder project, so bad input costs nothing.
  refuseAboveOpsCeiling(
    environments.config,
    prepareAction("thread.launch", input("project", request.options), operationKey, filled),
  );
  const connection = await env.handle.connect();
  const shell = await connection.http.getShell();
  const project = resolveProject(shell, request.project);
  const base = prepareAction("thread.launch", input(project.id, request.options), operationKey, filled);
  const threadId = base.ids.threadId as string;
  const now = resolveNow(environments.clock);
  const confirm = (snapshot: ShellSnapshot) =>
    confirmedThreads(snapshot, [threadId], now)[0] as ConfirmedThread;
  if (liveThreads(shell).has(threadId)) {
    // A repeat: the derived thread exists, so this request already happened. Nothing is sent.
    return {
      created: false,
      environment: { alias, environmentId },
      threadId,
      projectId: project.id,
      commandId: base.ids.commandId,
      clientRequestId: request.clientRequestId,
      result: null,
      confirmation: confirm(shell),
      runtimeMode: modeOf(base.input),
    };
  }
  const options = [...(request.options ?? [])];
  if (request.effort !== undefined) {
    options.push(await effortOption(connection, request.instance, request.model, request.effort));
  }
  const prepared = prepareAction("thread.launch", input(project.id, options), operationKey, filled);
  await preflight(connection, entry, prepared.input, request.clientRequestId, shell);
  const receipt = await sendPrepared(connection, prepared, request.clientRequestId);
  const after = await connection.http.getShell();
  const confirmation = confirm(after);
  if (!confirmation.present) {
    throw new ConnectorError(
      "connection_lost",
      `T3 accepted the launch but thread ${threadId} is not in the shell read after it`,
      {
        details: { uncertain: true, threadId, commandId: prepared.ids.commandId },
      },
    );
  }
  return {
    created: receipt.resumed !== true,
    environment: { alias, environmentId },
    threadId,
    projectId: project.id,
    commandId: prepared.ids.commandId,
    clientRequestId: request.clientRequestId,
    result: receipt,
    confirmation,
    runtimeMode: modeOf(prepared.input),
  };
}

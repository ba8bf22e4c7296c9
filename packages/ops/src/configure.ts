/**
 * `configure`: change a thread's instance, model, effort, runtime mode or interaction mode, as
 * the native t3_thread_configure decides it. Omitted instance/model keep the current ones; when
 * both stay, the current options are kept (effort replaced). The same instance is
 * thread.model-selection.set, another is provider.switch. Every input and the selection (against
 * `server.getConfig`) are checked before the first send; each command goes through `act`, so its
 * ids derive from (namespace, environment, action, operationId) and a repeat replays T3's
 * receipts. The result is confirmed by reading the thread's shell row afterwards.
 */
import { ConnectorError } from "@t3-connector/core";
import type { ConnectedEnvironment } from "@t3-connector/core/environments";
import type { ThreadShell } from "@t3-connector/core/t3";
import { type ActionId, type ModelSelection, prepareAction } from "@t3-connector/write-engine/actions";
import { type ActResult, act } from "./act.js";
import { effortOption } from "./create.js";
import type { OpsEnvironments } from "./environments.js";
import { DEFAULT_NAMESPACE, opsOperationKey } from "./operation-key.js";
import { checkSelectionOffered, liveThreads } from "./preflight.js";
import { resolveThread } from "./references.js";

export interface ConfigureRequest {
  instance?: string;
  model?: string;
  effort?: string;
  /** Model options (id=value); each replaces a kept option of the same id. */
  options?: { id: string; value: string | boolean }[];
  runtimeMode?: string;
  interactionMode?: string;
  operationId: string;
  namespace?: string;
}

export interface ThreadConfiguration {
  modelSelection: ModelSelection | null;
  runtimeMode: string | null;
  interactionMode: string | null;
}

export interface ConfigureResult {
  environment: { alias: string; environmentId: string };
  threadId: string;
  operationId: string;
  commands: ActResult[];
  /** Actions not sent because the thread already read back with their value. */
  skipped: ActionId[];
  before: ThreadConfiguration;
  after: ThreadConfiguration;
}

function configurationOf(thread: ThreadShell): ThreadConfiguration {
  return {
    modelSelection: (thread.modelSelection as ModelSelection | null | undefined) ?? null,
    runtimeMode: thread.runtimeMode ?? null,
    interactionMode: thread.interactionMode ?? null,
  };
}

const EFFORT_OPTIONS = new Set(["reasoningEffort", "effort"]);

function alreadyApplied(current: ThreadConfiguration, input: Record<string, unknown>): boolean {
  if (input.runtimeMode !== undefined) return current.runtimeMode === input.runtimeMode;
  if (input.interactionMode !== undefined) return current.interactionMode === input.interactionMode;
  const wanted = input.modelSelection as ModelSelection;
  const have = current.modelSelection;
  return (
    have !== null &&
    sameSelection(have, wanted) &&
    (have.options ?? []).length === (wanted.options ?? []).length
  );
}

/** Instance, model and every option asked for read back as sent (T3 may add options of its own). */
function sameSelection(read: ModelSelection | null, sent: ModelSelection): boolean {
  if (read?.instanceId !== sent.instanceId || read.model !== sent.model) return false;
  return (sent.options ?? []).every((option) =>
    (read.options ?? []).some((found) => found.id === option.id && found.value === option.value),
  );
}

/** The selection the thread should end with, or undefined when no model field was asked for. */
async function targetSelection(
  connect: () => Promise<ConnectedEnvironment>,
  current: ModelSelection | null,
  request: ConfigureRequest,
): Promise<ModelSelection | undefined> {
  const asked = request.options ?? [];
  if (
    request.instance === undefined &&
    request.model === undefined &&
    request.effort === undefined &&
    asked.length === 0
  ) {
    return undefined;
  }
  const instanceId = request.instance ?? current?.instanceId;
  const model = request.model ?? current?.model;
  if (instanceId === undefined || model === undefined) {
    throw new ConnectorError(
      "invalid_input",
      "the thread has no current model selection: give --instance and --model",
      { details: { reason: "model_selection_required" } },
    );
  }
  const keepsModel = instanceId === current?.instanceId && model === current?.model;
  const kept = keepsModel ? [...(current?.options ?? [])] : [];
  const replaced = new Set(asked.map((option) => option.id));
  const options = [
    ...kept.filter(
      (option) =>
        !replaced.has(option.id) && (request.effort === undefined || !EFFORT_OPTIONS.has(option.id)),
    ),
    ...asked,
  ];
  if (request.effort !== undefined) {
    options.push(await effortOption(await connect(), instanceId, model, request.effort));
  }
  return options.length === 0 ? { instanceId, model } : { instanceId, model, options };
}

export async function configureThread(
  environments: OpsEnvironments,
  environment: string | undefined,
  reference: string,
  request: ConfigureRequest,
): Promise<ConfigureResult> {
  assertSomethingAsked(request);
  const { env, thread } = await resolveThread(environments, reference, environment);
  const { alias, environmentId } = env.config;
  const before = configurationOf(thread);
  const selection = await targetSelection(() => env.handle.connect(), before.modelSelection, request);
  const steps = configureSteps(thread.id, before, selection, request);
  // Every step is validated, and the selection checked against server.getConfig, before the first send.
  const namespace = request.namespace ?? DEFAULT_NAMESPACE;
  const key = opsOperationKey(environmentId, request.operationId, namespace);
  for (const step of steps) prepareAction(step.action, step.input, key);
  if (selection !== undefined) {
    const refusal = await checkSelectionOffered(await env.handle.connect(), selection);
    if (refusal !== null) throw refusal;
  }
  const commands: ActResult[] = [];
  // A step the thread already reads back with is not sent (a repeat, or nothing to change), so a
  // repeat after a provider.switch does not turn into a model-selection.set on the new instance.
  const skipped = steps.filter((step) => alreadyApplied(before, step.input)).map((step) => step.action);
  for (const step of steps) {
    if (alreadyApplied(before, step.input)) continue;
    commands.push(
      await act(environments, alias, step.action, step.input, {
        operationId: request.operationId,
        namespace,
      }),
    );
  }
  const after = await readBackConfiguration(env, thread.id, selection, request);
  return {
    environment: { alias, environmentId },
    threadId: thread.id,
    operationId: request.operationId,
    commands,
    skipped,
    before,
    after,
  };
}

function assertSomethingAsked(request: ConfigureRequest): void {
  const asked = [
    request.instance,
    request.model,
    request.effort,
    request.runtimeMode,
    request.interactionMode,
  ];
  if (asked.every((value) => value === undefined) && (request.options ?? []).length === 0) {
    throw new ConnectorError(
      "invalid_input",
      "configure needs at least one of --instance, --model, --effort, --option, --runtime-mode, --interaction-mode",
    );
  }
}

interface ConfigureStep {
  action: ActionId;
  input: Record<string, unknown>;
}

/** The commands, in order: the selection (same instance: a set; another: a switch), then the modes. */
function configureSteps(
  threadId: string,
  before: ThreadConfiguration,
  selection: ModelSelection | undefined,
  request: ConfigureRequest,
): ConfigureStep[] {
  const steps: ConfigureStep[] = [];
  if (selection !== undefined) {
    const sameInstance = selection.instanceId === before.modelSelection?.instanceId;
    steps.push({
      action: sameInstance ? "thread.model-selection.set" : "provider.switch",
      input: { threadId, modelSelection: selection },
    });
  }
  if (request.runtimeMode !== undefined) {
    steps.push({ action: "thread.runtime-mode.set", input: { threadId, runtimeMode: request.runtimeMode } });
  }
  if (request.interactionMode !== undefined) {
    steps.push({
      action: "thread.interaction-mode.set",
      input: { threadId, interactionMode: request.interactionMode },
    });
  }
  return steps;
}

/** The thread's configuration read back from the shell; not what was asked: uncertain, said so. */
async function readBackConfiguration(
  env: { handle: { connect(): Promise<ConnectedEnvironment> } },
  threadId: string,
  selection: ModelSelection | undefined,
  request: ConfigureRequest,
): Promise<ThreadConfiguration> {
  const shell = await (await env.handle.connect()).http.getShell();
  const row = liveThreads(shell).get(threadId);
  const after = row === undefined ? null : configurationOf(row);
  const unconfirmed =
    after === null ||
    (selection !== undefined && !sameSelection(after.modelSelection, selection)) ||
    (request.runtimeMode !== undefined && after.runtimeMode !== request.runtimeMode) ||
    (request.interactionMode !== undefined && after.interactionMode !== request.interactionMode);
  if (unconfirmed || after === null) {
    throw new ConnectorError(
      "connection_lost",
      `T3 accepted the configuration of ${threadId} but the thread does not read back with it`,
      { details: { uncertain: true, threadId, operationId: request.operationId, after } },
    );
  }
  return after;
}

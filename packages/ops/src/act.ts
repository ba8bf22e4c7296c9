/**
 * `act <action>`: any catalogue action, with the write tools' schemas, ids and guards, sent once
 * with the operator's token and read back from a fresh shell. No journal: a repeat of the same
 * (namespace, environment, operationId) carries the same derived ids, and T3 replays its receipt.
 */
import { ConnectorError } from "@t3-connector/core";
import { addArchivedThreads, type ConnectedEnvironment } from "@t3-connector/core/environments";
import { resolveNow, threadSummary } from "@t3-connector/core/state";
import type { ShellSnapshot } from "@t3-connector/core/t3";
import {
  type ActionId,
  getAction,
  isActionId,
  type PreparedAction,
  prepareAction,
  type RuntimeMode,
  requestedRuntimeMode,
} from "@t3-connector/write-engine/actions";
import {
  actionUnsupportedError,
  type CommandSupportCache,
  learnFromRefusal,
  refuseUnkeptField,
  refuseUnsupportedAction,
  supportsAction,
} from "@t3-connector/write-engine/capabilities";
import { projectRefusal, sendWithoutLease } from "@t3-connector/write-engine/engine";
import type { OpsEnvironments } from "./environments.js";
import { DEFAULT_NAMESPACE, opsOperationKey } from "./operation-key.js";
import { liveThreads, preflight } from "./preflight.js";
import { opsCeiling, refuseAboveOpsCeiling, refuseThreadModeAboveOpsCeiling } from "./runtime-ceiling.js";
import { stateRow } from "./shell-rows.js";

export interface ActOptions {
  /** The idempotency key: the same operationId in the same environment never applies twice. */
  operationId: string;
  namespace?: string;
}

export interface ConfirmedThread {
  threadId: string;
  /** False when the thread is gone (deleted) in the shell read after the receipt. */
  present: boolean;
  state: string | null;
  statusRun: string | null;
  settled: boolean;
  archived: boolean;
  pinned: boolean;
  snoozedUntil: string | null;
  updatedAt: string | null;
}

export interface ActResult {
  action: ActionId;
  environment: { alias: string; environmentId: string };
  operationId: string;
  commandId: string;
  ids: Record<string, string>;
  /** T3's receipt: `{sequence}` for a command, `{threadId, resumed}` for a launch. */
  result: Record<string, unknown>;
  /** The targets as read back after the receipt. */
  confirmation: ConfirmedThread[];
  /** For a launch or delegated task: the mode its agent runs in (ops' ceiling when the input named none). */
  runtimeMode?: RuntimeMode;
}

export function confirmedThreads(
  shell: ShellSnapshot,
  threadIds: readonly string[],
  now: number,
): ConfirmedThread[] {
  const threads = liveThreads(shell);
  return threadIds.map((threadId) => {
    const row = threads.get(threadId);
    if (row === undefined) {
      return {
        threadId,
        present: false,
        state: null,
        statusRun: null,
        settled: false,
        archived: false,
        pinned: false,
        snoozedUntil: null,
        updatedAt: null,
      };
    }
    const summary = threadSummary(stateRow(row), { now });
    return {
      threadId,
      present: true,
      state: summary.state,
      statusRun: summary.statusRun,
      settled: summary.settled,
      archived: Boolean(row.archivedAt),
      pinned: Boolean(row.pinnedAt),
      snoozedUntil: row.snoozedUntil ?? null,
      updatedAt: row.updatedAt ?? null,
    };
  });
}

/**
 * Sends a prepared payload exactly once, under the engine's operator policy (no lease, no journal).
 * A refusal is thrown as is; a lost or undecodable answer is `connection_lost` with
 * `details.uncertain: true` (T3 may have applied it).
 */
export async function sendPrepared(
  connection: ConnectedEnvironment,
  prepared: PreparedAction,
  operationId: string,
  commandSupport?: CommandSupportCache,
): Promise<Record<string, unknown>> {
  const rpc = await connection.rpc();
  const outcome = await sendWithoutLease(rpc, prepared.payload);
  if (outcome.kind === "completed") return { ...outcome.receipt };
  if (outcome.kind === "refused") {
    // An older server's decode defect lists the types it accepts: the engine's rule learns them,
    // and the refusal names the environment.
    const listed =
      commandSupport === undefined ? undefined : learnFromRefusal(commandSupport, connection, outcome.error);
    if (listed !== undefined && !supportsAction(listed, prepared.action)) {
      throw actionUnsupportedError(listed, connection.alias, prepared.action);
    }
    throw outcome.error;
  }
  throw new ConnectorError(
    "connection_lost",
    `the outcome of ${prepared.action} is unknown (${outcome.error.message}); read the thread before repeating, or repeat the same operationId`,
    {
      details: { uncertain: true, commandId: prepared.ids.commandId, operationId },
      cause: outcome.error,
    },
  );
}

/**
 * A fresh shell; when a target is not in it, completed by the archived shell snapshot, since
 * current T3 keeps archived threads out of the shell (an unarchive, an archive read back).
 */
async function shellWithTargets(
  connection: ConnectedEnvironment,
  threadIds: readonly string[],
): Promise<ShellSnapshot> {
  const shell = await connection.http.getShell();
  const live = liveThreads(shell);
  if (threadIds.every((id) => live.has(id))) return shell;
  return addArchivedThreads(connection, shell);
}

function runtimeModeOf(prepared: PreparedAction): { runtimeMode?: RuntimeMode } {
  const mode = requestedRuntimeMode(prepared.action, prepared.input);
  return mode === undefined ? {} : { runtimeMode: mode };
}

export async function act(
  environments: OpsEnvironments,
  environment: string,
  action: string,
  rawInput: unknown,
  options: ActOptions,
): Promise<ActResult> {
  if (!isActionId(action)) getAction(action); // throws invalid_input naming the unknown action
  const id = action as ActionId;
  const env = environments.resolve(environment);
  const { environmentId, alias } = env.config;
  const operationKey = opsOperationKey(
    environmentId,
    options.operationId,
    options.namespace ?? DEFAULT_NAMESPACE,
  );
  // Bad input stops here: nothing is connected to, nothing is sent. A launch that names no mode
  // runs at ops' ceiling: --max-runtime-mode when set, else T3's own default (ADR 0037).
  const prepared = prepareAction(id, rawInput, operationKey, {
    omittedRuntimeMode: opsCeiling(environments.config),
  });
  refuseAboveOpsCeiling(environments.config, prepared);
  const entry = getAction(id);
  const connection = await env.handle.connect();
  // An action this server's version cannot decode is refused here, per environment, unsent: the
  // engine's rule, the one the gate's dispatcher applies.
  const commandSupport = await environments.commandSupport();
  await refuseUnsupportedAction(commandSupport, connection, id);
  refuseUnkeptField(connection, id, prepared.input);
  await refuseThreadModeAboveOpsCeiling(environments.config, connection, prepared);
  const named = entry.targets(prepared.input).threadIds;
  const shell = await shellWithTargets(connection, named);
  await preflight(connection, entry, prepared.input, options.operationId, shell);
  // Project folders and a delete's thread count: the engine's own checks (ADR 0074).
  const projectRefused = await projectRefusal(entry.guards, {
    input: prepared.input,
    environment: connection,
    transport: env.handle.transport,
    projectRoots: env.handle.projectRoots,
  });
  if (projectRefused !== null) throw projectRefused;
  const receipt = await sendPrepared(connection, prepared, options.operationId, commandSupport);
  const launched = typeof receipt.threadId === "string" ? [receipt.threadId] : [];
  const targets = [...named, ...launched];
  const after = await shellWithTargets(connection, targets);
  const ids: Record<string, string> = {};
  for (const [kind, value] of Object.entries(prepared.ids)) if (typeof value === "string") ids[kind] = value;
  return {
    action: id,
    environment: { alias, environmentId },
    operationId: options.operationId,
    commandId: prepared.ids.commandId,
    ids,
    result: receipt,
    confirmation: confirmedThreads(after, targets, resolveNow(environments.clock)),
    ...runtimeModeOf(prepared),
  };
}

/**
 * The write-action catalogue: the 47 actions in registration order.
 * One table drives the gate's checks, the operator CLI and the write bridge's tools (which add
 * their client-facing names and hints from their own table, keyed by action id).
 */

import { ConnectorError } from "@t3-connector/core";
import { z } from "zod";
import { CONDITIONAL_SEND } from "./conditional-send.js";
import { DEFAULT_RUNTIME_MODE, idString, type RuntimeMode } from "./fields.js";
import { deriveIdSet } from "./ids.js";
import {
  threadLaunch,
  threadMetadataUpdate,
  threadPullRequestLink,
  threadPullRequestUnlink,
  threadPullRequestWatch,
  threadSend,
} from "./launch-send.js";
import {
  delegatedTaskCompletionDeliveryAcknowledge,
  delegatedTaskCompletionDeliveryDispose,
  delegatedTaskRequest,
  delegatedTaskWakePolicy,
  threadFork,
  threadMergeBack,
} from "./lineage.js";
import { projectCreate, projectDelete, projectMetaUpdate } from "./project-admin.js";
import {
  checkpointRollback,
  preparedRunRelease,
  preparedRunRetry,
  providerSessionDetach,
  providerSwitch,
  queuedMessagePromoteToSteer,
  queuedRunCancel,
  queuedRunEdit,
  queuedRunReorder,
  queueResume,
  runInterrupt,
  runtimeRequestAnswer,
  runtimeRequestApprove,
  threadModelSelectionSet,
  threadUserInputDismiss,
} from "./run-control.js";
import {
  threadActiveReorder,
  threadArchive,
  threadAutoSettleSet,
  threadDelete,
  threadInteractionModeSet,
  threadMarkUnread,
  threadPin,
  threadPinReorder,
  threadRuntimeModeSet,
  threadSettle,
  threadSnooze,
  threadTitle,
  threadUnarchive,
  threadUnpin,
  threadUnsettle,
  threadUnsnooze,
  threadVisit,
} from "./thread-state.js";
import type { ActionDefinition, ActionGroup, BuiltPayload, DerivedIds } from "./types.js";

export const ACTIONS = [
  threadArchive,
  threadUnarchive,
  threadDelete,
  threadSettle,
  threadPin,
  threadUnpin,
  threadUnsnooze,
  threadMarkUnread,
  threadUnsettle,
  threadSnooze,
  threadAutoSettleSet,
  threadPinReorder,
  threadActiveReorder,
  threadVisit,
  threadTitle,
  threadRuntimeModeSet,
  threadInteractionModeSet,
  threadModelSelectionSet,
  providerSwitch,
  providerSessionDetach,
  runInterrupt,
  preparedRunRelease,
  preparedRunRetry,
  queueResume,
  queuedRunCancel,
  queuedRunReorder,
  queuedRunEdit,
  queuedMessagePromoteToSteer,
  runtimeRequestApprove,
  runtimeRequestAnswer,
  threadUserInputDismiss,
  checkpointRollback,
  threadLaunch,
  threadSend,
  threadMetadataUpdate,
  threadPullRequestLink,
  threadPullRequestUnlink,
  threadPullRequestWatch,
  threadFork,
  threadMergeBack,
  delegatedTaskRequest,
  delegatedTaskWakePolicy,
  delegatedTaskCompletionDeliveryAcknowledge,
  delegatedTaskCompletionDeliveryDispose,
  projectCreate,
  projectMetaUpdate,
  projectDelete,
] as const;

export type ActionId = (typeof ACTIONS)[number]["action"];
/** The definition of one action, with its input type. */
export type ActionOf<A extends ActionId> = Extract<(typeof ACTIONS)[number], { action: A }>;
/** Parsed (output) input of one action. */
export type ActionInput<A extends ActionId> = z.output<ActionOf<A>["inputSchema"]>;
export type AnyActionDefinition = ActionDefinition<ActionId, z.ZodType>;

export const ACTION_IDS: readonly ActionId[] = ACTIONS.map((entry) => entry.action);

const BY_ACTION: ReadonlyMap<string, AnyActionDefinition> = new Map(
  ACTIONS.map((entry): [string, AnyActionDefinition] => [entry.action, entry]),
);

export function isActionId(value: string): value is ActionId {
  return BY_ACTION.has(value);
}

export function getAction(action: string): AnyActionDefinition {
  const entry = BY_ACTION.get(action);
  if (entry === undefined) throw new ConnectorError("invalid_input", `unknown write action: ${action}`);
  return entry;
}

/** How a person sees one action (approval page, operator CLI): from the catalogue table itself. */
export interface ActionInfo {
  readonly action: ActionId;
  readonly label: string;
  readonly description: string;
  readonly group: ActionGroup;
}

/** The people-facing line of one action. */
export function actionInfo(action: string): ActionInfo {
  const entry = getAction(action);
  return { action: entry.action, label: entry.label, description: entry.description, group: entry.group };
}

/** The label of a catalogue action (or of the composite conditional send); the id itself when unknown. */
export function actionLabel(action: string): string {
  if (action === CONDITIONAL_SEND.action) return CONDITIONAL_SEND.label;
  return BY_ACTION.get(action)?.label ?? action;
}

/** Catalogue ids whose effect cannot be undone: never pre-selected unless the client proposed them. */
export const DESTRUCTIVE_ACTIONS: readonly ActionId[] = ACTIONS.filter(
  (entry) => entry.group === "destructive",
).map((entry) => entry.action);

/**
 * Actions that name a folder on the person's machine (a project's workspace root, ADR 0074): like a
 * destructive one, the approval page never ticks them unless the client proposed them.
 */
export const FOLDER_NAMING_ACTIONS: readonly ActionId[] = ACTIONS.filter((entry) =>
  entry.guards.some((guard) => guard.kind === "workspace_root_confined"),
).map((entry) => entry.action);

export interface DeriveIdsOptions {
  /** For thread.send: the caller's clientRequestId (= operationId), kept with the ids for the journal. */
  readonly clientRequestId?: string;
}

/** Every id the action sends to T3, derived from the operation key. */
export function deriveIds(
  operationKey: string,
  action: ActionId,
  options: DeriveIdsOptions = {},
): DerivedIds {
  const entry = getAction(action);
  const clientRequestId = action === "thread.send" ? options.clientRequestId : undefined;
  return deriveIdSet(operationKey, action, entry.extraIds, clientRequestId);
}

export interface PreparedAction {
  readonly action: ActionId;
  /** The strictly parsed input (defaults applied, strings trimmed, an omitted mode filled). */
  readonly input: unknown;
  readonly ids: DerivedIds;
  readonly payload: BuiltPayload;
  /** True when the action's input may name a runtime mode and this one did not (ADR 0037). */
  readonly runtimeModeOmitted: boolean;
}

export interface PrepareOptions {
  /**
   * The mode an omitted `runtimeModeField` runs in: the lease's ceiling at the gate, the
   * operator's ceiling in ops; T3's own default (`full-access`) when not given.
   */
  readonly omittedRuntimeMode?: RuntimeMode;
}

/** The parsed input with its omitted runtime mode filled, and whether it was omitted. */
function withRuntimeMode(
  entry: AnyActionDefinition,
  input: unknown,
  mode: RuntimeMode,
): { input: unknown; omitted: boolean } {
  const field = entry.runtimeModeField;
  if (field === undefined || input === null || typeof input !== "object") return { input, omitted: false };
  if ((input as Record<string, unknown>)[field] !== undefined) return { input, omitted: false };
  return { input: { ...input, [field]: mode }, omitted: true };
}

/**
 * Parses a raw tool input strictly and builds the one payload to send. A schema failure is
 * `invalid_input` with zod's issues in `details`; nothing is built.
 */
export function prepareAction(
  action: ActionId,
  rawInput: unknown,
  operationKey: string,
  options: PrepareOptions = {},
): PreparedAction {
  const entry = getAction(action);
  const parsed = entry.inputSchema.safeParse(rawInput);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({
      path: issue.path.map(String),
      message: issue.message,
    }));
    const first = issues[0];
    throw new ConnectorError(
      "invalid_input",
      first === undefined ? "invalid input" : `${first.path.join(".") || "input"}: ${first.message}`,
      {
        details: { action, issues },
      },
    );
  }
  const clientRequestId =
    action === "thread.send"
      ? String((parsed.data as { clientRequestId: string }).clientRequestId)
      : undefined;
  const ids = deriveIds(operationKey, action, clientRequestId === undefined ? {} : { clientRequestId });
  return builtFrom(entry, parsed.data, ids, options.omittedRuntimeMode ?? DEFAULT_RUNTIME_MODE);
}

/**
 * The same prepared write with its omitted runtime mode filled with `mode` (the lease's ceiling,
 * known only once the lease's verdict is), without parsing the input again: `prepared.input` is
 * already the strict parse, the ids stay those of the operation key. A write whose input named a
 * mode is answered as it is.
 */
export function withOmittedRuntimeMode(prepared: PreparedAction, mode: RuntimeMode): PreparedAction {
  if (!prepared.runtimeModeOmitted) return prepared;
  const entry = getAction(prepared.action);
  const field = entry.runtimeModeField;
  if (field === undefined) return prepared;
  const { [field]: _filled, ...parsed } = prepared.input as Record<string, unknown>;
  return builtFrom(entry, parsed, prepared.ids, mode);
}

function builtFrom(
  entry: AnyActionDefinition,
  parsed: unknown,
  ids: DerivedIds,
  mode: RuntimeMode,
): PreparedAction {
  const filled = withRuntimeMode(entry, parsed, mode);
  return {
    action: entry.action,
    input: filled.input,
    ids,
    payload: entry.build(filled.input, ids),
    runtimeModeOmitted: filled.omitted,
  };
}

/** The envelope of one write request around its action input: the lease, the place, the key. */
export function writeEnvelopeSchema<S extends z.ZodType>(input: S) {
  return z.strictObject({
    leaseId: idString,
    /** An alias or an environmentId; mandatory, there is no default environment for writes. */
    environment: z.string().trim().min(1).max(1024),
    /** The idempotency key: a repeat in the same environment never resends. */
    operationId: idString,
    input,
  });
}

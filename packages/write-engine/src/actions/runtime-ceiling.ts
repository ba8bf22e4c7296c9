/**
 * The runtime-mode ceiling (ADR 0022): the highest mode in which a write may make an agent run.
 * Modes rank `approval-required` < `auto-accept-edits` < `auto` < `full-access`. An action whose
 * input carries the mode a thread will run in declares where (`runtimeModeField` in the catalogue
 * table); the gate's lease, the conditional send and ops all read that one declaration.
 */
import { ConnectorError } from "@t3-connector/core";
import { getAction } from "./catalogue.js";
import { RUNTIME_MODES, type RuntimeMode } from "./fields.js";

/** What a lease grants when the client proposes no ceiling: T3's own external-client default. */
export const DEFAULT_RUNTIME_CEILING: RuntimeMode = "approval-required";

export function isRuntimeMode(value: unknown): value is RuntimeMode {
  return typeof value === "string" && (RUNTIME_MODES as readonly string[]).includes(value);
}

export function runtimeModeRank(mode: RuntimeMode): number {
  return RUNTIME_MODES.indexOf(mode);
}

/** The lower of two modes (narrowing a ceiling can only lower it). */
export function lowerRuntimeMode(a: RuntimeMode, b: RuntimeMode): RuntimeMode {
  return runtimeModeRank(a) <= runtimeModeRank(b) ? a : b;
}

/** What a ceiling lets the agent do, in words for the person approving (page, ops). */
export function runtimeCeilingWords(mode: RuntimeMode, environment: string): string {
  switch (mode) {
    case "approval-required":
      return `agents it starts on ${environment} ask in T3 before every command and file change`;
    case "auto-accept-edits":
      return `agents it starts on ${environment} may change files without asking (commands still ask)`;
    case "auto":
      return `agents it starts on ${environment} decide themselves when to ask, and may run commands without asking`;
    case "full-access":
      return `can run any command on ${environment} without asking`;
  }
}

/**
 * The runtime mode a parsed action input asks for, from the catalogue's declaration; undefined
 * when the action starts no agent in a mode of its own choosing.
 */
export function requestedRuntimeMode(action: string, parsedInput: unknown): RuntimeMode | undefined {
  const field = getAction(action).runtimeModeField;
  if (field === undefined || parsedInput === null || typeof parsedInput !== "object") return undefined;
  const value = (parsedInput as Record<string, unknown>)[field];
  return isRuntimeMode(value) ? value : undefined;
}

/** A target thread as the ceiling sees it: the mode its agent runs in now (null when T3 does not say). */
export interface ThreadModeView {
  readonly id: string;
  readonly runtimeMode: RuntimeMode | null;
}

/**
 * The current mode an action would make its target threads' agents run in: for an entry declared
 * `runsInThreadMode`, the highest mode among the threads (the one a ceiling must cover); undefined
 * for any other action, or when no thread says its mode. The gate, the conditional send and ops
 * all ask this, then `threadModeCeilingRefusal`.
 */
export function drivenThreadMode(
  action: string,
  threads: Iterable<ThreadModeView>,
): { threadId: string; mode: RuntimeMode } | undefined {
  if (getAction(action).runsInThreadMode !== true) return undefined;
  let highest: { threadId: string; mode: RuntimeMode } | undefined;
  for (const thread of threads) {
    if (thread.runtimeMode === null) continue;
    if (highest === undefined || runtimeModeRank(thread.runtimeMode) > runtimeModeRank(highest.mode)) {
      highest = { threadId: thread.id, mode: thread.runtimeMode };
    }
  }
  return highest;
}

/**
 * For an action that drives a thread's agent in the mode the thread already runs in (a message,
 * resuming a held queue, retrying a run's preparation; see `drivenThreadMode`):
 * `runtime_mode_above_lease` naming that mode and the ceiling, or null when it is within it.
 */
export function threadModeCeilingRefusal(
  action: string,
  thread: { readonly threadId: string; readonly mode: RuntimeMode } | undefined,
  ceiling: RuntimeMode,
  holder: "lease" | "ops" = "lease",
): ConnectorError | null {
  if (thread === undefined || runtimeModeRank(thread.mode) <= runtimeModeRank(ceiling)) return null;
  const widen =
    holder === "lease"
      ? `ask the user for a lease with runtimeCeiling ${thread.mode}`
      : `run ops with --max-runtime-mode ${thread.mode}`;
  return new ConnectorError(
    "runtime_mode_above_lease",
    `${action} would drive thread ${thread.threadId}, which runs in ${thread.mode}, above this ${holder}'s ` +
      `ceiling ${ceiling}: switch the thread to ${ceiling} (or lower) first with thread.runtime-mode.set, ` +
      `or ${widen}. Nothing was sent.`,
    {
      details: {
        reason: "runtime_mode_above_lease",
        action,
        threadId: thread.threadId,
        threadRuntimeMode: thread.mode,
        ceiling,
      },
    },
  );
}

/** `runtime_mode_above_lease` naming the ceiling, or null when the mode is within it. */
export function runtimeCeilingRefusal(
  action: string,
  requested: RuntimeMode | undefined,
  ceiling: RuntimeMode,
  holder: "lease" | "ops" = "lease",
): ConnectorError | null {
  if (requested === undefined || runtimeModeRank(requested) <= runtimeModeRank(ceiling)) return null;
  const field = getAction(action).runtimeModeField ?? "runtimeMode";
  const widen =
    holder === "lease"
      ? `or ask the user for a lease with runtimeCeiling ${requested}`
      : `or run ops with --max-runtime-mode ${requested}`;
  return new ConnectorError(
    "runtime_mode_above_lease",
    `${action} asks for ${field} ${requested}, above this ${holder}'s ceiling ${ceiling}: ` +
      `give ${field} ${ceiling} (or lower), ${widen}. Nothing was sent.`,
    { details: { reason: "runtime_mode_above_lease", action, requested, ceiling } },
  );
}

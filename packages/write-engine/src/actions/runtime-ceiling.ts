/**
 * The runtime-mode ceiling (ADR 0022): the highest mode in which a write may make an agent run.
 * Modes rank `approval-required` < `auto-accept-edits` < `auto` < `full-access`. Every catalogue
 * entry declares how it relates to an agent's run (`runEffect`, ADR 0037) and, when its input
 * carries the mode an agent will run in, where (`runtimeModeField`); the gate's lease, the
 * conditional send and ops all derive the ceiling from those two declarations.
 */
import { ConnectorError } from "@t3-connector/core";
import { getAction } from "./catalogue.js";
import { DEFAULT_RUNTIME_MODE, RUNTIME_MODES, type RuntimeMode } from "./fields.js";
import type { RunEffect, ThreadRunView } from "./types.js";

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

/** What each effect does to the agent of a thread above the ceiling, for the refusal's words. */
const EFFECT_WORDS: Record<Exclude<RunEffect, "runs-nothing">, string> = {
  "starts-run": "it would make that thread's agent run",
  "changes-run": "it would change what that thread's agent does when it runs",
  "sets-mode": "it would leave an agent running in that mode",
};

/**
 * The thread whose current mode a write makes an agent run in, per the catalogue's `runEffect`
 * (ADR 0037): for every effect but `runs-nothing`, the highest mode among the threads the action
 * drives, where its `effectHolds` (if any) says the effect holds for that thread and input;
 * undefined when none does or no such thread says its mode. The gate, the conditional send and
 * ops all ask this, then `threadModeCeilingRefusal`. `input` undefined: the effect is taken to hold.
 */
export function drivenThreadMode(
  action: string,
  input: unknown,
  threads: Iterable<ThreadRunView>,
): DrivenThreadMode | undefined {
  const entry = getAction(action);
  if (entry.runEffect === "runs-nothing") return undefined;
  const driven = new Set(input === undefined ? [] : entry.drives(input));
  let highest: DrivenThreadMode | undefined;
  for (const thread of threads) {
    if (input !== undefined && !driven.has(thread.id)) continue;
    if (input !== undefined && entry.effectHolds !== undefined && !entry.effectHolds(input, thread)) continue;
    // Fail closed: a mode T3 does not name (or names with a word not known here) counts as its
    // own default, the highest, so a new or missing mode is never a way around the ceiling.
    const mode = thread.runtimeMode ?? DEFAULT_RUNTIME_MODE;
    if (highest === undefined || runtimeModeRank(mode) > runtimeModeRank(highest.mode)) {
      highest = {
        threadId: thread.id,
        mode,
        ...(thread.runtimeMode === null ? { reported: false as const } : {}),
      };
    }
  }
  return highest;
}

/** The driven thread whose mode a ceiling must cover; `reported: false` when T3 did not name it. */
export interface DrivenThreadMode {
  readonly threadId: string;
  readonly mode: RuntimeMode;
  readonly reported?: false;
}

/**
 * For a write that would make a thread's agent run in the mode it already has (see
 * `drivenThreadMode`): `runtime_mode_above_lease` naming that mode and the ceiling, or null when
 * it is within it.
 */
export function threadModeCeilingRefusal(
  action: string,
  thread: DrivenThreadMode | undefined,
  ceiling: RuntimeMode,
  holder: "lease" | "ops" = "lease",
): ConnectorError | null {
  if (thread === undefined || runtimeModeRank(thread.mode) <= runtimeModeRank(ceiling)) return null;
  const entry = getAction(action);
  const widen =
    holder === "lease"
      ? `ask the user for a lease with runtimeCeiling ${thread.mode}`
      : `run ops with --max-runtime-mode ${thread.mode}`;
  const instead =
    entry.ceilingAdvice ?? `switch the thread to ${ceiling} (or lower) first with thread.runtime-mode.set`;
  const effect = entry.runEffect === "runs-nothing" ? "starts-run" : entry.runEffect;
  const runsIn =
    thread.reported === false
      ? `whose mode T3 does not name (taken as ${thread.mode}, T3's default)`
      : `which runs in ${thread.mode}`;
  return new ConnectorError(
    "runtime_mode_above_lease",
    `${action} would drive thread ${thread.threadId}, ${runsIn}, above this ${holder}'s ` +
      `ceiling ${ceiling}: ${EFFECT_WORDS[effect]}. Instead ${instead}, or ${widen}. Nothing was sent.`,
    {
      details: {
        reason: "runtime_mode_above_lease",
        action,
        runEffect: entry.runEffect,
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

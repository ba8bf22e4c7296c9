/**
 * Small helpers that keep each action entry short without hiding its literal name or payload.
 * An entry says only what differs from the defaults below; the command type is written once
 * (it is the action id unless the entry names another).
 */

import { ConnectorError } from "@t3-connector/core";
import { z } from "zod";
import { compact, idString } from "./fields.js";
import type { Guard } from "./guards.js";
import type {
  ActionDefinition,
  ActionGroup,
  ActionTargets,
  BuiltPayload,
  DerivedIds,
  IdKind,
  RunEffect,
  ThreadRunView,
  WireLaunchInput,
} from "./types.js";

/** What most actions do: no derived id besides commandId, no pre-send check, no per-project queue. */
const ACTION_DEFAULTS = {
  extraIds: [],
  guards: [],
  serializeByProject: false,
} as const satisfies Pick<ActionDefinition, "extraIds" | "guards" | "serializeByProject">;

/** The fields every entry states, and the ones it states only when it differs from the defaults. */
interface ActionSpec<A extends string, S extends z.ZodType> {
  readonly action: A;
  readonly label: string;
  readonly group: ActionGroup;
  readonly description: string;
  readonly inputSchema: S;
  readonly extraIds?: readonly Exclude<IdKind, "commandId">[];
  readonly guards?: readonly Guard[];
  readonly runtimeModeField?: string;
  /** Required: how the action relates to an agent's run (ADR 0037). No entry compiles without it. */
  readonly runEffect: RunEffect;
  readonly serializeByProject?: boolean;
  readonly ceilingAdvice?: string;
}

/** Where the ceiling looks and when it applies; method syntax keeps parameters bivariant. */
interface RunEffectSpec<S extends z.ZodType> {
  drives?(input: z.output<S>): readonly string[];
  effectHolds?(input: z.output<S>, thread: ThreadRunView): boolean;
}

/**
 * What the write touches. An input with a `threadId` touches that one thread unless the entry says
 * otherwise; any other input must say. (Method syntax: parameters stay bivariant so every entry
 * fits one table type.)
 */
type TargetsSpec<S extends z.ZodType> =
  z.output<S> extends { readonly threadId: string }
    ? { targets?(input: z.output<S>): ActionTargets }
    : { targets(input: z.output<S>): ActionTargets };

/** An action sent as one `orchestration.dispatchCommand`. */
export type DispatchActionSpec<A extends string, S extends z.ZodType> = ActionSpec<A, S> &
  TargetsSpec<S> &
  RunEffectSpec<S> & {
    /** The T3 command `type`, only when it is not the action id itself. */
    readonly commandType?: string;
    /** The command's own fields; `type` and `commandId` are added, undefined fields left out. */
    fields(input: z.output<S>, ids: DerivedIds): Record<string, unknown>;
  };

/** An action sent as `orchestration.launchThread` (an RPC, not a command). */
export type LaunchActionSpec<A extends string, S extends z.ZodType> = ActionSpec<A, S> &
  TargetsSpec<S> &
  RunEffectSpec<S> & {
    launch(input: z.output<S>, ids: DerivedIds): WireLaunchInput;
  };

/** The default target: the one thread the input names. */
function theInputThread(input: unknown): ActionTargets {
  return oneThread((input as { threadId: string }).threadId);
}

export function defineAction<const A extends string, S extends z.ZodType>(
  spec: DispatchActionSpec<A, S>,
): ActionDefinition<A, S> {
  return defineCommandAction(spec, "dispatch");
}

/** An action sent as one `projects.mutate` (project admin; the mutation type is named by the entry). */
export function defineProjectAction<const A extends string, S extends z.ZodType>(
  spec: DispatchActionSpec<A, S> & { readonly commandType: string },
): ActionDefinition<A, S> {
  return defineCommandAction(spec, "project");
}

/** A command (`{type, commandId, ...fields}`) sent by `dispatchCommand` or by `projects.mutate`. */
function defineCommandAction<const A extends string, S extends z.ZodType>(
  spec: DispatchActionSpec<A, S>,
  payloadKind: "dispatch" | "project",
): ActionDefinition<A, S> {
  const { fields, commandType = spec.action, targets = theInputThread, drives, ...rest } = spec;
  const build = (input: z.output<S>, ids: DerivedIds): BuiltPayload => {
    const built = dispatch(commandType, ids, fields(input, ids));
    if (payloadKind === "dispatch" || built.kind !== "dispatch") return built;
    return { kind: "project", mutation: built.command };
  };
  return Object.freeze({
    ...ACTION_DEFAULTS,
    ...rest,
    targets,
    drives: drives ?? ((input: z.output<S>) => targets(input).threadIds),
    commandType,
    payloadKind,
    build,
  });
}

export function defineLaunchAction<const A extends string, S extends z.ZodType>(
  spec: LaunchActionSpec<A, S>,
): ActionDefinition<A, S> {
  const { launch, targets = theInputThread, drives, ...rest } = spec;
  return Object.freeze({
    ...ACTION_DEFAULTS,
    ...rest,
    targets,
    drives: drives ?? ((input: z.output<S>) => targets(input).threadIds),
    commandType: null,
    payloadKind: "launch",
    build: (input: z.output<S>, ids: DerivedIds): BuiltPayload => ({
      kind: "launch",
      input: compact(launch(input, ids)),
    }),
  });
}

/** `{threadId}` plus the given fields, strict. */
export function threadInput<T extends z.ZodRawShape>(fields: T) {
  return z.strictObject({ threadId: idString, ...fields });
}
export const threadOnlyInput = threadInput({});

export function oneThread(threadId: string): ActionTargets {
  return { threadIds: [threadId], projectIds: [] };
}

/** A dispatch of `{type, commandId, ...fields}`; undefined fields are left out. */
export function dispatch(type: string, ids: DerivedIds, fields: Record<string, unknown>): BuiltPayload {
  return { kind: "dispatch", command: compact({ type, commandId: ids.commandId, ...fields }) };
}

/** A derived id the action declared; its absence is a wiring bug, never a reason to invent one. */
export function requireId(ids: DerivedIds, kind: Exclude<IdKind, "commandId">, action: string): string {
  const value = ids[kind];
  if (value === undefined) throw new ConnectorError("internal", `${action} needs a derived ${kind}`);
  return value;
}

/** Provenance of commands the connector creates on a person's behalf. */
export const PROVENANCE = { createdBy: "user", creationSource: "mcp" } as const;

/** Small helpers that keep each action entry short without hiding its literal name or payload. */

import { ConnectorError } from "@t3-connector/core";
import { z } from "zod";
import { compact, idString } from "./fields.js";
import type {
  ActionDefinition,
  ActionTargets,
  BuiltPayload,
  DerivedIds,
  IdKind,
  WriteAnnotations,
} from "./types.js";

export function defineAction<const A extends string, S extends z.ZodType>(
  definition: ActionDefinition<A, S>,
): ActionDefinition<A, S> {
  return Object.freeze(definition);
}

export function hints(destructive: boolean): WriteAnnotations {
  return { readOnlyHint: false, destructiveHint: destructive, idempotentHint: true, openWorldHint: false };
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

import { ConnectorError, type T3ErrorDetail } from "../../errors.js";
import { parseAcceptedCommandTypes } from "../decode-defect.js";

/**
 * Reading an Effect `Cause` from an `Exit Failure`. A `Fail` is the method's typed error (the
 * server decided to refuse): it becomes `rpc_failure`, or `insufficient_scope` for a scope
 * refusal, and is never mistaken for a lost connection. A `Die` is a defect (a payload that did
 * not decode, an unknown method): `protocol_error`. An `Interrupt` is `cancelled`.
 */
export type CauseEntry =
  | { _tag: "Fail"; error: unknown }
  | { _tag: "Die"; defect: unknown }
  | { _tag: "Interrupt"; fiberId?: unknown };

const MAX_MESSAGE_CHARS = 2000;

/** Flattens the JSON cause (an array in effect v4; nested `Sequential`/`Parallel` in older ones). */
export function causeEntries(cause: unknown): CauseEntry[] {
  if (Array.isArray(cause)) return cause.flatMap(causeEntries);
  if (typeof cause !== "object" || cause === null) return [];
  const record = cause as Record<string, unknown>;
  switch (record._tag) {
    case "Fail":
      return [{ _tag: "Fail", error: record.error }];
    case "Die":
      return [{ _tag: "Die", defect: record.defect }];
    case "Interrupt":
      return [{ _tag: "Interrupt", fiberId: record.fiberId }];
    case "Sequential":
    case "Parallel":
      return [...causeEntries(record.left), ...causeEntries(record.right)];
    default:
      return [];
  }
}

export function errorFromCause(method: string, cause: unknown): ConnectorError {
  const entries = causeEntries(cause);
  const fail = entries.find((entry) => entry._tag === "Fail");
  if (fail) return errorFromTypedFailure(method, fail.error);
  const die = entries.find((entry) => entry._tag === "Die");
  if (die) {
    const described = describeDefect(die.defect);
    const defect = clip(described);
    // Read before clipping: a newer server's listing of accepted command types may be long.
    const acceptedCommandTypes = parseAcceptedCommandTypes(described);
    return new ConnectorError("protocol_error", `${method}: the server reported a defect: ${defect}`, {
      details: { method, defect, ...(acceptedCommandTypes === undefined ? {} : { acceptedCommandTypes }) },
    });
  }
  if (entries.some((entry) => entry._tag === "Interrupt")) {
    return new ConnectorError("cancelled", `${method}: the server interrupted the request`, {
      details: { method },
    });
  }
  return new ConnectorError("protocol_error", `${method}: the server sent a failure without a cause`, {
    details: { method },
  });
}

/** Whether a cause only says "interrupted" (what a stream we interrupted ends with). */
export function isInterruptOnly(cause: unknown): boolean {
  const entries = causeEntries(cause);
  return entries.length > 0 && entries.every((entry) => entry._tag === "Interrupt");
}

function errorFromTypedFailure(method: string, error: unknown): ConnectorError {
  const record = typeof error === "object" && error !== null ? (error as Record<string, unknown>) : {};
  const tag = typeof record._tag === "string" ? record._tag : undefined;
  const message = typeof record.message === "string" ? clip(record.message) : undefined;
  const t3: T3ErrorDetail = {};
  if (tag) t3.tag = tag;
  if (typeof record.code === "string") t3.code = record.code;
  if (typeof record.reason === "string") t3.reason = record.reason;
  if (typeof record.requiredScope === "string") t3.requiredScope = record.requiredScope;
  // Only scalar fields travel on: T3's nested `cause` leaks server internals (surprise 11).
  const details: Record<string, unknown> = { method };
  for (const [key, value] of Object.entries(record)) {
    if (key === "cause" || key === "_tag") continue;
    if (typeof value === "string") details[key] = clip(value);
    else if (typeof value === "number" || typeof value === "boolean") details[key] = value;
  }
  const orchestrator = orchestratorErrorOf(record.cause);
  if (orchestrator !== undefined) Object.assign(details, orchestrator);
  const checkpoint = checkpointErrorOf(record.cause);
  if (checkpoint !== undefined) Object.assign(details, checkpoint);
  const said = `${tag ?? "typed error"}${message ? `: ${message}` : ""}`;
  if (tag === "EnvironmentAuthorizationError") {
    return new ConnectorError("insufficient_scope", `${method}: the token lacks a scope (${said})`, {
      t3,
      details,
    });
  }
  return new ConnectorError("rpc_failure", `${method} failed: ${said}`, { t3, details });
}

/** The fields of a typed orchestrator error that may travel on (scalars naming modes and threads). */
const ORCHESTRATOR_FIELDS = [
  "mode",
  "runtimeMode",
  "interactionMode",
  "detail",
  "receiptThreadId",
  "commandThreadId",
] as const;

/**
 * The innermost `Orchestrator…Error` of T3's nested `cause` chain: its name (as
 * `orchestratorError`) and its own scalar fields, nothing else of the chain. How newer servers
 * render these in a `Fail` is not verified (docs/t3-protocol-notes.md); unknown shapes give nothing.
 */
function orchestratorErrorOf(cause: unknown): Record<string, string> | undefined {
  let found: Record<string, unknown> | undefined;
  let current = cause;
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    const record = current as Record<string, unknown>;
    if (typeof record.name === "string" && /^Orchestrator\w+Error$/.test(record.name)) found = record;
    current = record.cause;
  }
  if (found === undefined) return undefined;
  const fields: Record<string, string> = { orchestratorError: String(found.name) };
  for (const key of ORCHESTRATOR_FIELDS) {
    const value = found[key];
    if (typeof value === "string") fields[key] = clip(value);
  }
  return fields;
}

/**
 * A diff RPC's `Checkpoint…Error` cause (fixtures 75, 124, 133): its name and the turn count it
 * names, which say whether the range is past the latest checkpoint or a ref is gone. Nothing else
 * of the cause travels (its message names server paths in other errors).
 */
function checkpointErrorOf(cause: unknown): Record<string, string | number> | undefined {
  if (typeof cause !== "object" || cause === null) return undefined;
  const record = cause as Record<string, unknown>;
  if (typeof record.name !== "string" || !/^Checkpoint\w+Error$/.test(record.name)) return undefined;
  const turn = typeof record.message === "string" ? /\bturn (\d+):/.exec(record.message)?.[1] : undefined;
  return { checkpointError: record.name, ...(turn === undefined ? {} : { turn: Number(turn) }) };
}

function describeDefect(defect: unknown): string {
  if (typeof defect === "string") return defect;
  try {
    return JSON.stringify(defect) ?? "unknown defect";
  } catch {
    return "unknown defect";
  }
}

function clip(text: string): string {
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}…` : text;
}

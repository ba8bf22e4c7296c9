import { findReservedKeys, isTooDeep, MAX_JSON_INPUT_DEPTH } from "@t3-connector/core/schema";
import type * as z from "zod";
import { type ToolErrorResult, toolErrorResult } from "./tool-error-result.js";

/**
 * Input validation of MCP tool calls, shared by the read server and the write bridge.
 *
 * The negotiated MCP revision (2025-11-25, SEP-1303) treats a bad argument as a tool execution
 * error, not a JSON-RPC protocol error: the model then reads the text and can correct its call.
 * So a failed check becomes a tool result with `isError: true`, a text naming the code and the
 * fix (ADR 0004), and the same facts as fields in `_meta["t3-connector/error"]` (ADR 0021: not in
 * `structuredContent`, which clients check against the tool's output schema). An unknown tool name
 * stays a protocol error: there is no tool whose result could carry it.
 */
export const TOOL_INPUT_ERROR_CODE = "invalid_input";

export interface ToolInputError {
  code: typeof TOOL_INPUT_ERROR_CODE;
  /** What is wrong, one clause per problem, each naming its parameter. */
  message: string;
  /** How to fix the call, said once. */
  hint: string;
}

/** A refused input as a tool result; structurally a `CallToolResult` of the SDK. */
export type ToolInputErrorResult = ToolErrorResult;

export type ToolInputCheck<T> = { ok: true; data: T } | { ok: false; error: ToolInputError };

/**
 * Validates `rawArguments` (as the client sent them, `null` and non-objects included) against a
 * tool's strict input schema. `legacyKeys` maps old parameter names to their replacements, which
 * are named in the hint only: an old key is still refused.
 */
export async function checkToolInput<S extends z.ZodType>(
  toolName: string,
  schema: S,
  rawArguments: unknown,
  legacyKeys: Readonly<Record<string, string>> = {},
): Promise<ToolInputCheck<z.output<S>>> {
  if (rawArguments !== undefined && !isPlainObject(rawArguments)) {
    const got =
      rawArguments === null ? "null" : Array.isArray(rawArguments) ? "an array" : typeof rawArguments;
    return {
      ok: false,
      error: {
        code: TOOL_INPUT_ERROR_CODE,
        message: `${toolName} takes an object of named arguments, not ${got}`,
        hint: `Send "arguments" as a JSON object ({} when you set no parameter).`,
      },
    };
  }
  // Before anything that walks the value recursively (the reserved-key scan, the schema), which a
  // deep enough value would take past the stack's end.
  if (isTooDeep(rawArguments)) {
    return {
      ok: false,
      error: {
        code: TOOL_INPUT_ERROR_CODE,
        message: `${toolName}: the arguments are nested deeper than ${MAX_JSON_INPUT_DEPTH} levels`,
        hint: `Send the parameters the tool takes, each as flat as its schema says. ${schemaHint(toolName)}`,
      },
    };
  }
  const reserved = findReservedKeys(rawArguments);
  if (reserved.length > 0) {
    const names = reserved.map((path) => `"${path}"`);
    return {
      ok: false,
      error: {
        code: TOOL_INPUT_ERROR_CODE,
        message: `${toolName}: ${names.map((name) => `${name} is not a parameter`).join("; ")}`,
        hint: `Remove ${names.join(", ")}. ${schemaHint(toolName)}`,
      },
    };
  }
  const parsed = await schema.safeParseAsync(rawArguments ?? {});
  if (parsed.success) return { ok: true, data: parsed.data };
  return { ok: false, error: describeInputIssues(toolName, parsed.error, legacyKeys) };
}

/** One message listing every problem and one hint saying what to change. */
export function describeInputIssues(
  toolName: string,
  error: z.ZodError,
  legacyKeys: Readonly<Record<string, string>> = {},
): ToolInputError {
  const problems: string[] = [];
  const renames: string[] = [];
  const unknown: string[] = [];
  for (const issue of error.issues) {
    const where = issue.path.length === 0 ? "" : issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const name = where === "" ? key : `${where}.${key}`;
        const replacement = Object.hasOwn(legacyKeys, key) ? legacyKeys[key] : undefined;
        problems.push(`"${name}" is not a parameter`);
        if (replacement !== undefined) renames.push(`"${key}" is now "${replacement}"`);
        else unknown.push(`"${name}"`);
      }
      continue;
    }
    problems.push(`${where === "" ? "arguments" : `"${where}"`}: ${issue.message}`);
  }
  const hints: string[] = [];
  if (renames.length > 0) hints.push(`Rename: ${renames.join(", ")}.`);
  if (unknown.length > 0) hints.push(`Remove ${unknown.join(", ")}.`);
  if (problems.length > renames.length + unknown.length) {
    hints.push(
      `Fix the value${problems.length - renames.length - unknown.length > 1 ? "s" : ""} named above.`,
    );
  }
  hints.push(schemaHint(toolName));
  return {
    code: TOOL_INPUT_ERROR_CODE,
    message: `${toolName}: ${problems.join("; ")}`,
    hint: hints.join(" "),
  };
}

/** The tool result for a failed input check: `<code>: <message>. <hint>` and the same facts in `_meta`. */
export function toolInputErrorResult(error: ToolInputError): ToolInputErrorResult {
  return toolErrorResult(error);
}

function schemaHint(toolName: string): string {
  return `The tool's input schema (tools/list) lists every parameter of ${toolName}; call it again.`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

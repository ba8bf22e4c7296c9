/** Parsers for option values and JSON inputs; a bad value is invalid_input, before any read. */
import { ConnectorError } from "@t3-connector/core";
import type { Ops } from "../ops.js";

export function parseJsonInput(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConnectorError("invalid_input", `${what} is not valid JSON: ${(error as Error).message}`);
  }
}

/** `--option id=value`, repeatable; "true" and "false" become booleans. */
export function collectOption(value: string, previous: { id: string; value: string | boolean }[]) {
  const equals = value.indexOf("=");
  if (equals <= 0) throw new ConnectorError("invalid_input", `--option needs id=value, got "${value}"`);
  const raw = value.slice(equals + 1);
  const parsed = raw === "true" ? true : raw === "false" ? false : raw;
  return [...previous, { id: value.slice(0, equals), value: parsed }];
}

/** A commander parser for an integer option. */
export function integerOption(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (value.trim() === "" || !Number.isInteger(parsed)) {
      throw new ConnectorError("invalid_input", `${name} needs an integer, got "${value}"`);
    }
    return parsed;
  };
}

/** The named environment, or the only one configured (see OpsEnvironments.implicit). */
export function requireEnv(env: string | undefined, ops: Ops): string {
  return ops.environments.implicit(env);
}

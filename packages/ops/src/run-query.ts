/**
 * `runQuery`, with the read tools loaded on its first call: ops' module graph stays free of the
 * read server until a command reads through it (`ls` with nothing configured starts as fast as
 * `--version`, bench/ops-startup.mjs).
 */
import type { OpsEnvironments } from "./environments.js";

export async function runQuery(
  environments: OpsEnvironments,
  environment: string,
  name: string,
  input: unknown,
  signal?: AbortSignal,
): Promise<unknown> {
  const queries = await import("./queries.js");
  return queries.runQuery(environments, environment, name, input, signal);
}

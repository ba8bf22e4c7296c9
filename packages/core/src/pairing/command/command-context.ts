import { type CliIo, configPathContext, writeJson } from "../../cli-support/index.js";
import { ConnectorError } from "../../errors.js";
import { nodeHttpFetch, type T3Fetch } from "../../t3/node-http-fetch.js";
import { environmentsOf } from "../add-environment.js";
import type { ConfiguredEnvironment, EnvironmentsConfigKind, LoadedEnvironments } from "./config-kinds.js";

/** Who runs an environments command: which file's kind, the CLI's I/O, and the file when named. */
export interface EnvironmentsCommandContext {
  kind: EnvironmentsConfigKind;
  io: CliIo;
  /** The file to work on; default: the kind's path from the CLI's environment (ops' `--config`). */
  configPath?: string;
}

/**
 * What every environments command answers, in every CLI: one JSON document for stdout and the
 * exit code (0, or 1 when the command ran but what it checked is not well, e.g. a token that does
 * not work at a moved address). Refusals are thrown as `ConnectorError`s, as everywhere.
 */
export interface EnvironmentsReport {
  value: Record<string, unknown>;
  exitCode: 0 | 1;
}

/** How the read and write CLIs print a report; ops hands it to its session (JSON either way). */
export function printReport(
  io: Pick<CliIo, "stdout">,
  report: EnvironmentsReport & { text?: string },
): number {
  // A report that has words for a terminal (`diagnose --deep` without `--json`) prints them.
  if (report.text !== undefined) io.stdout.write(report.text);
  else writeJson(io as CliIo, report.value);
  return report.exitCode;
}

export function configPathOf(context: EnvironmentsCommandContext): string {
  return context.configPath ?? context.kind.defaultPath(configPathContext(context.io));
}

export function homeOf(io: CliIo): { homeDir?: string } {
  return io.homeDir === undefined ? {} : { homeDir: io.homeDir };
}

export function fetchOf(io: CliIo): T3Fetch {
  return io.fetch ?? nodeHttpFetch;
}

/** The file's own check of a document this command writes. */
export function validatorOf(context: EnvironmentsCommandContext, path: string): (document: unknown) => void {
  return (document) => {
    context.kind.parse(document, { path, ...homeOf(context.io) });
  };
}

/** The configured file as its CLI loads it. */
export function loadEnvironments(context: EnvironmentsCommandContext): Promise<LoadedEnvironments> {
  return context.kind.load(configPathContext(context.io), context.configPath);
}

/** The environment named by alias, an extra name (ops) or environmentId; never another one. */
export function findConfigured(loaded: LoadedEnvironments, reference: string): ConfiguredEnvironment {
  const { environments } = loaded;
  const found =
    environments.find((env) => env.alias === reference) ??
    environments.find((env) => env.aliases?.includes(reference) === true) ??
    environments.find((env) => env.environmentId === reference);
  if (found !== undefined) return found;
  const aliases = environments.flatMap((env) => [env.alias, ...(env.aliases ?? [])]);
  throw new ConnectorError(
    "environment_unknown",
    `unknown environment "${reference}"; configured: ${aliases.join(", ")}`,
    { details: { aliases } },
  );
}

/** A new entry in the document (the same keys in every file, then the kind's own). */
export function withEntry(
  document: Record<string, unknown>,
  alias: string,
  keys: Record<string, unknown>,
): Record<string, unknown> {
  return { ...document, environments: { ...environmentsOf(document), [alias]: keys } };
}

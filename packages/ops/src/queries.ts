/**
 * `query <name>`: the read server's own tools by a stable name, run in exactly one environment.
 * The input goes through the tool's strict schema (same codes as over MCP) after `environment`
 * is set to the chosen environment, so a query never sweeps the others.
 */
import { ConnectorError } from "@t3-connector/core";
import type { ReadConfig } from "@t3-connector/core/config";
import { createCursorCodec } from "@t3-connector/core/pagination";
import {
  type ReadContext,
  type ReadToolDefinition,
  readToolDefinitions,
} from "@t3-connector/read-server/tools";
import type { OpsEnvironments, ResolvedEnvironment } from "./environments.js";
import { readShell } from "./listing.js";
import { isQueryName, QUERY_NAMES, QUERY_TOOLS, type QueryName } from "./query-names.js";

export function queryTool(name: QueryName): ReadToolDefinition {
  const tool = readToolDefinitions.find((definition) => definition.name === QUERY_TOOLS[name]);
  if (tool === undefined) throw new Error(`read tool ${QUERY_TOOLS[name]} is missing`);
  return tool;
}

/**
 * A read context where only `env` shows anything: every project of `env` (the operator's own
 * environment, no ACL narrower than the token), none of the others.
 */
async function readContextFor(environments: OpsEnvironments, env: ResolvedEnvironment): Promise<ReadContext> {
  const { shell } = await readShell(env);
  const projectIds = shell.projects.map((project) => project.id);
  const config: ReadConfig = {
    path: environments.config.path,
    default: env.config.alias,
    environments: environments.config.environments.map((entry) => ({
      alias: entry.alias,
      environmentId: entry.environmentId,
      transport: entry.transport,
      tokenFile: entry.tokenFile,
      allowedProjects: entry.alias === env.config.alias ? projectIds : [],
    })),
  };
  return {
    clock: environments.clock,
    log: () => undefined,
    config,
    registry: environments.registry,
    cursors: createCursorCodec(),
    // A person at a terminal can wait longer than a model's tool call.
    limits: { concurrency: 1, perEnvironmentTimeoutMs: 20_000, totalTimeoutMs: 30_000 },
  };
}

function withEnvironment(name: QueryName, input: unknown, alias: string): Record<string, unknown> {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new ConnectorError("invalid_input", "the query input must be a JSON object");
  }
  const record = { ...(input as Record<string, unknown>) };
  if (name === "read_batch" && Array.isArray(record.items)) {
    record.items = record.items.map((item) =>
      item !== null && typeof item === "object" ? { ...item, environment: alias } : item,
    );
    return record;
  }
  return { ...record, environment: alias };
}

/** Runs one read in one environment; returns exactly what the MCP tool returns. */
export async function runQuery(
  environments: OpsEnvironments,
  environment: string,
  name: string,
  input: unknown,
  signal: AbortSignal = new AbortController().signal,
): Promise<unknown> {
  if (!isQueryName(name)) {
    throw new ConnectorError("invalid_input", `unknown query "${name}"; one of ${QUERY_NAMES.join(", ")}`, {
      details: { queries: QUERY_NAMES },
    });
  }
  const env = environments.resolve(environment);
  const tool = queryTool(name);
  const parsed = tool.inputSchema.safeParse(withEnvironment(name, input, env.config.alias));
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new ConnectorError(
      "invalid_input",
      first === undefined ? "invalid input" : `${first.path.join(".") || "input"}: ${first.message}`,
      {
        details: {
          query: name,
          issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })),
        },
      },
    );
  }
  const context = await readContextFor(environments, env);
  return tool.handler(context, parsed.data, { signal });
}

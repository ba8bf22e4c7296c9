import type { ReadEnvironmentConfig } from "@t3-connector/core/config";
import * as z from "zod";
import type { ReadContext } from "../read-context.js";
import { defineReadTool, READ_ONLY_ANNOTATIONS } from "../read-tool.js";
import { readScope } from "../scope/read-scope.js";

const inputSchema = z.strictObject({
  check: z
    .boolean()
    .optional()
    .describe("Connect to each environment to report availability (default true)."),
});

const environmentSchema = z.object({
  alias: z.string(),
  environmentId: z.string(),
  transport: z.string(),
  allowedProjectCount: z.number().int().min(0),
  available: z.boolean().optional(),
  name: z.string().nullable().optional(),
  version: z.string().nullable().optional(),
  error: z.object({ code: z.string(), reason: z.string() }).optional(),
});
type EnvironmentEntry = z.output<typeof environmentSchema>;

const outputSchema = z.object({ environments: z.array(environmentSchema) });

export const t3AmbientesTool = defineReadTool({
  name: "t3_ambientes",
  title: "List environments",
  description:
    "Lists the configured T3 environments (alias, environmentId, transport, number of authorized projects) and, " +
    "unless check is false, whether each answers now. There is no default environment: listings without " +
    "environment read all of them; pass an alias or environmentId to restrict a read to one.",
  inputSchema,
  outputSchema,
  annotations: READ_ONLY_ANNOTATIONS,
  async handler(context, input, extra) {
    const entries = context.config.environments.map(describeEnvironment);
    if (input.check === false) return { environments: entries };
    return { environments: await withAvailability(context, entries, extra.signal) };
  },
});

function describeEnvironment(environment: ReadEnvironmentConfig): EnvironmentEntry {
  const { transport } = environment;
  return {
    alias: environment.alias,
    environmentId: environment.environmentId,
    transport: transport.kind === "url" ? "url" : `ssh ${transport.host}`,
    allowedProjectCount: environment.allowedProjects.length,
  };
}

/**
 * Connecting (descriptor, identity and token scopes) is the whole check: it goes through the
 * sweep, so each environment gets the per-environment deadline and failures come back with the
 * same sanitized codes and reasons as every listing.
 */
async function withAvailability(
  context: ReadContext,
  entries: EnvironmentEntry[],
  signal: AbortSignal,
): Promise<EnvironmentEntry[]> {
  const { results, envelope } = await readScope(
    context,
    undefined,
    async ({ connection }) => ({ name: connection.name, version: connection.version }),
    { signal, countFound: () => 0 },
  );
  return entries.map((entry) => {
    const answered = results.find((result) => result.environment.environmentId === entry.environmentId);
    if (answered !== undefined) return { ...entry, available: true, ...answered.value };
    const failure = envelope.environmentFailures.find((item) => item.environmentId === entry.environmentId);
    return {
      ...entry,
      available: false,
      error: failure
        ? { code: failure.code, reason: failure.reason }
        : { code: "failed", reason: "the environment was not checked" },
    };
  });
}

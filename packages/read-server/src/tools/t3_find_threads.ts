/**
 * `t3_find_threads` (ADR 0074): up to 50 queries answered from one shell read per environment, so
 * a model that must act on "these seven threads" learns in one call which ones it names for sure.
 * A query is a threadId or a part of a title, case and accents ignored. Per query:
 * - `resolved`: one thread (an exact id, else the one thread whose whole title matches, else the
 *   one thread whose title or id contains it);
 * - `ambiguous`: several candidates, never picked by order or recency;
 * - `not_found`: every environment answered and none has a match;
 * - `inconclusive`: an environment did not answer, so any answer could be missing a thread.
 */
import {
  matchesNormalizedExactTitle,
  matchesNormalizedSearch,
  normalizeSearchable,
  normalizeSearchTerm,
} from "@t3-connector/core/search";
import type { ThreadShell } from "@t3-connector/core/t3";
import {
  envelopeFields,
  projectsById,
  searchableThreads,
  type ThreadItem,
  threadItem,
} from "@t3-connector/mcp-tools/read-answers";
import {
  calledEnvironmentSchema,
  environmentInput,
  scopeEnvelopeShape,
  threadItemSchema,
} from "@t3-connector/mcp-tools/read-contracts";
import * as z from "zod";
import { sweepShells } from "../listing/shells.js";
import { defineReadTool, READ_ONLY_ANNOTATIONS } from "../read-tool.js";

const TOOL = "t3_find_threads";
export const MAX_FIND_QUERIES = 50;
const DEFAULT_CANDIDATES = 5;
const MAX_CANDIDATES = 20;

const inputSchema = z.strictObject({
  queries: z
    .array(z.string().trim().min(1).max(1024))
    .min(1)
    .max(MAX_FIND_QUERIES)
    .describe("1-50 threadIds or parts of titles (case and accents ignored)."),
  environment: environmentInput,
  candidates: z
    .number()
    .int()
    .min(1)
    .max(MAX_CANDIDATES)
    .optional()
    .describe("At most this many candidates per query (1-20, default 5)."),
});

const RESOLUTIONS = ["resolved", "ambiguous", "not_found", "inconclusive"] as const;
const foundThreadSchema = threadItemSchema.extend({ archived: z.boolean() });

const outputSchema = z.object({
  environment: calledEnvironmentSchema.optional(),
  complete: z.boolean(),
  queriedEnvironments: scopeEnvelopeShape.queriedEnvironments,
  environmentFailures: scopeEnvelopeShape.environmentFailures,
  summary: z.object(Object.fromEntries(RESOLUTIONS.map((name) => [name, z.number().int().min(0)]))),
  results: z.array(
    z.object({
      index: z.number().int().min(0),
      query: z.string(),
      resolution: z.enum(RESOLUTIONS),
      /** How the candidates matched: the id, the whole title, or a part of title or id. */
      matchedBy: z.enum(["threadId", "title", "partial"]).nullable(),
      thread: foundThreadSchema.optional(),
      total: z.number().int().min(0),
      candidates: z.array(foundThreadSchema),
      truncated: z.boolean(),
    }),
  ),
});

type FoundThread = ThreadItem & { archived: boolean };
type MatchKind = "threadId" | "title" | "partial";

interface Row {
  readonly environmentId: string;
  readonly threadId: string;
  readonly kind: MatchKind;
  summarize(): FoundThread;
}

/** The strongest kind of match of one query against one thread, or null. */
function matchOf(query: string, normalized: string | undefined, thread: ThreadShell): MatchKind | null {
  if (thread.id === query) return "threadId";
  if (normalized === undefined) return null;
  const text = normalizeSearchable({ id: thread.id, title: thread.title });
  if (matchesNormalizedExactTitle(normalized, text)) return "title";
  return matchesNormalizedSearch(normalized, text) ? "partial" : null;
}

const STRENGTH: Readonly<Record<MatchKind, number>> = { threadId: 3, title: 2, partial: 1 };

export const t3FindThreadsTool = defineReadTool({
  name: TOOL,
  title: "Find several threads at once",
  description:
    "Answers up to 50 queries (a threadId or part of a title, case and accents ignored) from one read per " +
    "environment, archived threads included. Each query is resolved (one thread), ambiguous (its candidates: " +
    "ask the user, never pick by order or recency), not_found, or inconclusive (an environment did not answer, " +
    "so a thread may be missing). Act only on resolved ones.",
  inputSchema,
  outputSchema,
  annotations: READ_ONLY_ANNOTATIONS,
  async handler(context, input, extra) {
    const now = context.clock.now();
    const queries = input.queries.map((query) => ({ query, normalized: normalizeSearchTerm(query) }));
    const { results, envelope } = await sweepShells(
      context,
      input.environment,
      extra.signal,
      (view) => {
        const projects = projectsById(view);
        const perQuery: Row[][] = queries.map(() => []);
        for (const { thread, archived } of searchableThreads(view)) {
          queries.forEach(({ query, normalized }, index) => {
            const kind = matchOf(query, normalized, thread);
            if (kind === null) return;
            perQuery[index]?.push({
              environmentId: view.environment.environmentId,
              threadId: thread.id,
              kind,
              summarize: () => ({
                ...threadItem(view.environment, thread, now, projects.get(thread.projectId)),
                archived,
              }),
            });
          });
        }
        return perQuery;
      },
      (value) => value.reduce((sum, rows) => sum + rows.length, 0),
      { withArchive: true },
    );
    const { environment, complete, ...scope } = envelopeFields(envelope);
    const limit = input.candidates ?? DEFAULT_CANDIDATES;
    const answers = queries.map(({ query }, index) => {
      const all = results.flatMap((result) => result.value[index] ?? []);
      // Only the strongest kind counts: an exact id or whole title beats a part of another title.
      const best = Math.max(0, ...all.map((row) => STRENGTH[row.kind]));
      const rows = all
        .filter((row) => STRENGTH[row.kind] === best)
        .sort((a, b) =>
          a.environmentId === b.environmentId
            ? a.threadId.localeCompare(b.threadId)
            : a.environmentId.localeCompare(b.environmentId),
        );
      const resolution = !complete
        ? "inconclusive"
        : rows.length === 0
          ? "not_found"
          : rows.length === 1
            ? "resolved"
            : "ambiguous";
      const shown = rows.slice(0, limit).map((row) => row.summarize());
      const only = resolution === "resolved" ? shown[0] : undefined;
      return {
        index,
        query,
        resolution,
        matchedBy: rows[0]?.kind ?? null,
        ...(only === undefined ? {} : { thread: only }),
        total: rows.length,
        candidates: resolution === "resolved" ? [] : shown,
        truncated: rows.length > shown.length && resolution !== "resolved",
      } as const;
    });
    const summary = Object.fromEntries(
      RESOLUTIONS.map((name) => [name, answers.filter((answer) => answer.resolution === name).length]),
    );
    return {
      ...(environment === undefined ? {} : { environment }),
      complete,
      ...scope,
      summary,
      results: answers,
    };
  },
});

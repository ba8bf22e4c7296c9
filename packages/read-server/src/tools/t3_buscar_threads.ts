import { ConnectorError } from "@t3-connector/core";
import type { PageOrder } from "@t3-connector/core/pagination";
import {
  matchesNormalizedExactTitle,
  matchesNormalizedSearch,
  type NormalizedSearchable,
  normalizeSearchable,
  normalizeSearchTerm,
} from "@t3-connector/core/search";
import type { ThreadShell } from "@t3-connector/core/t3";
import {
  checkCursor,
  envelopeFields,
  pageOf,
  projectsById,
  searchableThreads,
  type ThreadItem,
  threadItem,
} from "@t3-connector/mcp-tools/read-answers";
import {
  calledEnvironmentSchema,
  cursorInput,
  environmentInput,
  scopeEnvelopeShape,
  THREAD_PAGE_DEFAULT_LIMIT,
  THREAD_SEARCH_ORDER,
  threadItemSchema,
  threadPageLimitInput,
} from "@t3-connector/mcp-tools/read-contracts";
import * as z from "zod";
import { listingIdentity } from "../listing/paging.js";
import { sweepShells } from "../listing/shells.js";
import { defineReadTool, READ_ONLY_ANNOTATIONS } from "../read-tool.js";

const TOOL = "t3_buscar_threads";
const inputSchema = z.strictObject({
  search: z.string().min(1).optional().describe("Part of the title or threadId (case and accents ignored)."),
  threadId: z.string().min(1).optional().describe("An exact threadId, compared literally. Not with search."),
  match: z
    .enum(["partial", "exact"])
    .optional()
    .describe(
      "With search: partial (default, substring of title or ID) or exact (whole title, or the exact ID).",
    ),
  environment: environmentInput,
  limit: threadPageLimitInput,
  cursor: cursorInput,
});

const outputSchema = z.object({
  environment: calledEnvironmentSchema.optional(),
  total: z.number().int().min(0),
  search: z.string().optional(),
  match: z.enum(["partial", "exact"]).optional(),
  threadId: z.string().optional(),
  returned: z.number().int().min(0),
  truncated: z.boolean(),
  complete: z.boolean(),
  evidenceIncomplete: z.literal(true).optional(),
  nextCursor: z.string().optional(),
  queriedEnvironments: scopeEnvelopeShape.queriedEnvironments,
  environmentFailures: scopeEnvelopeShape.environmentFailures,
  threads: z.array(threadItemSchema.extend({ archived: z.boolean() })),
});

type Query =
  | { mode: "threadId"; term: string }
  | { mode: "partial" | "exact"; term: string; normalized: string };

type FoundThread = ThreadItem & { archived: boolean };

export const t3BuscarThreadsTool = defineReadTool({
  name: TOOL,
  title: "Find threads",
  description:
    "Finds threads by part of the title or ID (search) or by exact threadId, across every environment unless " +
    "environment is given, including archived threads and threads that never ran. Each result names its " +
    "environment. When total > 1, ask the user which one; never pick by order, recency or a default environment. " +
    "complete:false means an environment did not answer, so an empty list does not prove absence.",
  inputSchema,
  outputSchema,
  annotations: READ_ONLY_ANNOTATIONS,
  async handler(context, input, extra) {
    const query = parseQuery(input);
    const now = context.clock.now();
    const identity = listingIdentity(
      context,
      TOOL,
      [query.mode, query.mode === "threadId" ? query.term : query.normalized],
      input.environment,
    );
    checkCursor(context, identity, input.cursor);

    const { results, envelope } = await sweepShells(
      context,
      input.environment,
      extra.signal,
      (view) => {
        const projects = projectsById(view);
        const rows = searchableThreads(view);
        // Only the page's rows are summarized (after paging): here a match is its row and key.
        const found: FoundRow[] = [];
        let untitled = 0;
        for (const { thread, archived } of rows) {
          if (query.mode !== "threadId" && !hasTitle(thread)) untitled += 1;
          if (!matches(query, thread)) continue;
          found.push({
            environmentId: view.environment.environmentId,
            threadId: thread.id,
            summarize: () => ({
              ...threadItem(view.environment, thread, now, projects.get(thread.projectId)),
              archived,
            }),
          });
        }
        return { found, untitled };
      },
      (value) => value.found.length,
      { withArchive: true },
    );

    // A title search cannot vouch for rows that carry no title: it may have missed them.
    const evidenceIncomplete = results.some((result) => result.value.untitled > 0);
    const page = pageOf(
      context,
      identity,
      envelope,
      results.flatMap((result) => result.value.found),
      FOUND_ROW_ORDER,
      { cursor: input.cursor, limit: input.limit ?? THREAD_PAGE_DEFAULT_LIMIT },
    );
    const { environment, complete, ...scope } = envelopeFields(envelope);
    return {
      ...(environment === undefined ? {} : { environment }),
      total: page.total,
      ...(query.mode === "threadId" ? { threadId: query.term } : { search: query.term, match: query.mode }),
      returned: page.returned,
      truncated: page.truncated,
      complete: complete && !evidenceIncomplete,
      ...(evidenceIncomplete ? { evidenceIncomplete: true as const } : {}),
      ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
      ...scope,
      threads: page.items.map((row) => row.summarize()),
    };
  },
});

function parseQuery(input: {
  search?: string | undefined;
  threadId?: string | undefined;
  match?: "partial" | "exact" | undefined;
}): Query {
  const { search, threadId, match } = input;
  if ((search === undefined) === (threadId === undefined)) {
    throw new ConnectorError("invalid_input", "give exactly one of search or threadId");
  }
  if (threadId !== undefined) {
    if (match !== undefined) {
      throw new ConnectorError(
        "invalid_input",
        "match applies to search only; a threadId is always compared exactly",
      );
    }
    return { mode: "threadId", term: threadId };
  }
  const normalized = normalizeSearchTerm(search);
  if (search === undefined || normalized === undefined) {
    throw new ConnectorError("invalid_input", "search must contain more than whitespace");
  }
  return { mode: match ?? "partial", term: search, normalized };
}

function hasTitle(thread: ThreadShell): boolean {
  return typeof thread.title === "string" && thread.title.trim() !== "";
}

function matches(query: Query, thread: ThreadShell): boolean {
  switch (query.mode) {
    case "threadId":
      return thread.id === query.term;
    case "exact":
      return (
        thread.id === query.term.trim() || matchesNormalizedExactTitle(query.normalized, searchTextOf(thread))
      );
    case "partial":
      return matchesNormalizedSearch(query.normalized, searchTextOf(thread));
  }
}

/**
 * A row's id and title normalised once and kept with the row (a mirror's rows live across calls;
 * a row replaced by an update gets its own entry, and entries die with their rows).
 */
const searchText = new WeakMap<ThreadShell, NormalizedSearchable>();

function searchTextOf(thread: ThreadShell): NormalizedSearchable {
  let text = searchText.get(thread);
  if (text === undefined) {
    text = normalizeSearchable({ id: thread.id, title: thread.title });
    searchText.set(thread, text);
  }
  return text;
}

/** A match before summarizing: what `THREAD_SEARCH_ORDER` reads (environmentId, threadId). */
interface FoundRow {
  environmentId: string;
  threadId: string;
  summarize(): FoundThread;
}

/** `THREAD_SEARCH_ORDER` over rows not yet summarized: the same key, so the same pages and cursors. */
const FOUND_ROW_ORDER: PageOrder<FoundRow> = {
  key: (row) => [row.environmentId, row.threadId],
  directions: THREAD_SEARCH_ORDER.directions,
};

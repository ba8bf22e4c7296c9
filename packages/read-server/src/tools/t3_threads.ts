import {
  openCursor,
  type Page,
  paginatePresorted,
  type QueryIdentity,
  type SignatureValue,
} from "@t3-connector/core/pagination";
import { matchesSearch, normalizeSearchTerm } from "@t3-connector/core/search";
import { filterThreadList } from "@t3-connector/core/state";
import {
  hiddenNoRunNote,
  THREAD_LISTING_ORDER,
  THREAD_PAGE_DEFAULT_LIMIT,
  t3ThreadsContract,
} from "@t3-connector/mcp-tools/read-contracts";
import type * as z from "zod";
import { checkCursor, envelopeFields, listingIdentity, pageFields, pageOf } from "../listing/paging.js";
import { projectNotAvailable, projectNotAvailableAnywhere, showsProject } from "../listing/project-filter.js";
import { sweepShells, type ThreadItem, threadItems, visibleThreads } from "../listing/shells.js";
import { threadPageShare } from "../listing/thread-page-share.js";
import type { ReadContext } from "../read-context.js";
import { defineReadTool, READ_ONLY_ANNOTATIONS } from "../read-tool.js";
import type { ScopeEnvelope } from "../scope/read-scope.js";

const TOOL = "t3_threads";

export const t3ThreadsTool = defineReadTool({
  name: TOOL,
  title: "List threads",
  description:
    "Lists visible threads (authorized projects, not archived) newest first, across every environment unless " +
    "environment is given; each carries its environment and canonical state. total comes before the list; when " +
    "truncated, call again with cursor=nextCursor and the same inputs. complete:false means some environment " +
    "did not answer (see environmentFailures). Threads that never ran are left out unless includeNoRun is true; " +
    "hiddenNoRun counts them. For a needs_intervention thread read t3_thread in its environment.",
  ...t3ThreadsContract,
  annotations: READ_ONLY_ANNOTATIONS,
  async handler(context, input, extra) {
    const now = context.clock.now();
    const search = normalizeSearchTerm(input.search);
    const includeNoRun = input.includeNoRun ?? false;
    const filters: SignatureValue[] = [
      input.projectId ?? null,
      input.state ?? null,
      includeNoRun,
      search ?? null,
      // Present only with the filter, so the signature of a call without `woke` stays the same.
      ...(input.woke === undefined ? [] : [{ woke: input.woke }]),
    ];
    const identity = listingIdentity(context, TOOL, filters, input.environment);
    checkCursor(context, identity, input.cursor);

    const limit = input.limit ?? THREAD_PAGE_DEFAULT_LIMIT;
    const page =
      search === undefined && input.woke === undefined
        ? await indexedPage(context, identity, input, limit, now, extra.signal)
        : await scannedPage(context, identity, input, search, limit, now, extra.signal);
    const { envelope, hiddenNoRun } = page;
    const { environment, ...scope } = envelopeFields(envelope);
    return {
      ...(environment === undefined ? {} : { environment }),
      ...pageFields(page.page),
      ...(input.search === undefined ? {} : { search: input.search }),
      ...(hiddenNoRun > 0 ? { hiddenNoRun, note: hiddenNoRunNote(hiddenNoRun) } : {}),
      ...scope,
      threads: page.page.items,
    };
  },
});

type Input = z.output<typeof t3ThreadsContract.inputSchema>;

/** One page and what the sweep answered. */
interface ThreadsPage {
  page: Page<ThreadItem>;
  envelope: ScopeEnvelope;
  hiddenNoRun: number;
}

/**
 * The page from each environment's ordered thread index (a live mirror's, maintained per event,
 * or one built from an HTTP shell): counts from counters, and only `limit + 1` candidates per
 * environment are summarized. Same answer as `scannedPage` for the filters it serves.
 */
async function indexedPage(
  context: ReadContext,
  identity: QueryIdentity,
  input: Input,
  limit: number,
  now: number,
  signal: AbortSignal,
): Promise<ThreadsPage> {
  const cursor = input.cursor === undefined ? undefined : openCursor(context.cursors, input.cursor, identity);
  const includeNoRun = input.includeNoRun ?? false;
  const { projectId } = input;
  const project = projectFilter(projectId);
  const { results, envelope } = await sweepShells(
    context,
    input.environment,
    signal,
    (view) => {
      project.check(view);
      return threadPageShare(
        view,
        { allowedProjects: view.allowedProjects, projectId, state: input.state, includeNoRun },
        cursor,
        limit,
        now,
      );
    },
    (share) => share.total,
  );
  project.answeredSomewhere(results.length, envelope);
  const shares = results.map((result) => result.value);
  const page = paginatePresorted(context.cursors, shares, THREAD_LISTING_ORDER, {
    signature: {
      ...identity,
      answeredEnvironmentIds: envelope.queriedEnvironments.map((environment) => environment.environmentId),
    },
    cursor: input.cursor,
    limit,
  });
  const hiddenNoRun = shares.reduce((sum, share) => sum + share.hiddenNoRun, 0);
  return { page, envelope, hiddenNoRun };
}

/** The page from every matching thread, summarized and sorted: search and woke need every row. */
async function scannedPage(
  context: ReadContext,
  identity: QueryIdentity,
  input: Input,
  search: string | undefined,
  limit: number,
  now: number,
  signal: AbortSignal,
): Promise<ThreadsPage> {
  const includeNoRun = input.includeNoRun ?? false;
  const { projectId } = input;
  const project = projectFilter(projectId);
  const { results, envelope } = await sweepShells(
    context,
    input.environment,
    signal,
    (view) => {
      project.check(view);
      let threads = visibleThreads(view);
      if (projectId !== undefined) threads = threads.filter((thread) => thread.projectId === projectId);
      threads = threads.filter((thread) => matchesSearch(search, { id: thread.id, title: thread.title }));
      return filterThreadList(threadItems(view, threads, now), {
        ...(input.state === undefined ? {} : { state: input.state }),
        includeNoRun,
        ...(input.woke === undefined ? {} : { woke: input.woke }),
      });
    },
    (value) => value.threads.length,
  );
  project.answeredSomewhere(results.length, envelope);

  const matches = results.flatMap((result) => result.value.threads);
  const hiddenNoRun = results.reduce((sum, result) => sum + result.value.hiddenNoRun, 0);
  const page = pageOf(context, identity, envelope, matches, THREAD_LISTING_ORDER, {
    cursor: input.cursor,
    limit,
  });
  return { page, envelope, hiddenNoRun };
}

/**
 * A `projectId` filter across the sweep: an environment that does not show the project answers
 * `project_not_available` for itself, and when no environment answered, the call fails naming
 * every environment that lacked it.
 */
function projectFilter(projectId: string | undefined) {
  const lacking = new Set<string>();
  return {
    check(view: Parameters<typeof showsProject>[0]): void {
      if (projectId === undefined || showsProject(view, projectId)) return;
      lacking.add(view.environment.environmentId);
      throw projectNotAvailable(projectId, view.environment.alias);
    },
    answeredSomewhere(answered: number, envelope: Parameters<typeof projectNotAvailableAnywhere>[2]): void {
      if (projectId !== undefined && answered === 0 && lacking.size > 0) {
        throw projectNotAvailableAnywhere(projectId, lacking, envelope);
      }
    },
  };
}

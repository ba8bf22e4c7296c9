import {
  openCursor,
  type Page,
  paginatePresorted,
  type QueryIdentity,
  type SignatureValue,
} from "@t3-connector/core/pagination";
import { matchesSearch, normalizeSearchTerm } from "@t3-connector/core/search";
import { filterThreadList } from "@t3-connector/core/state";
import type { ThreadShell } from "@t3-connector/core/t3";
import type * as z from "zod";
import {
  hiddenNoRunNote,
  THREAD_LISTING_ORDER,
  THREAD_PAGE_DEFAULT_LIMIT,
  t3ThreadsContract,
} from "../read-contracts/index.js";
import { answeredIds, checkCursor, envelopeFields, pageFields, pageOf } from "./paging.js";
import { projectNotAvailable, projectNotAvailableAnywhere, showsProject } from "./project-filter.js";
import type { ListingEnvelope, ReadSource } from "./read-source.js";
import {
  type ShellView,
  searchableThreads,
  type ThreadItem,
  threadItems,
  visibleThreads,
} from "./shell-view.js";
import { threadPageShare } from "./thread-page-share.js";
import { defineSharedReadTool } from "./tool.js";

const TOOL = "t3_threads";

export const t3Threads = defineSharedReadTool({
  name: TOOL,
  title: "List threads",
  ...t3ThreadsContract,
  async answer(source, input, signal) {
    const now = source.now();
    const search = normalizeSearchTerm(input.search);
    const includeNoRun = input.includeNoRun ?? false;
    const filters: SignatureValue[] = [
      input.projectId ?? null,
      input.state ?? null,
      includeNoRun,
      search ?? null,
      // Present only with the filter, so the signature of a call without it stays the same.
      ...(input.woke === undefined ? [] : [{ woke: input.woke }]),
      ...(input.includeArchived ? [{ includeArchived: true }] : []),
    ];
    const identity = source.listingIdentity(TOOL, filters, input.environment);
    checkCursor(source, identity, input.cursor);

    const limit = input.limit ?? THREAD_PAGE_DEFAULT_LIMIT;
    const page =
      search === undefined && input.woke === undefined && !input.includeArchived
        ? await indexedPage(source, identity, input, limit, now, signal)
        : await scannedPage(source, identity, input, search, limit, now, signal);
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
  envelope: ListingEnvelope;
  hiddenNoRun: number;
}

/**
 * The page from each environment's ordered thread index (a live mirror's, maintained per event,
 * or one built from the shell): counts from counters, and only `limit + 1` candidates per
 * environment are summarized. Same answer as `scannedPage` for the filters it serves.
 */
async function indexedPage(
  source: ReadSource,
  identity: QueryIdentity,
  input: Input,
  limit: number,
  now: number,
  signal: AbortSignal,
): Promise<ThreadsPage> {
  const cursor = input.cursor === undefined ? undefined : openCursor(source.cursors, input.cursor, identity);
  const includeNoRun = input.includeNoRun ?? false;
  const { projectId } = input;
  const project = projectFilter(projectId);
  const { results, envelope } = await source.sweep(
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
  const page = paginatePresorted(source.cursors, shares, THREAD_LISTING_ORDER, {
    signature: { ...identity, answeredEnvironmentIds: answeredIds(envelope) },
    cursor: input.cursor,
    limit,
  });
  const hiddenNoRun = shares.reduce((sum, share) => sum + share.hiddenNoRun, 0);
  return { page, envelope, hiddenNoRun };
}

/** The page from every matching thread, summarized and sorted: search, woke and archived threads need every row. */
async function scannedPage(
  source: ReadSource,
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
  const { results, envelope } = await source.sweep(
    input.environment,
    signal,
    (view) => {
      project.check(view);
      let rows = listedRows(view, input.includeArchived === true);
      if (projectId !== undefined) rows = rows.filter(({ thread }) => thread.projectId === projectId);
      rows = rows.filter(({ thread }) => matchesSearch(search, { id: thread.id, title: thread.title }));
      const items = threadItems(
        view,
        rows.map((row) => row.thread),
        now,
      ).map((item, index) => (rows[index]?.archived ? { ...item, archived: true as const } : item));
      return filterThreadList(items, {
        ...(input.state === undefined ? {} : { state: input.state }),
        includeNoRun,
        ...(input.woke === undefined ? {} : { woke: input.woke }),
      });
    },
    (value) => value.threads.length,
    input.includeArchived ? { withArchive: true } : {},
  );
  project.answeredSomewhere(results.length, envelope);

  const matches = results.flatMap((result) => result.value.threads);
  const hiddenNoRun = results.reduce((sum, result) => sum + result.value.hiddenNoRun, 0);
  const page = pageOf(source, identity, envelope, matches, THREAD_LISTING_ORDER, {
    cursor: input.cursor,
    limit,
  });
  return { page, envelope, hiddenNoRun };
}

/** The visible threads and, when asked, the archived ones (a read by id shows them too), marked. */
function listedRows(
  view: ShellView,
  includeArchived: boolean,
): Array<{ thread: ThreadShell; archived: boolean }> {
  const visible = visibleThreads(view).map((thread) => ({ thread, archived: false }));
  if (!includeArchived) return visible;
  return [...visible, ...searchableThreads(view).filter((row) => row.archived)];
}

/**
 * A `projectId` filter across the sweep: an environment that does not show the project answers
 * `project_not_available` for itself, and when no environment answered, the call fails naming
 * every environment that lacked it.
 */
function projectFilter(projectId: string | undefined) {
  const lacking = new Set<string>();
  return {
    check(view: ShellView): void {
      if (projectId === undefined || showsProject(view, projectId)) return;
      lacking.add(view.environment.environmentId);
      throw projectNotAvailable(projectId, view.environment.alias);
    },
    answeredSomewhere(answered: number, envelope: ListingEnvelope): void {
      if (projectId !== undefined && answered === 0 && lacking.size > 0) {
        throw projectNotAvailableAnywhere(projectId, lacking, envelope);
      }
    },
  };
}

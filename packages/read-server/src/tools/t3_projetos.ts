import { matchesSearch, normalizeSearchTerm } from "@t3-connector/core/search";
import { threadState } from "@t3-connector/core/state";
import { PROJECT_ORDER, type ProjectItem, t3ProjetosContract } from "@t3-connector/mcp-tools/read-contracts";
import { checkCursor, envelopeFields, listingIdentity, pageFields, pageOf } from "../listing/paging.js";
import {
  type ItemEnvironment,
  stateRow,
  sweepShells,
  visibleProjects,
  visibleThreads,
} from "../listing/shells.js";
import { defineReadTool, READ_ONLY_ANNOTATIONS } from "../read-tool.js";

const TOOL = "t3_projetos";

export const t3ProjetosTool = defineReadTool({
  name: TOOL,
  title: "List projects",
  description:
    "Lists the authorized projects of every environment (or only environment), with their directory and how " +
    "many visible threads are running or need intervention. A projectId belongs to one environment: pass both " +
    "to t3_threads. total comes before the list; when truncated, call again with cursor=nextCursor.",
  ...t3ProjetosContract,
  annotations: READ_ONLY_ANNOTATIONS,
  async handler(context, input, extra) {
    const search = normalizeSearchTerm(input.search);
    const identity = listingIdentity(context, TOOL, [search ?? null], input.environment);
    checkCursor(context, identity, input.cursor);

    const { results, envelope } = await sweepShells(
      context,
      input.environment,
      extra.signal,
      (view) => {
        const counts = countsByProject(visibleThreads(view));
        return visibleProjects(view)
          .filter((project) => matchesSearch(search, { id: project.id, title: project.title }))
          .map((project) => projectItem(view.environment, project, counts.get(project.id)));
      },
      (value) => value.length,
    );
    const page = pageOf(
      context,
      identity,
      envelope,
      results.flatMap((result) => result.value),
      PROJECT_ORDER,
      { cursor: input.cursor, limit: input.limit },
    );
    const { environment, ...scope } = envelopeFields(envelope);
    return {
      ...(environment === undefined ? {} : { environment }),
      ...pageFields(page),
      ...(input.search === undefined ? {} : { search: input.search }),
      ...scope,
      projects: page.items,
    };
  },
});

interface ProjectCounts {
  running: number;
  needsIntervention: number;
}

/** Counts by the canonical state, the same rule t3_threads uses for its `state`. */
function countsByProject(threads: ReturnType<typeof visibleThreads>): Map<string, ProjectCounts> {
  const counts = new Map<string, ProjectCounts>();
  for (const thread of threads) {
    const { state } = threadState(stateRow(thread));
    if (state !== "running" && state !== "needs_intervention") continue;
    const entry = counts.get(thread.projectId) ?? { running: 0, needsIntervention: 0 };
    if (state === "running") entry.running += 1;
    else entry.needsIntervention += 1;
    counts.set(thread.projectId, entry);
  }
  return counts;
}

function projectItem(
  environment: ItemEnvironment,
  project: { id: string; title: string; workspaceRoot?: string | undefined },
  counts: ProjectCounts | undefined,
): ProjectItem {
  return {
    projectId: project.id,
    title: project.title,
    environment,
    directory: project.workspaceRoot ?? null,
    runningThreads: counts?.running ?? 0,
    threadsNeedingIntervention: counts?.needsIntervention ?? 0,
  };
}

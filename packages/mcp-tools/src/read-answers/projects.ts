import { matchesSearch, normalizeSearchTerm } from "@t3-connector/core/search";
import { threadState } from "@t3-connector/core/state";
import { PROJECT_ORDER, type ProjectItem, t3ProjetosContract } from "../read-contracts/index.js";
import { checkCursor, envelopeFields, pageFields, pageOf } from "./paging.js";
import { type ItemEnvironment, stateRow, visibleProjects, visibleThreads } from "./shell-view.js";
import { defineSharedReadTool } from "./tool.js";

const TOOL = "t3_projetos";

export const t3Projetos = defineSharedReadTool({
  name: TOOL,
  title: "List projects",
  ...t3ProjetosContract,
  async answer(source, input, signal) {
    const search = normalizeSearchTerm(input.search);
    const identity = source.listingIdentity(TOOL, [search ?? null], input.environment);
    checkCursor(source, identity, input.cursor);

    const { results, envelope } = await source.sweep(
      input.environment,
      signal,
      (view) => {
        const counts = countsByProject(visibleThreads(view));
        return visibleProjects(view)
          .filter((project) => matchesSearch(search, { id: project.id, title: project.title }))
          .map((project) => projectItem(view.environment, project, counts.get(project.id)));
      },
      (value) => value.length,
    );
    const page = pageOf(
      source,
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
  project: { id: string; title: string; workspaceRoot?: string | undefined | null },
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

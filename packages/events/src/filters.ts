import { type ListedProject, type ReadEnvironmentConfig, readProjectAcl } from "@t3-connector/core/config";
import type { EventType } from "./event-types.js";

/** Which events to emit; an absent list lets everything through. */
export interface EventFilters {
  /** Environment aliases or ids. */
  environments?: readonly string[];
  /** Project ids or titles. */
  projects?: readonly string[];
  types?: readonly EventType[];
}

export interface EventSubject {
  environment: { alias: string; id: string };
  project: { id: string | null; title: string | null };
  type: EventType;
}

export function wantsEnvironment(filters: EventFilters, environment: { alias: string; id: string }): boolean {
  const list = filters.environments;
  return list === undefined || list.includes(environment.alias) || list.includes(environment.id);
}

/**
 * The filters, inside the read config's ACL: a thread of a project the environment's read ACL does
 * not show (its `allowedProjects`, or a folder of its `allowedProjectRoots`, judged against the
 * shell the event came from) is never emitted, whatever the filters say (the events show what the
 * read tools may show, no more).
 */
export function createEventFilter(
  filters: EventFilters,
  acl: ReadonlyMap<string, Pick<ReadEnvironmentConfig, "allowedProjects" | "allowedProjectRoots">>,
): (subject: EventSubject, projects: readonly ListedProject[]) => Promise<boolean> {
  return async ({ environment, project, type }, listed) => {
    if (!wantsEnvironment(filters, environment)) return false;
    if (project.id === null) return false;
    // A new ACL per call: a folder is walked again for each event, never remembered.
    const shown = await readProjectAcl(acl.get(environment.id)).allowedIn(listed);
    if (!shown.has(project.id)) return false;
    if (filters.types !== undefined && !filters.types.includes(type)) return false;
    const projects = filters.projects;
    if (projects === undefined) return true;
    return projects.includes(project.id) || (project.title !== null && projects.includes(project.title));
  };
}

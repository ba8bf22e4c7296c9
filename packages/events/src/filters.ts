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
 * The filters, inside the read config's ACL: a thread of a project the environment's
 * `allowedProjects` does not list is never emitted, whatever the filters say (the events show what
 * the read tools may show, no more).
 */
export function createEventFilter(
  filters: EventFilters,
  allowedProjects: ReadonlyMap<string, ReadonlySet<string>>,
): (subject: EventSubject) => boolean {
  return ({ environment, project, type }) => {
    if (!wantsEnvironment(filters, environment)) return false;
    if (project.id === null || allowedProjects.get(environment.id)?.has(project.id) !== true) return false;
    if (filters.types !== undefined && !filters.types.includes(type)) return false;
    const projects = filters.projects;
    if (projects === undefined) return true;
    return projects.includes(project.id) || (project.title !== null && projects.includes(project.title));
  };
}

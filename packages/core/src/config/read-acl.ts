/**
 * The projects an environment of the read config shows: its read ACL (ADR 0074, "A created project
 * is readable"). The config names them by id (`allowedProjects`) and, when the person wrote it, by
 * folder (`allowedProjectRoots`): a project whose workspaceRoot, as T3 lists it, lies under one of
 * those folders is shown too. The folder is walked as a create's folder is (`confineWorkspaceRoot`):
 * absolute and normalised, from the allowed folder one component at a time with `lstat`, never
 * following a symlink out of it. Anything the walk refuses, or that fails to read, hides the
 * project. The read server and the events service decide it against the projects each read
 * answered, so a project moved out (or whose folder became a symlink that leaves) is hidden from
 * then on. Nothing but the person's config widens it.
 */
import { confineWorkspaceRoot, nodeRootFileSystem, type RootFileSystem } from "./project-folder.js";

/** A project as a shell lists it: what the ACL reads of it. */
export interface ListedProject {
  readonly id: string;
  readonly workspaceRoot?: string | undefined;
  readonly deletedAt?: string | null | undefined;
}

export interface ProjectAcl {
  /** The ids of `projects` this environment shows, with every id the config names. */
  allowedIn(projects: readonly ListedProject[]): Promise<ReadonlySet<string>>;
}

/**
 * The ACL of one read config environment (`ReadEnvironmentConfig`; none: shows nothing). It walks each list of projects it
 * is given once: make one per read, so that a later read walks the folders again.
 */
export function readProjectAcl(
  entry:
    | { readonly allowedProjects?: readonly string[]; readonly allowedProjectRoots?: readonly string[] }
    | undefined,
  fs: RootFileSystem = nodeRootFileSystem,
): ProjectAcl {
  const named: ReadonlySet<string> = new Set(entry?.allowedProjects ?? []);
  const roots = entry?.allowedProjectRoots ?? [];
  if (roots.length === 0) return { allowedIn: async () => named };
  const walked = new WeakMap<readonly ListedProject[], Promise<ReadonlySet<string>>>();
  return {
    allowedIn(projects) {
      const known = walked.get(projects);
      if (known !== undefined) return known;
      const answer = underRoots(projects, roots, fs).then((found) => new Set([...named, ...found]));
      walked.set(projects, answer);
      return answer;
    },
  };
}

async function underRoots(
  projects: readonly ListedProject[],
  roots: readonly string[],
  fs: RootFileSystem,
): Promise<string[]> {
  const shown = await Promise.all(
    projects.map(async (project) => {
      if (project.workspaceRoot === undefined || project.deletedAt) return null;
      try {
        await confineWorkspaceRoot(project.workspaceRoot, roots, fs);
        return project.id;
      } catch {
        // Outside every root, through a symlink that leaves one, or unreadable: not shown.
        return null;
      }
    }),
  );
  return shown.filter((id): id is string => id !== null);
}

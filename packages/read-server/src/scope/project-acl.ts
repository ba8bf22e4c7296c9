/**
 * The projects an environment shows: its read ACL (ADR 0074, "A created project is readable").
 * The read config names them by id (`allowedProjects`) and, when the person wrote it, by folder
 * (`allowedProjectRoots`): a project whose workspaceRoot, as T3 lists it, lies under one of those
 * folders is shown too. The folder is walked as a create's folder is (core's
 * `confineWorkspaceRoot`): absolute and normalised, from the allowed folder one component at a
 * time with `lstat`, never following a symlink out of it. Anything the walk refuses, or that fails
 * to read, hides the project. It is decided at each read, against the projects that read
 * answered, so a project moved out (or whose folder became a symlink that leaves) is hidden at the
 * next read. Nothing but the person's config widens it.
 */
import { confineWorkspaceRoot, nodeRootFileSystem, type RootFileSystem } from "@t3-connector/core/config";
import type { ShellSnapshot } from "@t3-connector/core/t3";
import type { ReadContext } from "../read-context.js";

type Projects = ShellSnapshot["projects"];

export interface ProjectAcl {
  /** The ids of `projects` this environment shows, with every id the config names. */
  allowedIn(projects: Projects): Promise<ReadonlySet<string>>;
}

/** The ACL of one environment of `context` (an unknown environment shows nothing). */
export function projectAclOf(
  context: ReadContext,
  environmentId: string,
  fs: RootFileSystem = nodeRootFileSystem,
): ProjectAcl {
  const entry = context.config.environments.find((env) => env.environmentId === environmentId);
  const named: ReadonlySet<string> = new Set(entry?.allowedProjects ?? []);
  const roots = entry?.allowedProjectRoots ?? [];
  if (roots.length === 0) return { allowedIn: async () => named };
  // One walk per project list a read sees (a read may ask twice of the same shell).
  const walked = new WeakMap<Projects, Promise<ReadonlySet<string>>>();
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
  projects: Projects,
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

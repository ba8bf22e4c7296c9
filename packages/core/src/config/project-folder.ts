/**
 * Where a project's folder may be (ADR 0074). `workspaceRoot` is the one write input that names a
 * place on the person's machine, so it must lie under a root the environment's config allows
 * (`projectRoots`; none by default, so creating is refused until the person opts in). The read
 * server walks a listed project's folder the same way against a read config's
 * `allowedProjectRoots`, to decide whether it shows the project.
 *
 * The path is walked from the allowed root one component at a time with `lstat`, never `stat`: a
 * component that is a symlink is resolved, and the walk goes on only if what it points at is still
 * under the root's own real path. So `root/link -> /etc` is refused, while `root/a -> root/b` is
 * fine. The first missing component ends the walk: the rest would be made by T3, which is allowed
 * only when the input asks for it. The path sent is the one the input named (T3 stores it as
 * named, fixture 114); a local process that swaps a component for a symlink between this walk and
 * T3's own use of the folder is outside what the walk can stop (ADR 0074's threat model).
 */
import { lstat, realpath } from "node:fs/promises";
import path from "node:path";
import { ConnectorError } from "@t3-connector/core";

/** The file system calls the walk needs (injected by tests that attack it). */
export interface RootFileSystem {
  lstat(file: string): Promise<{ isSymbolicLink(): boolean; isDirectory(): boolean }>;
  realpath(file: string): Promise<string>;
}

export const nodeRootFileSystem: RootFileSystem = { lstat, realpath };

/** A folder the walk accepted: where it is, and whether T3 would have to make (part of) it. */
export interface ConfinedRoot {
  /** The allowed root's real path plus the walked components, symlinks resolved. */
  readonly resolved: string;
  /** The allowed root (as configured) it lies under. */
  readonly allowedRoot: string;
  /** False when the folder (or a parent under the root) does not exist yet. */
  readonly exists: boolean;
}

function refused(message: string, reason: string): ConnectorError {
  return new ConnectorError("workspace_root_refused", message, { details: { reason } });
}

function isUnder(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent === "/" ? "/" : `${parent}/`);
}

function isMissing(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === "ENOENT";
}

/**
 * Resolves `wanted` under one of `allowedRoots`, or throws `workspace_root_refused` saying why.
 * `wanted` must be absolute and normalised (no `.`, `..`, empty segment or trailing slash).
 */
export async function confineWorkspaceRoot(
  wanted: string,
  allowedRoots: readonly string[],
  fs: RootFileSystem = nodeRootFileSystem,
): Promise<ConfinedRoot> {
  if (allowedRoots.length === 0) {
    throw refused(
      "no projectRoots are configured for this environment, so no project folder is allowed; " +
        "the person adds the folders projects may live under to its projectRoots in the write config",
      "no_project_roots",
    );
  }
  if (
    !path.isAbsolute(wanted) ||
    path.normalize(wanted) !== wanted ||
    (wanted !== "/" && wanted.endsWith("/"))
  ) {
    throw refused(
      `workspaceRoot must be an absolute, normalised path (got ${JSON.stringify(wanted)})`,
      "path_not_normalised",
    );
  }
  const root = allowedRoots.find((candidate) => isUnder(wanted, candidate));
  if (root === undefined) {
    throw refused(
      `${wanted} is not under any allowed project root (${allowedRoots.join(", ")})`,
      "outside_project_roots",
    );
  }
  let current: string;
  try {
    current = await fs.realpath(root);
  } catch {
    throw refused(`the allowed project root ${root} does not exist on this machine`, "project_root_missing");
  }
  const realRoot = current;
  const components = path
    .relative(root, wanted)
    .split(path.sep)
    .filter((part) => part !== "");
  for (const [index, component] of components.entries()) {
    const next = path.join(current, component);
    let stat: { isSymbolicLink(): boolean; isDirectory(): boolean };
    try {
      stat = await fs.lstat(next);
    } catch (error) {
      if (!isMissing(error)) throw refused(`${next} could not be read`, "path_unreadable");
      return { resolved: path.join(next, ...components.slice(index + 1)), allowedRoot: root, exists: false };
    }
    if (stat.isSymbolicLink()) {
      let target: string;
      try {
        target = await fs.realpath(next);
      } catch {
        throw refused(`${next} is a symlink to nothing`, "dangling_symlink");
      }
      if (!isUnder(target, realRoot)) {
        throw refused(
          `${next} is a symlink that leaves the allowed root ${root} (it points at ${target})`,
          "symlink_leaves_root",
        );
      }
      current = target;
      continue;
    }
    if (!stat.isDirectory()) throw refused(`${next} is not a folder`, "not_a_folder");
    current = next;
  }
  return { resolved: current, allowedRoot: root, exists: true };
}

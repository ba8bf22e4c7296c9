import { addArchivedThreads, type ConnectedEnvironment } from "@t3-connector/core/environments";
import type { ShellRead } from "@t3-connector/core/mirror";
import type { ShellSnapshot } from "@t3-connector/core/t3";
import type { ShellView } from "@t3-connector/mcp-tools/read-answers";
import type { ReadContext } from "../read-context.js";
import { readScope, type ScopeResult } from "../scope/read-scope.js";

/**
 * The whole shell of one connected environment: its live mirror when that is ready and its
 * socket answers, else a fresh HTTP shell (a connection's first read starts its mirror unless
 * `startMirror` is false).
 */
export function readWholeShell(
  context: ReadContext,
  connection: ConnectedEnvironment,
  signal: AbortSignal,
  options: { startMirror?: boolean } = {},
): Promise<ShellRead> {
  if (context.mirrors !== undefined) return context.mirrors.readShell(connection, { signal, ...options });
  return connection.http.getShell({ signal }).then((shell) => ({ source: "http" as const, shell }));
}

/**
 * Reads the shell of each environment in scope (one, or all through the sweep) and hands it to
 * `project`, which runs inside that environment's read: an error it throws (a refused filter, a
 * project the environment does not authorize) is that environment's failure during a sweep, and
 * the tool's error when the caller named the environment.
 */
export async function sweepShells<T>(
  context: ReadContext,
  environment: string | undefined,
  signal: AbortSignal,
  project: (view: ShellView) => T,
  countFound: (value: T) => number,
  options: {
    withArchive?: boolean;
    /** Fills what the shell leaves out from the threads themselves (secrets-from-threads.ts). */
    enrich?: (
      connection: ConnectedEnvironment,
      shell: ShellSnapshot,
      signal: AbortSignal,
    ) => Promise<ShellSnapshot>;
  } = {},
): Promise<ScopeResult<T>> {
  // Mirrors start once the whole sweep answered: a mirror's first snapshot is a full shell to
  // parse, and starting it mid-sweep would slow the other environments' reads of this call.
  const unmirrored = new Set<ConnectedEnvironment>();
  const startMirrors = () => {
    for (const connection of unmirrored) context.mirrors?.mirrorOf(connection);
  };
  const scope = readScope(
    context,
    environment,
    async ({ connection, acl }, readSignal) => {
      const read = await readWholeShell(context, connection, readSignal, { startMirror: false });
      const { source } = read;
      if (source === "http") unmirrored.add(connection);
      // Archived threads are not in the shell (current T3, 0.0.31): their own snapshot adds them.
      const whole = options.withArchive
        ? await addArchivedThreads(connection, read.shell, { signal: readSignal })
        : read.shell;
      const shell = options.enrich ? await options.enrich(connection, whole, readSignal) : whole;
      const view: ShellView = {
        environment: {
          alias: connection.alias,
          environmentId: connection.environmentId,
          name: connection.name,
        },
        shell,
        allowedProjects: await acl.allowedIn(shell.projects),
        readAt: new Date(context.clock.now()).toISOString(),
        source,
        ...(read.source === "mirror" && !options.withArchive && shell === read.shell
          ? { threadIndex: () => read.mirror.threadIndex() }
          : {}),
      };
      return project(view);
    },
    { signal, countFound },
  );
  return scope.finally(startMirrors);
}

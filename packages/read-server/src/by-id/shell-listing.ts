import { addArchivedThreads, type ConnectedEnvironment } from "@t3-connector/core/environments";
import type { ShellSnapshot } from "@t3-connector/core/t3";
import { readWholeShell } from "../listing/shells.js";
import type { ReadContext } from "../read-context.js";

/**
 * A shell that lists `lists` if T3 has it: the live mirror first (no request), then, when the
 * mirror lacks it, T3's own shell, then the archived snapshot. A mirror lags T3 by a commit (T3
 * coalesces shell rows; a frame may be in flight), so a thread created a moment ago may not be
 * in it yet; answering "does not exist" from it would invite a model to create the thread again
 * (issue 20). A by-id read never starts a mirror.
 */
export async function shellListing(
  context: ReadContext,
  connection: ConnectedEnvironment,
  signal: AbortSignal,
  lists: (shell: ShellSnapshot) => boolean | Promise<boolean>,
): Promise<ShellSnapshot> {
  const read = await readWholeShell(context, connection, signal, { startMirror: false });
  let shell = read.shell;
  if (await lists(shell)) return shell;
  if (read.source === "mirror") {
    shell = await connection.http.getShell({ signal });
    if (await lists(shell)) return shell;
  }
  // Not in the shell: it may be archived, which only the archived snapshot lists.
  return addArchivedThreads(connection, shell, { signal });
}

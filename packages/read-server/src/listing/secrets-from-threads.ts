import type { ConnectedEnvironment } from "@t3-connector/core/environments";
import { fetchThreadWindow, type ShellSnapshot } from "@t3-connector/core/t3";
import { withSecretsFromThreads } from "@t3-connector/mcp-tools/read-answers";

/**
 * The read server's reading of the secret requests a shell's rows leave out (mcp-tools'
 * read-answers, ADR 0069): each candidate thread's bounded window over this connection.
 */
export function withSecretsFromConnection(
  connection: ConnectedEnvironment,
  shell: ShellSnapshot,
  signal: AbortSignal,
): Promise<ShellSnapshot> {
  return withSecretsFromThreads(
    shell,
    async (threadId, readSignal) =>
      (await fetchThreadWindow(connection.http, threadId, { signal: readSignal })).projection,
    signal,
  );
}

/**
 * @module One server per OAuth state directory. Two servers on the same files would each keep its
 * own view of the sessions and write it back whole: a session one ends for refresh-token theft
 * would live on in the other and come back after a restart. The lock is core's (the journal's and
 * the events follower's: create-exclusive, a dead holder's lock taken over safely); a second
 * `serve --http` with OAuth on the same directory refuses to start with `state_dir_in_use`.
 * The terminal's `oauth` commands take no lock: they only read `sessions.json` and write
 * `revocations.json`, which the server reads before every token.
 */
import { type Clock, ConnectorError, isConnectorError } from "@t3-connector/core";
import { acquireJournalLock, type JournalLock, nodeJournalFs } from "@t3-connector/core/durable";

export type StateLock = Pick<JournalLock, "release">;

export async function lockStateDir(stateDir: string, clock: Clock): Promise<StateLock> {
  try {
    return await acquireJournalLock(nodeJournalFs, stateDir, clock);
  } catch (error) {
    const details = isConnectorError(error)
      ? (error.details as { reason?: unknown; pid?: unknown } | undefined)
      : undefined;
    if (details?.reason === "locked") {
      throw new ConnectorError(
        "state_dir_in_use",
        `another serve --http with OAuth (pid ${String(details.pid)}) already uses the state directory ${stateDir}; stop it, or give this one its own oauth.stateDir (and issuer)`,
        { cause: error, details: { stateDir, pid: details.pid } },
      );
    }
    throw error;
  }
}

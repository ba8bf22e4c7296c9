/**
 * @module One server per OAuth state directory. Two servers on the same files would each keep its
 * own view of the sessions and write it back whole: a session one ends for refresh-token theft
 * would live on in the other and come back after a restart. The lock is core's (the journal's and
 * the events follower's: create-exclusive, a dead holder's lock taken over safely); a second
 * `serve --http` with OAuth on the same directory refuses to start with `state_dir_in_use`.
 * The terminal's `oauth` commands take no lock: they only read `sessions.json` and write
 * `revocations.json`, which the server reads before every token.
 */
import { type Clock, ConnectorError } from "@t3-connector/core";
import { acquireLockOrRefuse, type JournalLock, nodeJournalFs } from "@t3-connector/core/durable";

export type StateLock = Pick<JournalLock, "release">;

export function lockStateDir(stateDir: string, clock: Clock): Promise<StateLock> {
  return acquireLockOrRefuse(nodeJournalFs, stateDir, clock, (pid, cause) => {
    return new ConnectorError(
      "state_dir_in_use",
      `another serve --http with OAuth (pid ${String(pid)}) already uses the state directory ${stateDir}; stop it, or give this one its own oauth.stateDir (and issuer)`,
      { cause, details: { stateDir, pid } },
    );
  });
}

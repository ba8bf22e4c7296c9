/**
 * @module `t3-connector oauth sessions | revoke <id> | revoke-all`: the terminal reads the
 * server's `sessions.json` and writes only `revocations.json`, which the server reads before every
 * token it checks. Works whether the server runs or not.
 */
import { type Clock, ConnectorError } from "@t3-connector/core";
import { ensureStateDir, readPrivateJson, writePrivateJson } from "./private-json.js";
import {
  isRevoked,
  NO_REVOCATIONS,
  revocationsSchema,
  sessionFiles,
  sessionsFileSchema,
} from "./session-files.js";

/** A session as the terminal lists it: no token, no hash. */
export interface SessionListing {
  readonly id: string;
  readonly client: string;
  readonly clientId: string;
  readonly scope: readonly string[];
  readonly createdAt: string;
  readonly lastActivityAt: string;
}

export async function listSessions(stateDir: string): Promise<SessionListing[]> {
  const files = sessionFiles(stateDir);
  const stored = await readPrivateJson(files.sessions, sessionsFileSchema, { version: 1, sessions: [] });
  const revocations = await readPrivateJson(files.revocations, revocationsSchema, NO_REVOCATIONS);
  return stored.sessions
    .filter((session) => !isRevoked(revocations, session))
    .map((session) => ({
      id: session.id,
      client: session.clientName,
      clientId: session.clientId,
      scope: session.scope,
      createdAt: new Date(session.createdAt).toISOString(),
      lastActivityAt: new Date(session.lastActivityAt).toISOString(),
    }));
}

/** Ends one session; `session_unknown` when no live session has this id. */
export async function revokeSession(stateDir: string, id: string): Promise<void> {
  const live = await listSessions(stateDir);
  if (!live.some((session) => session.id === id)) {
    throw new ConnectorError("session_unknown", `no live session ${id} (see t3-connector oauth sessions)`, {
      details: { id },
    });
  }
  const files = sessionFiles(stateDir);
  const revocations = await readPrivateJson(files.revocations, revocationsSchema, NO_REVOCATIONS);
  await writePrivateJson(files.revocations, { ...revocations, revokedIds: [...revocations.revokedIds, id] });
}

/**
 * Ends every session that exists now, and every code or sign-in already approved but not yet
 * exchanged. Sessions started afterwards are not affected. Answers how many sessions were live.
 */
export async function revokeAllSessions(stateDir: string, clock: Clock): Promise<number> {
  await ensureStateDir(stateDir);
  const live = await listSessions(stateDir);
  // The ids listed so far are dropped: the instant covers every one of them.
  await writePrivateJson(sessionFiles(stateDir).revocations, {
    version: 1,
    revokedIds: [],
    revokedBefore: clock.now(),
  });
  return live.length;
}

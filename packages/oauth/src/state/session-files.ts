/**
 * @module What the session files hold. `sessions.json` is written by the server only;
 * `revocations.json` by `t3-connector oauth revoke | revoke-all` only, and read by the server
 * before every token it checks, so a revocation from the terminal counts on the next request
 * without the two processes ever writing the same file.
 */
import { join } from "node:path";
import { z } from "zod";

export const SESSIONS_FILE = "sessions.json";
export const REVOCATIONS_FILE = "revocations.json";
export const PASSKEYS_FILE = "passkeys.json";
export const CLIENTS_FILE = "clients.json";

export const sessionRecordSchema = z.strictObject({
  id: z.string().min(1),
  clientId: z.string().min(1),
  clientName: z.string(),
  scope: z.array(z.string()),
  resource: z.string(),
  /** The passkey that signed in. */
  credentialId: z.string(),
  /** Wall-clock milliseconds. */
  createdAt: z.number(),
  /** The last `tools/call` (or the consent): the idle window counts from here. */
  lastActivityAt: z.number(),
  /** Hash of the one live refresh token. */
  refreshHash: z.string(),
  refreshExpiresAt: z.number(),
  /** Hashes of the rotated-out refresh tokens: presenting one ends the session (theft). */
  retiredRefreshHashes: z.array(z.string()),
});
export type SessionRecord = z.output<typeof sessionRecordSchema>;

export const sessionsFileSchema = z.strictObject({
  version: z.literal(1),
  sessions: z.array(sessionRecordSchema),
});

export const revocationsSchema = z.strictObject({
  version: z.literal(1),
  /** Sessions ended one by one. */
  revokedIds: z.array(z.string()),
  /** Every session created at or before this instant (wall-clock ms) is ended: `revoke-all`. */
  revokedBefore: z.number().nullable(),
});
export type Revocations = z.output<typeof revocationsSchema>;

export const NO_REVOCATIONS: Revocations = { version: 1, revokedIds: [], revokedBefore: null };

export function sessionFiles(stateDir: string) {
  return {
    sessions: join(stateDir, SESSIONS_FILE),
    revocations: join(stateDir, REVOCATIONS_FILE),
  };
}

/** Whether a revocation list ends this session. */
export function isRevoked(
  revocations: Revocations,
  session: Pick<SessionRecord, "id" | "createdAt">,
): boolean {
  if (revocations.revokedIds.includes(session.id)) return true;
  return revocations.revokedBefore !== null && session.createdAt <= revocations.revokedBefore;
}

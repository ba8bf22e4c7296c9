/**
 * `t3-connector oauth sessions | revoke <id> | revoke-all | enroll | passkeys | remove-passkey <id>`:
 * the OAuth sessions and passkeys of `serve --http`,
 * found in the state directory of the config's `oauth` section (the default one without it). The
 * server reads the revocations before every token it checks, so they count on its next request.
 */
import { systemClock } from "@t3-connector/core";
import { type CliIo, writeJson } from "@t3-connector/core/cli-support";
import {
  defaultOAuthStateDir,
  issueTerminalEnrollmentCode,
  listPasskeys,
  listSessions,
  parseOAuthSettings,
  removePasskey,
  revokeAllSessions,
  revokeSession,
} from "@t3-connector/oauth";
import { loadCliConfig } from "./config-access.js";

export async function oauthSessionsCommand(
  io: CliIo,
  command:
    | { action: "sessions" | "revoke-all" | "enroll" | "passkeys" }
    | { action: "revoke"; id: string }
    | { action: "remove-passkey"; id: string; force: boolean },
): Promise<number> {
  const { stateDir, issuer } = await oauthPlace(io);
  switch (command.action) {
    case "sessions":
      writeJson(io, { sessions: await listSessions(stateDir) });
      return 0;
    case "revoke":
      await revokeSession(stateDir, command.id);
      writeJson(io, { revoked: [command.id] });
      return 0;
    case "revoke-all":
      writeJson(io, { revokedSessions: await revokeAllSessions(stateDir, systemClock) });
      return 0;
    case "passkeys":
      writeJson(io, { passkeys: await listPasskeys(stateDir) });
      return 0;
    case "remove-passkey":
      writeJson(io, {
        removed: [command.id],
        remaining: await removePasskey(stateDir, command.id, { force: command.force }),
      });
      return 0;
    case "enroll": {
      // Read by the running server when the code is entered: no restart (ADR 0050).
      const issued = await issueTerminalEnrollmentCode(stateDir, systemClock);
      writeJson(io, {
        ...issued,
        next: `On the device, open the approval page (${issuer === undefined ? "your issuer's /approve: no oauth section in the read config names it" : `${issuer}/approve`}), enter this code under 'A passkey on this device' and add the passkey. The code serves once.`,
      });
      return 0;
    }
  }
}

/** The state directory, and the issuer when the read config's `oauth` section names one. */
async function oauthPlace(io: CliIo): Promise<{ stateDir: string; issuer?: string }> {
  const config = await loadCliConfig(io).catch(() => undefined);
  if (config?.oauth === undefined) return { stateDir: defaultOAuthStateDir(io.env ?? {}, io.homeDir) };
  const settings = parseOAuthSettings(config.oauth, {
    configPath: config.path,
    ...(io.homeDir === undefined ? {} : { homeDir: io.homeDir }),
    ...(io.env === undefined ? {} : { env: io.env }),
  });
  return { stateDir: settings.stateDir, issuer: settings.issuer };
}

/**
 * `t3-connector oauth sessions | revoke <id> | revoke-all`: the OAuth sessions of `serve --http`,
 * found in the state directory of the config's `oauth` section (the default one without it). The
 * server reads the revocations before every token it checks, so they count on its next request.
 */
import { systemClock } from "@t3-connector/core";
import {
  defaultOAuthStateDir,
  listSessions,
  parseOAuthSettings,
  revokeAllSessions,
  revokeSession,
} from "@t3-connector/oauth";
import { loadCliConfig } from "./config-access.js";
import { type CliIo, writeJson } from "./io.js";

export async function oauthSessionsCommand(
  io: CliIo,
  command: { action: "sessions" | "revoke-all" } | { action: "revoke"; id: string },
): Promise<number> {
  const stateDir = await oauthStateDir(io);
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
  }
}

async function oauthStateDir(io: CliIo): Promise<string> {
  const config = await loadCliConfig(io).catch(() => undefined);
  if (config?.oauth === undefined) return defaultOAuthStateDir(io.env ?? {}, io.homeDir);
  return parseOAuthSettings(config.oauth, {
    configPath: config.path,
    ...(io.homeDir === undefined ? {} : { homeDir: io.homeDir }),
    ...(io.env === undefined ? {} : { env: io.env }),
  }).stateDir;
}

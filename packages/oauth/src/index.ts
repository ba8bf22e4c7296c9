export * from "./clients/index.js";
export { type OAuthProfile, type OAuthProfileOptions, openOAuthProfile } from "./server/oauth-profile.js";
export * from "./settings/index.js";
export {
  listSessions,
  revokeAllSessions,
  revokeSession,
  type SessionListing,
} from "./state/terminal-sessions.js";

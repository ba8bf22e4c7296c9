export * from "./clients/index.js";
export {
  listPasskeys,
  type PasskeyListing,
  removePasskey,
} from "./passkeys/passkey-removals.js";
export { issueTerminalEnrollmentCode } from "./passkeys/terminal-enrollment-code.js";
export { type OAuthProfile, type OAuthProfileOptions, openOAuthProfile } from "./server/oauth-profile.js";
export { accessOfRequest } from "./server/resource-guard.js";
export * from "./settings/index.js";
export type { SessionEndReason, VerifiedAccess } from "./state/session-book.js";
export {
  listSessions,
  revokeAllSessions,
  revokeSession,
  type SessionListing,
} from "./state/terminal-sessions.js";

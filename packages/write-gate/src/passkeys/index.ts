export { CREDENTIALS_FILE, loadCredentials, saveCredentials } from "./credential-store.js";
export { CEREMONY_TTL_MS, Enrollment } from "./enrollment.js";
export { OneTimeBook } from "./one-time.js";
export {
  type PasskeyInfo,
  Passkeys,
  type PasskeysOptions,
  RP_ID,
} from "./passkeys.js";

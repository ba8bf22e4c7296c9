export {
  CREDENTIALS_FILE,
  CredentialStoreError,
  loadCredentials,
  type StoredCredential,
  saveCredentials,
} from "./credential-store.js";
export {
  CEREMONY_TTL_MS,
  Enrollment,
  EnrollmentCode,
  EnrollmentError,
  type EnrollmentFailure,
  generateEnrollmentCode,
} from "./enrollment.js";
export { OneTimeBook } from "./one-time.js";
export {
  PasskeyError,
  type PasskeyFailure,
  type PasskeyInfo,
  Passkeys,
  type PasskeysOptions,
  RP_ID,
} from "./passkeys.js";

/**
 * What the page's routes are built from (page-routes.ts mounts them; each step's module reads its
 * parts). Its own module, so the steps and the module that mounts them do not import each other.
 */
import type { Clock } from "@t3-connector/core";
import type { EnrollmentCode } from "@t3-connector/core/passkeys";
import type { Context } from "hono";
import type { PasskeyStore } from "../passkeys/passkey-store.js";
import type { OAuthSettings } from "../settings/index.js";
import type { SessionBook } from "../state/session-book.js";
import type { ClientDirectory } from "./client-directory.js";
import type { AuthorizationCodes } from "./pending.js";
import type { Transactions } from "./sign-in-transactions.js";

export interface PageRouteParts {
  readonly settings: OAuthSettings;
  readonly clock: Clock;
  readonly clients: ClientDirectory;
  readonly passkeys: PasskeyStore;
  readonly enrollmentCode: EnrollmentCode;
  readonly transactions: Transactions;
  readonly codes: AuthorizationCodes;
  readonly sessions: SessionBook;
  readonly log: (line: string) => void;
  /** Which client a request counts against in the request budgets (oauth-profile.ts). */
  readonly budgetKey: (c: Context) => string;
}

/**
 * @module The OAuth session profile, assembled: open the state, build the authorization server's
 * routes and the resource guard. A host app (read-server's `serve --http`) mounts the routes and
 * puts the guard in front of `/mcp`; nothing here listens on its own.
 */
import { type Clock, systemClock } from "@t3-connector/core";
import type { Hono, MiddlewareHandler } from "hono";
import { httpsMetadataFetcher, type MetadataFetcher } from "../clients/metadata-fetcher.js";
import { RegisteredClients } from "../clients/registered-clients.js";
import { EnrollmentCode, generateEnrollmentCode } from "../passkeys/enrollment-code.js";
import { PasskeyStore } from "../passkeys/passkey-store.js";
import type { OAuthSettings } from "../settings/index.js";
import { ensureStateDir } from "../state/private-json.js";
import { SessionBook } from "../state/session-book.js";
import { ClientDirectory } from "./client-directory.js";
import { mountPageRoutes } from "./page-routes.js";
import { AuthorizationCodes, Transactions } from "./pending.js";
import { resourceGuard } from "./resource-guard.js";
import { mountTokenRoutes } from "./token-routes.js";

export interface OAuthProfileOptions {
  readonly clock?: Clock;
  /** How CIMD documents and JWKS are fetched; default HTTPS-only `fetch` (tests inject theirs). */
  readonly fetcher?: MetadataFetcher;
  /** Largest `/mcp` body the guard reads. */
  readonly maxBodyBytes: number;
  /** Non-secret events (debug/info). */
  readonly log: (line: string) => void;
}

export interface OAuthProfile {
  readonly settings: OAuthSettings;
  /** Discovery, `/authorize`, `/token`, `/register`, `/revoke` and the page's routes. */
  mount(app: Hono): void;
  /** In front of `/mcp`. */
  readonly mcpGuard: MiddlewareHandler;
  /** The one-time code for the first passkey, while none is enrolled (print it on the terminal). */
  enrollmentCode(): string | undefined;
}

export async function openOAuthProfile(
  settings: OAuthSettings,
  options: OAuthProfileOptions,
): Promise<OAuthProfile> {
  const clock = options.clock ?? systemClock;
  await ensureStateDir(settings.stateDir);
  const sessions = await SessionBook.open(settings, clock, options.log);
  const passkeys = await PasskeyStore.open(settings, clock);
  const registered = await RegisteredClients.open(settings, clock);
  const clients = new ClientDirectory({
    settings,
    registered,
    fetcher: options.fetcher ?? httpsMetadataFetcher,
    clock,
    log: options.log,
  });
  const code = generateEnrollmentCode();
  const enrollmentCode = new EnrollmentCode(code);
  const codes = new AuthorizationCodes({ clock, ttlMs: settings.lifetimes.codeMs });
  const transactions = new Transactions({ clock, ttlMs: settings.lifetimes.transactionMs });
  return {
    settings,
    mount(app) {
      // Host pinned on every route of the profile: a rebound name or a forwarded header gets nothing.
      for (const path of ["/.well-known/*", "/authorize", "/token", "/register", "/revoke", "/oauth/*"]) {
        app.use(path, async (c, next) => {
          if (c.req.header("host") !== settings.host) return c.body(null, 403);
          await next();
        });
      }
      mountTokenRoutes(app, { settings, clock, clients, codes, sessions, log: options.log });
      mountPageRoutes(app, {
        settings,
        clock,
        clients,
        passkeys,
        enrollmentCode,
        transactions,
        codes,
        sessions,
        log: options.log,
      });
    },
    mcpGuard: resourceGuard({ settings, sessions, maxBodyBytes: options.maxBodyBytes }),
    enrollmentCode: () => (passkeys.hasAny() ? undefined : code),
  };
}

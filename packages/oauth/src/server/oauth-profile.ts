/**
 * @module The OAuth session profile, assembled: open the state, build the authorization server's
 * routes and the resource guard. A host app (read-server's `serve --http`) mounts the routes and
 * puts the guard in front of `/mcp`; nothing here listens on its own.
 */
import { type Clock, systemClock } from "@t3-connector/core";
import { budgetKeyOf } from "@t3-connector/core/http-edge";
import { EnrollmentCode, generateEnrollmentCode } from "@t3-connector/core/passkeys";
import type { Timers } from "@t3-connector/core/t3";
import type { Context, Hono, MiddlewareHandler } from "hono";
import { httpsMetadataFetcher, type MetadataFetcher } from "../clients/metadata-fetcher.js";
import { RegisteredClients } from "../clients/registered-clients.js";
import { PasskeyStore } from "../passkeys/passkey-store.js";
import type { OAuthSettings } from "../settings/index.js";
import { ensureStateDir } from "../state/private-json.js";
import { watchRevocations } from "../state/revocation-watch.js";
import { SessionBook, type SessionEndReason } from "../state/session-book.js";
import { lockStateDir } from "../state/state-lock.js";
import { ClientDirectory } from "./client-directory.js";
import { type HostRefusal, hostRefusal, pinHost, RefusalLog } from "./host-pin.js";
import { clientAddress } from "./http-helpers.js";
import { mountPageRoutes } from "./page-routes.js";
import { AuthorizationCodes } from "./pending.js";
import { resourceGuard, touchOnToolCall } from "./resource-guard.js";
import { Transactions } from "./sign-in-transactions.js";
import { mountTokenRoutes } from "./token-routes.js";

export interface OAuthProfileOptions {
  readonly clock?: Clock;
  /** How CIMD documents and JWKS are fetched; default HTTPS-only `fetch` (tests inject theirs). */
  readonly fetcher?: MetadataFetcher;
  /** Non-secret events (debug/info). */
  readonly log: (line: string) => void;
  /** The periodic re-check of `revocations.json` beside the directory watch (tests fire it by hand). */
  readonly timers?: Timers;
  /**
   * The client a request came from, as the host app knows it (ADR 0044: `serve --http` reads a
   * `--trusted-proxy`'s report); default the TCP peer. The request budgets count by its
   * `budgetKeyOf` (an IPv6 client by its /64), so behind a proxy one client spends its own budget.
   */
  readonly clientAddress?: (c: Context) => string;
}

export interface OAuthProfile {
  readonly settings: OAuthSettings;
  /** Discovery, `/authorize`, `/token`, `/register`, `/revoke` and the page's routes. */
  mount(app: Hono): void;
  /** In front of `/mcp`: Host, token, audience and scope; it reads no body. */
  readonly mcpGuard: MiddlewareHandler;
  /**
   * Hears the `/mcp` body the host app parsed (once) after the guard let it through: a
   * `tools/call` restarts the session's idle window. A Response (503, damaged state) ends the request.
   */
  mcpBodyRead(c: Context, parsed: unknown): Promise<Response | undefined>;
  /** The one-time code for the first passkey, while none is enrolled (print it on the terminal). */
  enrollmentCode(): string | undefined;
  /** Called after a session ends (revoked, reused, idle, aged out, ended from the terminal). */
  onSessionEnded(listener: (sessionId: string, reason: SessionEndReason) => void): void;
  /**
   * What a request with another Host is told (the host app's own Host check answers the same,
   * so a proxy that drops the port or sends its upstream address reads the fix either way).
   */
  hostRefusal(seen: string | undefined, path: string): HostRefusal;
  /** Releases the state directory's lock (at shutdown). */
  close(): Promise<void>;
}

export async function openOAuthProfile(
  settings: OAuthSettings,
  options: OAuthProfileOptions,
): Promise<OAuthProfile> {
  const clock = options.clock ?? systemClock;
  await ensureStateDir(settings.stateDir);
  const lock = await lockStateDir(settings.stateDir, clock);
  let opened: Awaited<ReturnType<typeof openState>>;
  try {
    opened = await openState(settings, clock, options.log);
  } catch (error) {
    await lock.release();
    throw error;
  }
  const { sessions, passkeys, registered } = opened;
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
  const refusals = new RefusalLog(options.log);
  const addressOf = options.clientAddress ?? clientAddress;
  const budgetKey = (c: Context) => budgetKeyOf(addressOf(c));
  // A revocation from the terminal ends its session now, not at the next request (ADR 0049).
  const revocations = watchRevocations({
    stateDir: settings.stateDir,
    sync: () => sessions.syncRevocations(),
    log: options.log,
    ...(options.timers === undefined ? {} : { timers: options.timers }),
  });
  return {
    settings,
    mount(app) {
      // Host pinned on every route of the profile: a rebound name or a forwarded header gets nothing.
      for (const path of PROFILE_PATHS) app.use(path, pinHost(settings, refusals));
      mountTokenRoutes(app, { settings, clock, clients, codes, sessions, log: options.log, budgetKey });
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
        budgetKey,
      });
    },
    mcpGuard: resourceGuard({ settings, sessions, refusals }),
    mcpBodyRead: touchOnToolCall(sessions),
    enrollmentCode: () => (passkeys.hasAny() ? undefined : code),
    onSessionEnded: (listener) => sessions.onEnded(listener),
    hostRefusal(seen, path) {
      const refusal = hostRefusal(seen, settings);
      refusals.note(refusal, path);
      return refusal;
    },
    close: () => {
      revocations.close();
      return lock.release();
    },
  };
}

/** Every route of the profile, with the forms claude.ai builds by appending to the MCP URL. */
const PROFILE_PATHS = [
  "/.well-known/*",
  "/authorize",
  "/token",
  "/register",
  "/revoke",
  "/oauth/*",
  "/mcp/authorize",
  "/mcp/token",
  "/mcp/register",
];

async function openState(settings: OAuthSettings, clock: Clock, log: (line: string) => void) {
  const sessions = await SessionBook.open(settings, clock, log);
  const passkeys = await PasskeyStore.open(settings, clock);
  const registered = await RegisteredClients.open(settings, clock);
  return { sessions, passkeys, registered };
}

/**
 * @module `GET /authorize` and the page's calls: enroll the first passkey (with the terminal's
 * code), sign in with a passkey, then approve or deny with a click. Every POST must come from the
 * issuer's own origin as JSON and carry the transaction's cookie (CSRF); GET never grants.
 */

import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import type { Clock } from "@t3-connector/core";
import { ConnectorError } from "@t3-connector/core";
import type { Context, Hono } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { secureHeaders } from "hono/secure-headers";
import { z } from "zod";
import { isLoopbackRedirect } from "../clients/redirect-policy.js";
import { errorPage, PAGE_CSS, PAGE_JS, signInPage } from "../page/sign-in-page.js";
import type { EnrollmentCode } from "../passkeys/enrollment-code.js";
import type { PasskeyStore } from "../passkeys/passkey-store.js";
import type { OAuthSettings } from "../settings/index.js";
import type { SessionBook } from "../state/session-book.js";
import { callbackUrl, checkAuthorizeRequest } from "./authorize-request.js";
import type { ClientDirectory } from "./client-directory.js";
import { clientAddress, oauthErrorResponse, readJson } from "./http-helpers.js";
import { OneTimeChallenges } from "./one-time-challenges.js";
import type { AuthorizationCodes, Transactions } from "./pending.js";
import { RATE_LIMITS, RateBudget } from "./rate-budget.js";

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
}

/** The page loads only its own files, is framed by nobody and submits no form anywhere. */
const pageHeaders = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'"],
    connectSrc: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'none'"],
  },
  xFrameOptions: "DENY",
  referrerPolicy: "no-referrer",
});

const PAGE_BODY_BYTES = 32 * 1024;
const webauthnResponse = z.looseObject({ id: z.string().min(1).max(1024), type: z.string() });

export function mountPageRoutes(app: Hono, parts: PageRouteParts): void {
  const { settings } = parts;
  const https = settings.issuer.startsWith("https://");
  // `__Host-` needs Secure, which a plain-http localhost issuer cannot set.
  const cookieName = https ? "__Host-t3c-oauth" : "t3c-oauth";
  const authorizeBudget = new RateBudget({ clock: parts.clock, limit: RATE_LIMITS.authorize });
  const ceremonyBudget = new RateBudget({ clock: parts.clock, limit: RATE_LIMITS.ceremony });
  const registrations = new OneTimeChallenges<{ code: string }>({
    clock: parts.clock,
    ttlMs: settings.lifetimes.ceremonyMs,
  });
  const signIns = new OneTimeChallenges<{ transactionId: string }>({
    clock: parts.clock,
    ttlMs: settings.lifetimes.ceremonyMs,
  });

  app.use("/authorize", pageHeaders);
  app.use("/oauth/*", pageHeaders);
  app.get("/oauth/page.js", (c) =>
    c.body(PAGE_JS, 200, { "Content-Type": "text/javascript; charset=utf-8" }),
  );
  app.get("/oauth/page.css", (c) => c.body(PAGE_CSS, 200, { "Content-Type": "text/css; charset=utf-8" }));

  app.get("/authorize", async (c) => {
    try {
      authorizeBudget.charge(clientAddress(c));
    } catch {
      return c.html(errorPage("Too many sign-in attempts; try again in a minute."), 429);
    }
    const outcome = await checkAuthorizeRequest(new URL(c.req.url).searchParams, settings, (id) =>
      parts.clients.find(id),
    );
    if (outcome.kind === "page") return c.html(errorPage(outcome.message), 400);
    if (outcome.kind === "redirect") return c.redirect(outcome.location, 302);
    const opened = parts.transactions.open(outcome.request);
    if (opened === undefined) return c.html(errorPage("Too many sign-ins are open; try again shortly."), 429);
    setCookie(c, cookieName, opened.cookie, {
      path: "/",
      httpOnly: true,
      sameSite: "Lax",
      secure: https,
      maxAge: Math.floor(settings.lifetimes.transactionMs / 1000),
    });
    const { request } = outcome;
    return c.html(
      signInPage({
        transactionId: opened.transaction.id,
        clientName: request.client.clientName,
        clientKind: request.client.kind,
        clientId: request.client.clientId,
        redirectHost: new URL(request.redirectUri).host,
        loopbackRedirect: isLoopbackRedirect(request.redirectUri),
        scopes: request.scope,
        resource: request.resource,
        sessionLength: sessionLength(settings),
        enrolled: parts.passkeys.hasAny(),
      }),
    );
  });

  /** Checks origin, type, cookie and budget; answers the live transaction and the JSON body. */
  const pageCall = async (c: Context) => {
    if (c.req.header("origin") !== settings.issuer) {
      throw new ConnectorError("origin_or_method_invalid", "calls come only from this server's own page");
    }
    ceremonyBudget.charge(clientAddress(c));
    const body = (await readJson(c, PAGE_BODY_BYTES)) as Record<string, unknown> | null;
    const id = typeof body?.transaction === "string" ? body.transaction : "";
    const transaction = parts.transactions.get(id, getCookie(c, cookieName));
    if (transaction === undefined || parts.sessions.revokedSince(transaction.createdAt)) {
      throw new ConnectorError(
        "access_denied",
        "this sign-in expired or belongs to another browser; start again from the client",
      );
    }
    return { transaction, body: body as Record<string, unknown> };
  };
  const guarded = (handler: (c: Context) => Promise<Response>) => async (c: Context) => {
    try {
      return await handler(c);
    } catch (error) {
      return oauthErrorResponse(c, error);
    }
  };

  app.post(
    "/oauth/enroll/options",
    guarded(async (c) => {
      const { body } = await pageCall(c);
      const code = typeof body.code === "string" ? body.code : "";
      if (parts.passkeys.hasAny())
        throw new ConnectorError("invalid_request", "a passkey is already enrolled; sign in");
      if (!parts.enrollmentCode.matches(code)) {
        throw new ConnectorError("invalid_request", "the enrollment code is wrong or was used");
      }
      const options = await parts.passkeys.registrationOptions();
      const registrationId = registrations.add(options.challenge, { code });
      return c.json({ registrationId, options });
    }),
  );
  app.post(
    "/oauth/enroll/verify",
    guarded(async (c) => {
      const { body } = await pageCall(c);
      const pending = registrations.take(String(body.registrationId ?? ""));
      const response = webauthnResponse.safeParse(body.response);
      if (pending === undefined || !response.success)
        throw new ConnectorError("invalid_request", "unknown or expired enrollment");
      // The code is spent before the registration is verified, so it serves once whatever happens.
      if (parts.passkeys.hasAny() || !parts.enrollmentCode.consume(pending.value.code)) {
        throw new ConnectorError("invalid_request", "the enrollment code was used");
      }
      await parts.passkeys.verifyRegistration(
        response.data as unknown as RegistrationResponseJSON,
        pending.challenge,
      );
      parts.log("oauth: the first passkey was enrolled");
      return c.json({ enrolled: true });
    }),
  );
  app.post(
    "/oauth/sign-in/options",
    guarded(async (c) => {
      const { transaction } = await pageCall(c);
      if (!parts.passkeys.hasAny()) throw new ConnectorError("invalid_request", "enroll a passkey first");
      const options = await parts.passkeys.authenticationOptions();
      const ticketId = signIns.add(options.challenge, { transactionId: transaction.id });
      return c.json({ ticketId, options });
    }),
  );
  app.post(
    "/oauth/sign-in/verify",
    guarded(async (c) => {
      const { transaction, body } = await pageCall(c);
      const ticket = signIns.take(String(body.ticketId ?? ""));
      const response = webauthnResponse.safeParse(body.response);
      if (ticket === undefined || ticket.value.transactionId !== transaction.id || !response.success) {
        throw new ConnectorError("invalid_request", "unknown or expired sign-in");
      }
      transaction.signedInWith = await parts.passkeys.verifyAuthentication(
        response.data as unknown as AuthenticationResponseJSON,
        ticket.challenge,
      );
      return c.json({ signedIn: true });
    }),
  );
  app.post(
    "/oauth/consent",
    guarded(async (c) => {
      const { transaction, body } = await pageCall(c);
      const { request } = transaction;
      if (body.decision === "deny") {
        parts.transactions.close(transaction.id);
        parts.log(`oauth: sign-in for ${JSON.stringify(request.client.clientName)} denied`);
        const redirect = callbackUrl(request.redirectUri, settings, {
          error: "access_denied",
          error_description: "the owner denied this client",
          state: request.state,
        });
        return c.json({ redirect });
      }
      if (body.decision !== "approve")
        throw new ConnectorError("invalid_request", "decision is approve or deny");
      if (transaction.signedInWith === undefined) {
        throw new ConnectorError("access_denied", "sign in with your passkey before allowing a client");
      }
      parts.transactions.close(transaction.id);
      const code = parts.codes.issue({
        clientId: request.client.clientId,
        clientName: request.client.clientName,
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
        scope: request.scope,
        resource: request.resource,
        credentialId: transaction.signedInWith,
        issuedAt: parts.clock.now(),
      });
      parts.log(
        `oauth: ${JSON.stringify(request.client.clientName)} allowed (redirect host ${new URL(request.redirectUri).host})`,
      );
      return c.json({ redirect: callbackUrl(request.redirectUri, settings, { code, state: request.state }) });
    }),
  );
}

function sessionLength(settings: OAuthSettings): string {
  const idle = `ends after ${Math.round(settings.idleMs / 60_000)} minutes without a tool call`;
  const max =
    settings.maxAgeMs === undefined
      ? "no maximum age"
      : `at most ${Math.round(settings.maxAgeMs / 3_600_000)} hours`;
  return `${idle}; ${max}; you can end it any time with t3-connector oauth revoke`;
}

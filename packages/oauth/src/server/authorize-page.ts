/** `GET /authorize`: checks the request, opens a transaction (with its cookie) and shows the page. */
import type { Hono } from "hono";
import { setCookie } from "hono/cookie";
import { isLoopbackRedirect } from "../clients/redirect-policy.js";
import { errorPage, signInPage } from "../page/sign-in-page.js";
import type { OAuthSettings } from "../settings/index.js";
import { checkAuthorizeRequest } from "./authorize-request.js";
import type { TransactionCookie } from "./page-call.js";
import type { PageRouteParts } from "./page-route-parts.js";

/** claude.ai has been seen appending `/authorize` to the MCP URL instead of reading the metadata. */
export const AUTHORIZE_PATHS = ["/authorize", "/mcp/authorize"];

export function mountAuthorizePage(app: Hono, parts: PageRouteParts, cookie: TransactionCookie): void {
  const { settings } = parts;
  // No budget here: opening a sign-in holds nothing on the server (sign-in-transactions.ts), and a
  // budget per address would let a stranger behind the same tunnel lock the owner out.
  app.on("GET", AUTHORIZE_PATHS, async (c) => {
    const outcome = await checkAuthorizeRequest(new URL(c.req.url).searchParams, settings, (id) =>
      parts.clients.find(id),
    );
    if (outcome.kind === "page") return c.html(errorPage(outcome.message), 400);
    if (outcome.kind === "redirect") return c.redirect(outcome.location, 302);
    const opened = parts.transactions.open(outcome.request);
    if (opened === undefined)
      return c.html(errorPage("The sign-in request is too long (its state or redirect URI)."), 400);
    setCookie(c, cookie.name, opened.cookie, {
      path: "/",
      httpOnly: true,
      sameSite: "Lax",
      secure: cookie.secure,
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
}

function sessionLength(settings: OAuthSettings): string {
  const idle = `ends after ${Math.round(settings.idleMs / 60_000)} minutes without a tool call`;
  const max =
    settings.maxAgeMs === undefined
      ? "no maximum age"
      : `at most ${Math.round(settings.maxAgeMs / 3_600_000)} hours`;
  return `${idle}; ${max}; you can end it any time with t3-connector oauth revoke`;
}

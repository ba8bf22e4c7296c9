/**
 * @module `GET /authorize` and the page's calls: enroll the first passkey (with the terminal's
 * code), sign in with a passkey, then approve or deny with a click. Every POST must come from the
 * issuer's own origin as JSON and carry the transaction's cookie (CSRF, page-call.ts); GET never
 * grants. Each step is its own module; this one mounts them behind the page's security headers.
 */

import { PASSKEY_PAGE_CSP } from "@t3-connector/core/passkeys";
import type { Hono } from "hono";
import { secureHeaders } from "hono/secure-headers";
import { PAGE_CSS, PAGE_JS } from "../page/sign-in-page.js";
import { mountAuthorizePage } from "./authorize-page.js";
import { mountCodeEnrollment } from "./code-enrollment.js";
import { mountConsent } from "./consent-call.js";
import { mountDeviceCode } from "./device-code.js";
import { pageCallPoster, transactionCookie } from "./page-call.js";
import type { PageRouteParts } from "./page-route-parts.js";
import { mountEnrollment, mountSignIn } from "./passkey-ceremonies.js";

/** The page loads only its own files, is framed by nobody and submits no form anywhere. */
const pageHeaders = secureHeaders({
  contentSecurityPolicy: { ...PASSKEY_PAGE_CSP },
  xFrameOptions: "DENY",
  referrerPolicy: "no-referrer",
});

export function mountPageRoutes(app: Hono, parts: PageRouteParts): void {
  const cookie = transactionCookie(parts.settings.issuer);
  app.use("/authorize", pageHeaders);
  app.use("/mcp/authorize", pageHeaders);
  app.use("/oauth/*", pageHeaders);
  app.get("/oauth/page.js", (c) =>
    c.body(PAGE_JS, 200, { "Content-Type": "text/javascript; charset=utf-8" }),
  );
  app.get("/oauth/page.css", (c) => c.body(PAGE_CSS, 200, { "Content-Type": "text/css; charset=utf-8" }));
  mountAuthorizePage(app, parts, cookie);
  const post = pageCallPoster(app, parts, cookie);
  mountEnrollment(post, parts);
  mountSignIn(post, parts);
  mountConsent(post, parts);
  mountCodeEnrollment(app, parts);
  mountDeviceCode(app, parts);
}

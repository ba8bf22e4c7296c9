/**
 * Drives the sign-in page's calls as its script does (same paths, same JSON, the transaction's
 * cookie, the issuer's Origin), with a SoftPasskey for the ceremonies. `authorizeUrl` may point
 * anywhere that reaches the issuer (a proxy in front of it): the page's calls go to the same
 * origin, as a browser's would.
 */

import type { SoftPasskey } from "@t3-connector/test-support/soft-passkey";
import { expect } from "vitest";

export interface PageVisit {
  readonly status: number;
  readonly html: string;
  readonly transaction: string | undefined;
  readonly cookie: string;
  readonly enrolled: boolean;
}

export async function openSignInPage(authorizeUrl: string | URL): Promise<PageVisit> {
  const response = await fetch(authorizeUrl, { redirect: "manual" });
  const html = await response.text();
  return {
    status: response.status,
    html,
    transaction: /data-transaction="([^"]+)"/.exec(html)?.[1],
    cookie: response.headers.get("set-cookie")?.split(";")[0] ?? "",
    enrolled: /data-enrolled="true"/.test(html),
  };
}

export async function pageCall(
  origin: string,
  visit: Pick<PageVisit, "transaction" | "cookie">,
  path: string,
  payload: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${origin}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: origin, Cookie: visit.cookie },
    body: JSON.stringify({ transaction: visit.transaction, ...payload }),
  });
  return {
    status: response.status,
    body: (await response.json().catch(() => ({}))) as Record<string, unknown>,
  };
}

/**
 * Opens the page, enrolls with `enrollmentCode` when no passkey is enrolled yet, signs in (unless
 * the enrollment already did), and decides. Answers the callback URL the page would go to.
 */
export async function signInOnPage(
  authorizeUrl: string | URL,
  passkey: SoftPasskey,
  options: { enrollmentCode?: string; decision?: "approve" | "deny"; allowWrite?: boolean } = {},
): Promise<URL> {
  const origin = passkey.origin;
  const visit = await openSignInPage(authorizeUrl);
  expect(visit.status, visit.html).toBe(200);
  const call = async (path: string, payload: Record<string, unknown>) => {
    const answer = await pageCall(origin, visit, path, payload);
    expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).toBe(200);
    return answer.body;
  };
  let signedIn = false;
  if (!visit.enrolled) {
    const started = await call("/oauth/enroll/options", { code: options.enrollmentCode ?? "" });
    const enrolled = await call("/oauth/enroll/verify", {
      registrationId: started.registrationId,
      response: passkey.create(started.options as Parameters<SoftPasskey["create"]>[0]),
    });
    signedIn = enrolled.signedIn === true;
  }
  if (!signedIn) {
    const started = await call("/oauth/sign-in/options", {});
    await call("/oauth/sign-in/verify", {
      ticketId: started.ticketId,
      response: passkey.get(started.options as Parameters<SoftPasskey["get"]>[0]),
    });
  }
  const decided = await call("/oauth/consent", {
    decision: options.decision ?? "approve",
    // The write box, ticked (for a client that asked for t3:write) as the page shows it.
    ...(options.allowWrite === undefined ? {} : { allowWrite: options.allowWrite }),
  });
  return new URL(String(decided.redirect));
}

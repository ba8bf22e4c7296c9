/**
 * What every page call (`POST /oauth/...`) goes through before its handler: it must come from the
 * issuer's own origin as JSON, within the ceremony budget, and carry the live transaction's cookie
 * (CSRF). A refused call answers the OAuth error form, never a stack.
 */
import { ConnectorError } from "@t3-connector/core";
import type { Context, Hono } from "hono";
import { getCookie } from "hono/cookie";
import { assertOwnPage, oauthErrorResponse, readJson } from "./http-helpers.js";
import type { PageRouteParts } from "./page-route-parts.js";
import { FailureBudget, RATE_LIMITS } from "./rate-budget.js";
import type { Transaction } from "./sign-in-transactions.js";

const PAGE_BODY_BYTES = 32 * 1024;

/** The transaction's cookie: `__Host-` needs Secure, which a plain-http localhost issuer cannot set. */
export interface TransactionCookie {
  readonly name: string;
  readonly secure: boolean;
}

export function transactionCookie(issuer: string): TransactionCookie {
  const secure = issuer.startsWith("https://");
  return { name: secure ? "__Host-t3c-oauth" : "t3c-oauth", secure };
}

export interface PageCall {
  readonly transaction: Transaction;
  readonly body: Record<string, unknown>;
}

export type PageCallHandler = (c: Context, call: PageCall) => Promise<Response>;

/** Mounts `POST path` behind the page-call checks. */
export type PostPageCall = (path: string, handler: PageCallHandler) => void;

export function pageCallPoster(app: Hono, parts: PageRouteParts, cookie: TransactionCookie): PostPageCall {
  const budget = new FailureBudget({ clock: parts.clock, limit: RATE_LIMITS.ceremony });
  const check = async (c: Context): Promise<PageCall> => {
    assertOwnPage(c, parts.settings.issuer, "calls come only from this server's own page");
    const body = (await readJson(c, PAGE_BODY_BYTES)) as Record<string, unknown> | null;
    const id = typeof body?.transaction === "string" ? body.transaction : "";
    const transaction = parts.transactions.get(id, getCookie(c, cookie.name));
    if (transaction === undefined || parts.sessions.revokedSince(transaction.createdAt)) {
      throw new ConnectorError(
        "access_denied",
        "this sign-in expired or belongs to another browser; start again from the client",
      );
    }
    return { transaction, body: body as Record<string, unknown> };
  };
  return (path, handler) => {
    app.post(path, async (c) => {
      try {
        return await budget.run(parts.budgetKey(c), async () => handler(c, await check(c)));
      } catch (error) {
        return oauthErrorResponse(c, error);
      }
    });
  };
}

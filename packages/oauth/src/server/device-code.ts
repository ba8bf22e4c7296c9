/**
 * @module A new device's code, approved by a device that already holds a passkey (ADR 0050): on the
 * approval page, a signed-in device (a laptop) asks for a code with a fresh assertion of its
 * passkey (user verification, this origin), and gets the same one-time code `t3-connector oauth
 * enroll` prints (10 minutes, one use), to type on the new device (a phone). The assertion is the
 * whole proof, so the call is refused from any other origin, and budgeted.
 */
import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import { ConnectorError } from "@t3-connector/core";
import { RequestBudget } from "@t3-connector/core/http-edge";
import type { Hono } from "hono";
import { z } from "zod";
import { issueTerminalEnrollmentCode } from "../passkeys/terminal-enrollment-code.js";
import { assertOwnPage, oauthErrorResponse, readJson } from "./http-helpers.js";
import { OneTimeChallenges } from "./one-time-challenges.js";
import type { PageRouteParts } from "./page-route-parts.js";
import { RATE_LIMITS } from "./rate-budget.js";

const codeBody = z.strictObject({
  ticketId: z.string().min(1).max(256),
  response: z.looseObject({ id: z.string().min(1).max(1024), type: z.string() }),
});

export function mountDeviceCode(app: Hono, parts: PageRouteParts): void {
  const { settings } = parts;
  const budget = new RequestBudget({ clock: parts.clock, limit: RATE_LIMITS.ceremony });
  const tickets = new OneTimeChallenges<null>({ clock: parts.clock, ttlMs: settings.lifetimes.ceremonyMs });
  const guarded = (
    path: string,
    handler: (body: unknown, client: string) => Promise<Record<string, unknown>>,
  ) =>
    app.post(path, async (c) => {
      try {
        assertOwnPage(c, settings.issuer, "calls come only from this server's own pages");
        const client = parts.budgetKey(c);
        budget.charge(client);
        return c.json(await handler(await readJson(c), client));
      } catch (error) {
        return oauthErrorResponse(c, error);
      }
    });
  guarded("/oauth/passkeys/device-code/options", async (_body, client) => {
    if (!parts.passkeys.hasAny()) throw new ConnectorError("invalid_request", "no passkey is enrolled yet");
    const options = await parts.passkeys.authenticationOptions();
    return { ticketId: tickets.add(client, options.challenge, null), options };
  });
  guarded("/oauth/passkeys/device-code", async (raw) => {
    const body = codeBody.safeParse(raw);
    const ticket = body.success ? tickets.take(body.data.ticketId) : undefined;
    if (!body.success || ticket === undefined)
      throw new ConnectorError("invalid_request", "unknown or expired request");
    await parts.passkeys.verifyAuthentication(
      body.data.response as unknown as AuthenticationResponseJSON,
      ticket.challenge,
    );
    parts.log("oauth: a signed-in device asked for a code to add another device");
    return issueTerminalEnrollmentCode(settings.stateDir, parts.clock);
  });
}

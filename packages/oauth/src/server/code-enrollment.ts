/**
 * @module Adding a passkey on a device that has none (a phone), with a one-time code (ADR 0050):
 * the code `t3-connector oauth enroll` printed on the terminal (read fresh, so no restart), or,
 * while no passkey is enrolled yet, the one printed at start. Called by the approval page from
 * afar, on the issuer's own origin: no sign-in transaction, so the code is the whole proof, and it
 * serves once. The new passkey signs in and approves like the first one: one person, one set.
 */
import type { RegistrationResponseJSON } from "@simplewebauthn/server";
import { ConnectorError } from "@t3-connector/core";
import { RequestBudget } from "@t3-connector/core/http-edge";
import type { Context, Hono } from "hono";
import { z } from "zod";
import { consumeTerminalCode, matchesTerminalCode } from "../passkeys/terminal-enrollment-code.js";
import { assertOwnPage, oauthErrorResponse, readJson } from "./http-helpers.js";
import { OneTimeChallenges } from "./one-time-challenges.js";
import type { PageRouteParts } from "./page-route-parts.js";
import { RATE_LIMITS } from "./rate-budget.js";

const optionsBody = z.strictObject({ code: z.string().max(64), name: z.string().max(64).optional() });
const verifyBody = z.strictObject({
  registrationId: z.string().min(1).max(256),
  response: z.looseObject({ id: z.string().min(1).max(1024), type: z.string() }),
});

type CodeSource = "terminal" | "start-up";

export function mountCodeEnrollment(app: Hono, parts: PageRouteParts): void {
  const { settings } = parts;
  const budget = new RequestBudget({ clock: parts.clock, limit: RATE_LIMITS.ceremony });
  const registrations = new OneTimeChallenges<{ code: string; source: CodeSource; name?: string }>({
    clock: parts.clock,
    ttlMs: settings.lifetimes.ceremonyMs,
  });
  const spent = new Set<string>();
  const sourceOf = async (code: string): Promise<CodeSource | undefined> => {
    if (await matchesTerminalCode(settings.stateDir, code, parts.clock)) return "terminal";
    if (!parts.passkeys.hasAny() && parts.enrollmentCode.matches(code)) return "start-up";
    return undefined;
  };
  const post = (path: string, handler: (c: Context, body: unknown) => Promise<Response>) =>
    app.post(path, async (c) => {
      try {
        assertOwnPage(c, settings.issuer, "calls come only from this server's own pages");
        budget.charge(parts.budgetKey(c));
        return await handler(c, await readJson(c));
      } catch (error) {
        return oauthErrorResponse(c, error);
      }
    });
  post("/oauth/passkeys/enroll/options", async (c, raw) => {
    const body = optionsBody.safeParse(raw);
    const source = body.success ? await sourceOf(body.data.code) : undefined;
    if (!body.success || source === undefined) {
      throw new ConnectorError(
        "invalid_request",
        "the code is wrong, expired or used: run t3-connector oauth enroll",
      );
    }
    const options = await parts.passkeys.registrationOptions();
    const name = body.data.name?.trim().slice(0, 64);
    const registrationId = registrations.add(parts.budgetKey(c), options.challenge, {
      code: body.data.code,
      source,
      ...(name ? { name } : {}),
    });
    return c.json({ registrationId, options });
  });
  post("/oauth/passkeys/enroll/verify", async (c, raw) => {
    const body = verifyBody.safeParse(raw);
    const pending = body.success ? registrations.take(body.data.registrationId) : undefined;
    if (!body.success || pending === undefined) {
      throw new ConnectorError("invalid_request", "unknown or expired enrollment");
    }
    // The code is spent before the registration is verified, so it serves once whatever happens.
    const { code, source } = pending.value;
    if (source === "terminal") {
      // Claimed before any await, so two verifications with one code cannot both pass.
      if (spent.has(code)) throw new ConnectorError("invalid_request", "the enrollment code was used");
      spent.add(code);
      if (!(await matchesTerminalCode(settings.stateDir, code, parts.clock))) {
        throw new ConnectorError("invalid_request", "the enrollment code was used or expired");
      }
      await consumeTerminalCode(settings.stateDir);
    } else if (parts.passkeys.hasAny() || !parts.enrollmentCode.consume(code)) {
      throw new ConnectorError("invalid_request", "the enrollment code was used");
    }
    await parts.passkeys.verifyRegistration(
      body.data.response as unknown as RegistrationResponseJSON,
      pending.challenge,
      pending.value.name,
    );
    parts.log(`oauth: a passkey was added with the ${source} code`);
    return c.json({ enrolled: true });
  });
}

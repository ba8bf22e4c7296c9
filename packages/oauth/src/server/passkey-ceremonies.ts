/**
 * The page's passkey calls: enroll the first passkey (with the terminal's one-time code), then sign
 * in with it. Each ceremony's challenge serves once and expires (OneTimeChallenges).
 */
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { ConnectorError } from "@t3-connector/core";
import { z } from "zod";
import { OneTimeChallenges } from "./one-time-challenges.js";
import type { PostPageCall } from "./page-call.js";
import type { PageRouteParts } from "./page-routes.js";

const webauthnResponse = z.looseObject({ id: z.string().min(1).max(1024), type: z.string() });

export function mountEnrollment(post: PostPageCall, parts: PageRouteParts): void {
  const registrations = new OneTimeChallenges<{ code: string }>({
    clock: parts.clock,
    ttlMs: parts.settings.lifetimes.ceremonyMs,
  });
  post("/oauth/enroll/options", async (c, { body }) => {
    const code = typeof body.code === "string" ? body.code : "";
    if (parts.passkeys.hasAny())
      throw new ConnectorError("invalid_request", "a passkey is already enrolled; sign in");
    if (!parts.enrollmentCode.matches(code)) {
      throw new ConnectorError("invalid_request", "the enrollment code is wrong or was used");
    }
    const options = await parts.passkeys.registrationOptions();
    const registrationId = registrations.add(options.challenge, { code });
    return c.json({ registrationId, options });
  });
  post("/oauth/enroll/verify", async (c, { body }) => {
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
  });
}

export function mountSignIn(post: PostPageCall, parts: PageRouteParts): void {
  const signIns = new OneTimeChallenges<{ transactionId: string }>({
    clock: parts.clock,
    ttlMs: parts.settings.lifetimes.ceremonyMs,
  });
  post("/oauth/sign-in/options", async (c, { transaction }) => {
    if (!parts.passkeys.hasAny()) throw new ConnectorError("invalid_request", "enroll a passkey first");
    const options = await parts.passkeys.authenticationOptions();
    const ticketId = signIns.add(options.challenge, { transactionId: transaction.id });
    return c.json({ ticketId, options });
  });
  post("/oauth/sign-in/verify", async (c, { transaction, body }) => {
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
  });
}

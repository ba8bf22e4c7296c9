/**
 * The page's passkey calls. The first passkey is enrolled with the terminal's one-time code, and
 * that enrollment (user verification required) signs the sign-in in: one ceremony the first time.
 * Afterwards each sign-in is one assertion. Enrollment challenges wait in a small table only the
 * code's holder can add to; sign-in challenges are bound to their transaction and cost the server
 * nothing until a passkey answers one (BoundChallenges).
 */
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { ConnectorError } from "@t3-connector/core";
import { z } from "zod";
import { BoundChallenges } from "./bound-challenges.js";
import { OneTimeChallenges } from "./one-time-challenges.js";
import type { PostPageCall } from "./page-call.js";
import type { PageRouteParts } from "./page-route-parts.js";

const webauthnResponse = z.looseObject({ id: z.string().min(1).max(1024), type: z.string() });

export function mountEnrollment(post: PostPageCall, parts: PageRouteParts): void {
  const registrations = new OneTimeChallenges<{ code: string; transactionId: string }>({
    clock: parts.clock,
    ttlMs: parts.settings.lifetimes.ceremonyMs,
  });
  post("/oauth/enroll/options", async (c, { transaction, body }) => {
    const code = typeof body.code === "string" ? body.code : "";
    if (parts.passkeys.hasAny())
      throw new ConnectorError("invalid_request", "a passkey is already enrolled; sign in");
    if (!parts.enrollmentCode.matches(code)) {
      throw new ConnectorError("invalid_request", "the enrollment code is wrong or was used");
    }
    const options = await parts.passkeys.registrationOptions();
    const registrationId = registrations.add(parts.budgetKey(c), options.challenge, {
      code,
      transactionId: transaction.id,
    });
    return c.json({ registrationId, options });
  });
  post("/oauth/enroll/verify", async (c, { transaction, body }) => {
    const pending = registrations.take(String(body.registrationId ?? ""));
    const response = webauthnResponse.safeParse(body.response);
    if (pending === undefined || pending.value.transactionId !== transaction.id || !response.success)
      throw new ConnectorError("invalid_request", "unknown or expired enrollment");
    // The code is spent before the registration is verified, so it serves once whatever happens.
    if (parts.passkeys.hasAny() || !parts.enrollmentCode.consume(pending.value.code)) {
      throw new ConnectorError("invalid_request", "the enrollment code was used");
    }
    const credentialId = await parts.passkeys.verifyRegistration(
      response.data as unknown as RegistrationResponseJSON,
      pending.challenge,
    );
    // Creating the passkey verified the person (UV required) on this origin, for this sign-in.
    parts.transactions.markSignedIn(transaction, credentialId);
    parts.log("oauth: the first passkey was enrolled");
    return c.json({ enrolled: true, signedIn: true });
  });
}

export function mountSignIn(post: PostPageCall, parts: PageRouteParts): void {
  const signIns = new BoundChallenges({ clock: parts.clock, ttlMs: parts.settings.lifetimes.ceremonyMs });
  post("/oauth/sign-in/options", async (c, { transaction }) => {
    if (!parts.passkeys.hasAny()) throw new ConnectorError("invalid_request", "enroll a passkey first");
    const options = await parts.passkeys.authenticationOptions(signIns.mint(transaction.id));
    return c.json({ ticketId: options.challenge, options });
  });
  post("/oauth/sign-in/verify", async (c, { transaction, body }) => {
    const response = webauthnResponse.safeParse(body.response);
    if (!response.success) throw new ConnectorError("invalid_request", "unknown or expired sign-in");
    const credentialId = await parts.passkeys.verifyAuthentication(
      response.data as unknown as AuthenticationResponseJSON,
      {
        check: (challenge) => signIns.check(challenge, transaction.id),
        spend: (challenge) => signIns.spend(challenge),
      },
    );
    parts.transactions.markSignedIn(transaction, credentialId);
    return c.json({ signedIn: true });
  });
}

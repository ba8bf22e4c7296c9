/**
 * @module Passkey enrollment (the one-time code, or a step-up with an enrolled passkey) and
 * removal; every enrollment, removal and failed attempt is audited by code only.
 */
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { ConnectorError } from "@t3-connector/core";
import { Hono } from "hono";
import { cleanText } from "../../approval/index.js";
import * as bodies from "../schemas.js";
import { codeOf, type GateParts, jsonBody } from "./route-kit.js";

export function passkeyRoutes(parts: GateParts): Hono {
  const { passkeys, enrollment, events, audit, log } = parts;
  return new Hono()
    .post("/api/enrollment/options", jsonBody(bodies.enrollmentOptionsBody), async (c) => {
      const body = c.get("body");
      const name = cleanText(body.name, 64) ?? `Passkey ${passkeys.list().length + 1}`;
      const result = await ("code" in body
        ? enrollment.begin({ code: body.code, name })
        : enrollment.begin({
            stepUp: {
              ticketId: body.ticketId,
              response: body.response as unknown as AuthenticationResponseJSON,
            },
            name,
          })
      ).catch((error: unknown) => {
        audit({ event: "enrollment_failed", code: codeOf(error) });
        throw error;
      });
      return c.json(result);
    })
    .post("/api/enrollment/finish", jsonBody(bodies.enrollmentFinishBody), async (c) => {
      const { registrationId, response } = c.get("body");
      const first = !passkeys.hasAny();
      const passkey = await enrollment
        .finish(registrationId, response as unknown as RegistrationResponseJSON)
        .catch((error: unknown) => {
          audit({ event: "enrollment_failed", code: codeOf(error) });
          throw error;
        });
      audit({ event: "passkey_enrolled", credentialId: passkey.id, first });
      events.publish({ type: "passkeys", data: {} });
      log(`passkey enrolled: ${passkey.id.slice(0, 8)}…`);
      return c.json({ passkey, passkeys: passkeys.list() });
    })
    .post("/api/passkeys/step-up", jsonBody(bodies.stepUpBody), async (c) => {
      const body = c.get("body");
      const purpose = body.purpose === "enroll" ? "enroll" : `remove:${body.credentialId}`;
      return c.json(await enrollment.stepUpOptions(purpose));
    })
    .post("/api/passkeys/remove", jsonBody(bodies.removeBody), async (c) => {
      const { credentialId, ticketId, response } = c.get("body");
      try {
        await enrollment.redeemStepUp(
          ticketId,
          `remove:${credentialId}`,
          response as unknown as AuthenticationResponseJSON,
        );
      } catch (error) {
        audit({ event: "passkey_removal_failed", code: codeOf(error) });
        throw error;
      }
      const removed = await passkeys.remove(credentialId);
      if (!removed) throw new ConnectorError("credential_unknown", "no passkey has this id");
      audit({ event: "passkey_removed", credentialId });
      events.publish({ type: "passkeys", data: {} });
      log(`passkey removed: ${credentialId.slice(0, 8)}…`);
      return c.json({ passkeys: passkeys.list() });
    });
}

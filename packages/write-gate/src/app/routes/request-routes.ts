/** @module The approval request routes: view, challenge, deny, approve (with a passkey). */
import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import { Hono } from "hono";
import { leaseStatus } from "../lease-status.js";
import * as bodies from "../schemas.js";
import { codeOf, type GateParts, jsonBody } from "./route-kit.js";

export function requestRoutes(parts: GateParts): Hono {
  const { desk, keeper, audit, log } = parts;
  return new Hono()
    .post("/api/requests/view", jsonBody(bodies.requestRef), (c) => {
      return c.json(desk.view(c.get("body").requestId));
    })
    .post("/api/requests/options", jsonBody(bodies.requestOptionsBody), async (c) => {
      const { requestId, selection } = c.get("body");
      return c.json(await desk.challenge(requestId, selection));
    })
    .post("/api/requests/deny", jsonBody(bodies.requestRef), (c) => {
      const { requestId } = c.get("body");
      // Denying grants nothing, so it needs no passkey (like revoke).
      desk.deny(requestId);
      audit({ event: "approval_denied", requestId });
      log(`approval request denied: ${requestId.slice(0, 8)}…`);
      return c.json({ denied: true });
    })
    .post("/api/requests/approve", jsonBody(bodies.approveBody), async (c) => {
      const { requestId, response } = c.get("body");
      const lease = await desk
        .approve(requestId, response as unknown as AuthenticationResponseJSON)
        .catch((error: unknown) => {
          audit({ event: "approval_failed", requestId, code: codeOf(error) });
          throw error;
        });
      log(`lease granted: ${lease.leaseId.slice(0, 8)}… fingerprint ${lease.scopeFingerprint.slice(0, 16)}`);
      return c.json(leaseStatus(keeper, lease.leaseId));
    });
}

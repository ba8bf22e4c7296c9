/** @module Strict shapes of the page routes' bodies; WebAuthn responses are checked by the library. */
import { z } from "zod";
import { selectionSchema } from "../approval/index.js";

const opaqueId = z.string().min(1).max(256);
/** A WebAuthn response JSON; `@simplewebauthn/server` verifies every field it needs. */
const webauthnResponse = z.looseObject({ id: z.string().min(1).max(2048), type: z.literal("public-key") });

export const emptyBody = z.strictObject({});
export const requestRef = z.strictObject({ requestId: opaqueId });
export const leaseRef = z.strictObject({ leaseId: opaqueId });
export const requestOptionsBody = z.strictObject({
  requestId: opaqueId,
  selection: selectionSchema.optional(),
});
export const approveBody = z.strictObject({ requestId: opaqueId, response: webauthnResponse });
/** The passkey's name: trimmed, 1 to 64 characters; the gate numbers it when absent. */
const passkeyName = z.string().trim().min(1).max(64).optional();
export const enrollmentOptionsBody = z.union([
  z.strictObject({ code: z.string().max(64), name: passkeyName }),
  z.strictObject({ ticketId: opaqueId, response: webauthnResponse, name: passkeyName }),
]);
export const enrollmentFinishBody = z.strictObject({ registrationId: opaqueId, response: webauthnResponse });
export const stepUpBody = z.union([
  z.strictObject({ purpose: z.literal("enroll") }),
  z.strictObject({ purpose: z.literal("remove"), credentialId: opaqueId }),
]);
export const removeBody = z.strictObject({
  credentialId: opaqueId,
  ticketId: opaqueId,
  response: webauthnResponse,
});

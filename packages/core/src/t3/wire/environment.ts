import { z } from "zod";
import { openEnum } from "./lenient.js";

/** `GET /.well-known/t3/environment`. */
export const EnvironmentDescriptorSchema = z.looseObject({
  environmentId: z.string().min(1),
  label: z.string(),
  platform: z.looseObject({ os: z.string(), arch: z.string(), machine: z.string().optional() }).optional(),
  serverVersion: z.string(),
  /** Absent on protocol-1 and transitional V2 servers (fixtures 01, 01b). */
  orchestrationProtocolVersion: z.number().int().optional(),
  capabilities: z.record(z.string(), z.unknown()).optional().default({}),
});
export type EnvironmentDescriptor = z.output<typeof EnvironmentDescriptorSchema>;

export const ServerAuthDescriptorSchema = z.looseObject({
  policy: openEnum(["desktop-managed-local", "loopback-browser", "remote-reachable", "unsafe-no-auth"]),
  bootstrapMethods: z.array(z.string()).optional().default([]),
  sessionMethods: z.array(z.string()).optional().default([]),
  sessionCookieName: z.string().optional(),
  serverUpdateScope: z.string().optional(),
});
export type ServerAuthDescriptor = z.output<typeof ServerAuthDescriptorSchema>;

/**
 * `GET /api/auth/session`. It answers 200 even without a valid credential (fixtures 02, 03), so
 * `authenticated` is the only truth; `permissions` exists on granular-permission servers and is
 * preferred over `scopes` when present.
 */
export const AuthSessionStateSchema = z.looseObject({
  authenticated: z.boolean(),
  auth: ServerAuthDescriptorSchema.optional(),
  scopes: z.array(z.string()).optional(),
  permissions: z.array(z.string()).optional(),
  sessionMethod: z.string().optional(),
  expiresAt: z.string().optional(),
});
export type AuthSessionState = z.output<typeof AuthSessionStateSchema>;

/** The scopes a session really holds: `permissions` when the server sends it, else `scopes`. */
export function grantedScopes(session: AuthSessionState): string[] {
  return [...(session.permissions ?? session.scopes ?? [])];
}

/** `POST /api/auth/websocket-ticket`. */
export const WebSocketTicketSchema = z.looseObject({
  ticket: z.string().min(1),
  expiresAt: z.string().optional(),
});
export type WebSocketTicket = z.output<typeof WebSocketTicketSchema>;

/** `POST /oauth/token` success (`AuthAccessTokenResult`). */
export const AccessTokenResultSchema = z.looseObject({
  access_token: z.string().min(1),
  issued_token_type: z.string().optional(),
  token_type: z.string(),
  expires_in: z.number().optional(),
  scope: z.string().optional(),
});
export type AccessTokenResult = z.output<typeof AccessTokenResultSchema>;

/** Tagged JSON error body of every T3 HTTP error. */
export const T3ErrorBodySchema = z.looseObject({
  _tag: z.string().optional(),
  code: z.string().optional(),
  reason: z.string().optional(),
  requiredScope: z.string().optional(),
  traceId: z.string().optional(),
  message: z.string().optional(),
});
export type T3ErrorBody = z.output<typeof T3ErrorBodySchema>;

import type { SimClock } from "../clock.js";
import type { OrchestrationReadRoute } from "../model/compat-0031.js";
import type { EnvironmentDescriptor, EnvironmentModel } from "../model/contract.js";
import type { AuthStore, Session } from "./auth-store.js";
import type { FaultController } from "./faults.js";
import type { AuthInvalidReason } from "./http-bodies.js";
import type { SpaFallback } from "./spa-fallback.js";

/** What the transport needs from a model: the RPC/HTTP contract plus the descriptor. */
export interface TransportModel extends EnvironmentModel {
  descriptor(): EnvironmentDescriptor;
  /** Whether `GET /api/projects` exists (the 0.0.46 age may play it absent); default yes. */
  servesProjectsRoute?(): boolean;
  /** Scopes a pairing grants beyond an explicit `scope` (the 0.0.46 age may play a superset). */
  extraGrantedScopes?(): readonly string[];
}

/** Everything one environment's HTTP routes and sockets share. */
export interface EnvironmentContext {
  readonly model: TransportModel;
  readonly clock: SimClock;
  readonly auth: AuthStore;
  readonly faults: FaultController;
  /** A transitional V2 server: no protocol negotiation on `/ws` (fixture 83). */
  readonly transitional: boolean;
  /** Whether this server's version routes an orchestration read (0.0.31 lacks bounded/history). */
  servesRead(route: OrchestrationReadRoute): boolean;
  /** What a GET no route matches answers: the web app's page or the from-source 503. */
  readonly spaFallback: SpaFallback;
  /** The port this environment listens on (part of the session cookie name). */
  port(): number;
  /** Effect fiber ids shown in Interrupt causes; one counter per environment. */
  nextFiberId(): number;
  /** Wall-clock delay tracked by the server so `close()` leaves no timer behind. */
  delay(ms: number): Promise<void>;
}

export type CredentialResult =
  | { readonly ok: true; readonly session: Session }
  | { readonly ok: false; readonly reason: AuthInvalidReason };

/** `Authorization: Bearer <token>`, prefix exactly as T3 parses it; undefined when absent. */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value === "") return undefined;
  return value.startsWith("Bearer ") ? value.slice("Bearer ".length) : "";
}

export function resolveBearer(
  ctx: EnvironmentContext,
  header: string | string[] | undefined,
): CredentialResult {
  const token = bearerToken(header);
  if (token === undefined) return { ok: false, reason: "missing_credential" };
  if (ctx.faults.current.expireTokens) return { ok: false, reason: "invalid_credential" };
  const session = ctx.auth.session(token);
  return session ? { ok: true, session } : { ok: false, reason: "invalid_credential" };
}

export function resolveTicket(ctx: EnvironmentContext, ticket: string): CredentialResult {
  if (ctx.faults.current.expireTokens) return { ok: false, reason: "invalid_credential" };
  const session = ctx.auth.ticketSession(ticket);
  return session ? { ok: true, session } : { ok: false, reason: "invalid_credential" };
}

/**
 * The scopes a session holds right now: none once it expired (by the clock or the
 * `expireTokens` fault), otherwise its own plus `faults.extraScopes`.
 */
export function effectiveScopes(ctx: EnvironmentContext, session: Session): string[] {
  if (ctx.faults.current.expireTokens || !ctx.auth.isLive(session)) return [];
  const scopes = [...session.scopes];
  for (const extra of ctx.faults.current.extraScopes ?? []) if (!scopes.includes(extra)) scopes.push(extra);
  return scopes;
}

/** The descriptor as served, after the `wrongEnvironmentId` fault. */
export function servedDescriptor(ctx: EnvironmentContext): EnvironmentDescriptor {
  const descriptor = ctx.model.descriptor();
  const wrongId = ctx.faults.current.wrongEnvironmentId;
  return wrongId === undefined ? descriptor : { ...descriptor, environmentId: wrongId };
}

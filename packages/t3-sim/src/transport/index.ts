export type { PairingGrant, Session } from "./auth-store.js";
export { AuthStore, PAIRING_CODE_TTL_MS, SESSION_TTL_MS, WEBSOCKET_TICKET_TTL_MS } from "./auth-store.js";
export type { EnvironmentContext, TransportModel } from "./environment-context.js";
export type { EnvironmentServer, EnvironmentServerOptions } from "./environment-server.js";
export { startEnvironmentServer } from "./environment-server.js";
export type { FaultSet, HeldKind } from "./faults.js";
export { FaultController } from "./faults.js";
export { ADMINISTRATIVE_SCOPES, SCOPE_OPERATE, SCOPE_READ, STANDARD_CLIENT_SCOPES } from "./scopes.js";

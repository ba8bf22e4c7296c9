export { createGateApp, type GateApp, type GateAppDeps } from "./create-gate-app.js";
export { type LeaseStatus, leaseStatus, type OpenLeaseStatus, openLeases } from "./lease-status.js";
export { type RelayDoor, relayDoor } from "./routes/relay-door.js";
export { RELAY_RATE_LIMIT_PER_MINUTE, type RelayHandler } from "./routes/relay-route.js";
export { PAGE_BODY_LIMIT } from "./routes/route-kit.js";
export { type StartupWarning, StartupWarnings } from "./startup-warnings.js";

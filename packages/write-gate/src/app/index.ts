export {
  createGateApp,
  type GateApp,
  type GateAppDeps,
  PAGE_BODY_LIMIT,
  type RelayHandler,
} from "./create-gate-app.js";
export { type LeaseStatus, leaseStatus, type OpenLeaseStatus, openLeases } from "./lease-status.js";
export { type StartupWarning, StartupWarnings } from "./startup-warnings.js";

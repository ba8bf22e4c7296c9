export {
  CONTENT_SECURITY_POLICY,
  hostGuard,
  loopbackGuard,
  machineRouteGuard,
  RateBudget,
  type RateLimitOptions,
  readJsonBody,
  securityHeaders,
  stateChangeGuard,
} from "./guards.js";

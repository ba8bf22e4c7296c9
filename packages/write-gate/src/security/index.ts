export { clientKey, vouchedClient } from "./forwarded-client.js";
export {
  CONTENT_SECURITY_POLICY,
  hostGuard,
  loopbackGuard,
  machineRouteGuard,
  originIs,
  pageOrigin,
  RateBudget,
  type RateLimitOptions,
  readJsonBody,
  securityHeaders,
  stateChangeGuard,
} from "./guards.js";

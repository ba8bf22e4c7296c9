export { clientKey, vouchedClient } from "./forwarded-client.js";
export {
  AddressBudget,
  CONTENT_SECURITY_POLICY,
  hostGuard,
  loopbackGuard,
  machineRouteGuard,
  originIs,
  pageOrigin,
  type RateLimitOptions,
  readJsonBody,
  securityHeaders,
  stateChangeGuard,
} from "./guards.js";

export { clientKey, vouchedClient } from "./forwarded-client.js";
export {
  AddressBudget,
  CONTENT_SECURITY_POLICY,
  hostGuard,
  isJsonContentType,
  isLoopbackAddress,
  jsonAnswerHeaders,
  loopbackGuard,
  machineRouteGuard,
  originIs,
  pageOrigin,
  type RateLimitOptions,
  readJsonBody,
  readJsonRequest,
  securityHeaders,
  stateChangeGuard,
} from "./guards.js";

export type { BackgroundService, BackgroundServices } from "./background-service.js";
export {
  assertBindIsProtected,
  bearerGuard,
  loadBearerToken,
  MIN_BEARER_TOKEN_LENGTH,
} from "./bearer-auth.js";
export { buildAllowlist, type HostOriginAllowlist, hostOriginGuard } from "./host-origin-guard.js";
export {
  DEFAULT_HTTP_HOST,
  DEFAULT_HTTP_LIMITS,
  DEFAULT_HTTP_PORT,
  type HttpLimits,
  type HttpServeOptions,
  MCP_PATH,
} from "./http-options.js";
export { isLoopbackHost } from "./loopback.js";
export { type ServeHttpExtras, serveHttp } from "./serve-http.js";
export type { HttpReadyLine } from "./serve-http-announce.js";

import type { AuthInfo, Server } from "@modelcontextprotocol/server";
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { bearerGuard } from "./bearer-auth.js";
import { type HostOriginAllowlist, hostOriginGuard } from "./host-origin-guard.js";
import { type HttpLimits, MCP_PATH } from "./http-options.js";
import { mcpEndpoint } from "./mcp-endpoint.js";
import type { Readiness } from "./readiness.js";
import { mcpBodyOf, readMcpBody } from "./request-body.js";
import type { InFlightRequests } from "./request-limits.js";

/** An authorization layer for `/mcp` that brings its own routes (the OAuth session profile). */
export interface HttpAuthProvider {
  mount(app: Hono): void;
  /** In front of `/mcp`, before the body is read: it checks headers only (Host, token, scope). */
  readonly mcpGuard: MiddlewareHandler;
  /**
   * Hears the body `readMcpBody` parsed, once, after the guard let the request through (the OAuth
   * profile restarts the session's idle window on a `tools/call`); a Response ends the request.
   */
  readonly mcpBodyRead?: (c: Context, parsed: unknown) => Promise<Response | undefined>;
  /** Releases what it holds (the OAuth state directory's lock) at shutdown. */
  close?(): Promise<void>;
}

export interface HttpAppParts {
  /** Read on each request: it names the bound port, known only once the socket listens. */
  readonly allowlist: () => HostOriginAllowlist | undefined;
  /** Absent: no authentication (loopback only; the caller enforces that). */
  readonly bearerToken?: string;
  /**
   * Absent: no OAuth. Present (the oauth package's profile): its routes are mounted and its guard
   * stands in front of `/mcp` instead of the static bearer (the two are never both on).
   */
  readonly auth?: HttpAuthProvider;
  /** More routes of the profile's origin (the approval page from afar, ADR 0050). */
  readonly extraRoutes?: (app: Hono) => void;
  readonly limits: HttpLimits;
  readonly inFlight: InFlightRequests;
  readonly readiness: Readiness;
  /**
   * Builds the server of one request; its tools may depend on the request's OAuth session, which
   * `authInfoOf` names (ADR 0049).
   */
  readonly createServer: (authInfo: AuthInfo | undefined) => Server;
  /** The session a guarded `/mcp` request was let through with (the OAuth profile only). */
  readonly authInfoOf?: (c: Context) => AuthInfo | undefined;
  /** Per-request detail (debug). */
  readonly log: (line: string) => void;
  /** A request that failed unexpectedly (error). */
  readonly logError: (line: string) => void;
  /** A refused Host or Origin, once per distinct value (warn). */
  readonly logRefusal?: (line: string) => void;
}

/**
 * The read server over HTTP. Order of the checks on `/mcp`: Host and Origin (403), bearer
 * (401), method (405), the body read whole with core's bounded reader and parsed once (413 declared
 * or counted, 400), what the auth layer does with the parsed body, shutdown (503),
 * concurrency counted in calls (429; 400 for a batch larger than the limit), then MCP. The probes
 * pass the Host and Origin check too, but need no token: they say nothing a token protects.
 */
export function createHttpApp(parts: HttpAppParts): Hono {
  const app = new Hono();
  app.use("*", async (c, next) => {
    await next();
    c.res.headers.set("Cache-Control", "no-store");
    c.res.headers.set("X-Content-Type-Options", "nosniff");
  });
  app.use("*", hostOriginGuard(parts.allowlist, parts.logRefusal));

  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/readyz", async (c) => {
    const report = await parts.readiness.report(parts.inFlight.draining);
    return c.json(report, report.status === "ready" ? 200 : 503);
  });

  parts.auth?.mount(app);
  parts.extraRoutes?.(app);
  if (parts.auth !== undefined) app.use(MCP_PATH, parts.auth.mcpGuard);
  else if (parts.bearerToken !== undefined) app.use(MCP_PATH, bearerGuard(parts.bearerToken));
  // Stateless: no SSE stream to open with GET and no session to end with DELETE.
  app.on(["GET", "DELETE", "PUT", "PATCH"], MCP_PATH, (c) => {
    c.header("Allow", "POST");
    return c.json({ error: "method_not_allowed" }, 405);
  });
  app.post(
    MCP_PATH,
    readMcpBody(parts.limits.maxBodyBytes),
    afterBody(parts.auth),
    parts.inFlight.guard(parts.log),
    mcpEndpoint({
      createServer: parts.createServer,
      ...(parts.authInfoOf === undefined ? {} : { authInfoOf: parts.authInfoOf }),
      log: parts.log,
    }),
  );

  app.notFound((c) => c.json({ error: "not_found" }, 404));
  app.onError((error, c) => {
    parts.logError(`http: ${c.req.method} ${c.req.path} failed: ${error.name}: ${error.message}`);
    return c.json({ error: "internal" }, 500);
  });
  return app;
}

/** The auth layer's look at the parsed body (the OAuth profile's idle window); a pass-through without one. */
function afterBody(auth: HttpAuthProvider | undefined): MiddlewareHandler {
  const heard = auth?.mcpBodyRead;
  return async function bodyToAuth(c, next) {
    const refused = await heard?.(c, mcpBodyOf(c.req.raw)?.parsed);
    if (refused !== undefined) return refused;
    await next();
  };
}

import type { OrchestrationReadRoute } from "../model/compat-0031.js";
import type { HttpOutcome } from "../model/contract.js";
import {
  type EnvironmentContext,
  effectiveScopes,
  resolveBearer,
  servedDescriptor,
} from "./environment-context.js";
import { emptyBadRequest, emptyNotFound, type HttpAnswer, jsonAnswer } from "./http-answer.js";
import {
  handleOauthToken,
  handlePairingToken,
  handleSession,
  handleWebSocketTicket,
} from "./http-auth-routes.js";
import { authInvalidBody, internalErrorBody, requestInvalidBody, scopeRequiredBody } from "./http-bodies.js";
import type { ParsedRequest } from "./parsed-request.js";
import { SCOPE_OPERATE, SCOPE_READ } from "./scopes.js";
import { spaFallbackAnswer } from "./spa-fallback.js";

/** The header protocol-2 clients send on orchestration reads. */
export const ORCHESTRATION_PROTOCOL_HEADER = "x-t3-orchestration-protocol";

/**
 * Routes one request to its answer. Unknown GETs, and reads this server's version lacks, hit the
 * SPA fallback; other methods 404.
 */
export async function routeRequest(ctx: EnvironmentContext, request: ParsedRequest): Promise<HttpAnswer> {
  const { method, url } = request;
  const path = url.pathname;
  if (method === "GET" && path === "/.well-known/t3/environment")
    return jsonAnswer(200, servedDescriptor(ctx));
  if (method === "GET" && path === "/api/auth/session") return handleSession(ctx, request);
  if (method === "POST" && path === "/oauth/token") return handleOauthToken(ctx, request);
  if (method === "POST" && path === "/api/auth/websocket-ticket") return handleWebSocketTicket(ctx, request);
  if (method === "POST" && path === "/api/auth/pairing-token") return handlePairingToken(ctx, request);
  if (method === "GET" && path === "/api/projects" && (ctx.model.servesProjectsRoute?.() ?? true)) {
    return authorized(ctx, request, SCOPE_READ, () => outcomeAnswer(ctx.model.httpProjects()));
  }
  if (method === "POST" && path === "/api/projects/mutate") {
    return authorized(ctx, request, SCOPE_OPERATE, () => {
      let body: unknown;
      try {
        body = JSON.parse(request.body);
      } catch {
        return jsonAnswer(400, requestInvalidBody("invalid_command"));
      }
      return outcomeAnswer(ctx.model.httpProjectsMutate(body));
    });
  }
  if (method === "GET") {
    const read = orchestrationRead(ctx, path, url);
    if (read && ctx.servesRead(read.route)) return orchestrationAnswer(ctx, request, read);
    return spaFallbackAnswer(ctx.spaFallback);
  }
  return emptyNotFound();
}

interface OrchestrationRead {
  readonly route: OrchestrationReadRoute;
  /** The `reason` of T3's 500 body for this endpoint. */
  readonly failureReason: string;
  readonly run: () => HttpOutcome;
  /** The history route's `cursor` query parameter is required (protocol 2). */
  readonly requiresCursor?: boolean;
  readonly hasCursor?: boolean;
}

function orchestrationRead(ctx: EnvironmentContext, path: string, url: URL): OrchestrationRead | undefined {
  if (path === "/api/orchestration/shell") {
    return {
      route: "shell",
      failureReason: "orchestration_snapshot_failed",
      run: () => ctx.model.httpShell(),
    };
  }
  const match = /^\/api\/orchestration\/threads\/([^/]+)(\/bounded|\/history)?$/.exec(path);
  if (!match?.[1]) return undefined;
  let threadId: string;
  try {
    threadId = decodeURIComponent(match[1]);
  } catch {
    return undefined;
  }
  switch (match[2]) {
    case undefined:
      return {
        route: "thread",
        failureReason: "orchestration_thread_snapshot_failed",
        run: () => ctx.model.httpThread(threadId),
      };
    case "/bounded":
      return {
        route: "bounded",
        failureReason: "orchestration_thread_bounded_snapshot_failed",
        run: () => ctx.model.httpThreadBounded(threadId),
      };
    default:
      return {
        route: "history",
        failureReason: "orchestration_thread_history_failed",
        requiresCursor: true,
        hasCursor: url.searchParams.has("cursor"),
        run: () => ctx.model.httpThreadHistory(threadId, url.searchParams.get("cursor") ?? undefined),
      };
  }
}

/**
 * Faults first (a misrouted or broken server answers before auth), then auth, the protocol
 * header, the scope, and finally the model.
 */
function orchestrationAnswer(
  ctx: EnvironmentContext,
  request: ParsedRequest,
  read: OrchestrationRead,
): HttpAnswer {
  const faults = ctx.faults.current;
  if (faults.nonJsonOrchestration === "html") return spaFallbackAnswer("web-build");
  if (faults.nonJsonOrchestration === "text") return spaFallbackAnswer("no-web-build");
  if (faults.httpStatus !== undefined)
    return jsonAnswer(faults.httpStatus, internalErrorBody(read.failureReason));
  // Protocol 2: the header is a required literal and the history route requires `cursor`; the
  // request is decoded before the handler (and its auth) runs, and a failure is an empty 400.
  // The captured 0.0.31 clients sent no header and were answered (fixtures 40-46).
  if (!ctx.transitional) {
    if (request.headers[ORCHESTRATION_PROTOCOL_HEADER] !== "2") return emptyBadRequest();
    if (read.requiresCursor && !read.hasCursor) return emptyBadRequest();
  }
  return authorized(ctx, request, SCOPE_READ, () => outcomeAnswer(read.run()));
}

function authorized(
  ctx: EnvironmentContext,
  request: ParsedRequest,
  requiredScope: string,
  handler: () => HttpAnswer,
): HttpAnswer {
  const credential = resolveBearer(ctx, request.headers.authorization);
  if (!credential.ok) return jsonAnswer(401, authInvalidBody(credential.reason));
  if (!effectiveScopes(ctx, credential.session).includes(requiredScope)) {
    return jsonAnswer(403, scopeRequiredBody(requiredScope));
  }
  return handler();
}

function outcomeAnswer(outcome: HttpOutcome): HttpAnswer {
  return outcome.kind === "ok" ? jsonAnswer(200, outcome.body) : jsonAnswer(outcome.status, outcome.body);
}

import { ConnectorError, type T3ErrorDetail } from "../errors.js";
import { T3ErrorBodySchema } from "./wire/environment.js";

/**
 * Turns a non-2xx T3 answer into a typed `ConnectorError`. T3 error bodies are tagged JSON
 * (docs/t3-protocol-notes.md); a misrouted server answers text or HTML instead (fixtures 47, 48), which is
 * never parsed as data. Messages name the route and the status, never a credential.
 */
export function httpErrorFromAnswer(
  route: string,
  status: number,
  contentType: string | null,
  text: string,
): ConnectorError {
  const body = isJsonContentType(contentType) ? safeJson(text) : undefined;
  const parsed = T3ErrorBodySchema.safeParse(body);
  const detail: T3ErrorDetail = {};
  if (parsed.success) {
    const { _tag, code, reason, requiredScope, traceId } = parsed.data;
    if (_tag !== undefined) detail.tag = _tag;
    if (code !== undefined) detail.code = code;
    if (reason !== undefined) detail.reason = reason;
    if (requiredScope !== undefined) detail.requiredScope = requiredScope;
    if (traceId !== undefined) detail.traceId = traceId;
  }
  const t3 = Object.keys(detail).length > 0 ? detail : undefined;
  const said = describeT3(detail);
  const options = { status, ...(t3 ? { t3 } : {}) };

  if (status === 401) {
    return new ConnectorError("unauthorized", `${route}: T3 refused the credential (401${said})`, options);
  }
  if (status === 403 && (detail.code === "insufficient_scope" || detail.requiredScope !== undefined)) {
    const scope = detail.requiredScope ? `: requires scope ${detail.requiredScope}` : "";
    return new ConnectorError(
      "insufficient_scope",
      `${route}: the token lacks a scope (403${scope})`,
      options,
    );
  }
  if (status === 404) {
    if (detail.reason === "thread_not_found") {
      return new ConnectorError("thread_not_found", `${route}: T3 has no such thread (404)`, options);
    }
    return new ConnectorError("not_found", `${route}: not found (404${said})`, options);
  }
  if (status === 400) {
    // T3's HTTP schema decode answers 400 with no body: a missing protocol header or query
    // parameter. Say so instead of leaving the caller to guess.
    const why = text.trim() === "" ? ", empty body: protocol mismatch or bad request" : said;
    return new ConnectorError("invalid_request", `${route}: T3 rejected the request (400${why})`, options);
  }
  if (status === 426) {
    return new ConnectorError(
      "protocol_unsupported",
      `${route}: T3 requires another orchestration protocol (426${said})`,
      options,
    );
  }
  const kind = t3 ? said : isJsonContentType(contentType) ? "" : `, ${contentType ?? "no content-type"}`;
  return new ConnectorError("http_error", `${route}: T3 answered HTTP ${status}${kind}`, options);
}

export function isJsonContentType(contentType: string | null): boolean {
  if (!contentType) return false;
  const mediaType = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  return mediaType === "application/json" || mediaType.endsWith("+json");
}

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describeT3(detail: T3ErrorDetail): string {
  const parts = [detail.tag, detail.reason ?? detail.code].filter((p): p is string => Boolean(p));
  return parts.length > 0 ? ` ${parts.join(" ")}` : "";
}

/**
 * Maps a failed `fetch` (no HTTP answer at all) to a typed error: our own deadline is `timeout`,
 * the caller's abort is `cancelled`, and anything else (refused, DNS, reset) is `unavailable`.
 */
export function fetchFailure(
  route: string,
  error: unknown,
  timedOut: boolean,
  callerSignal: AbortSignal | undefined,
  timeoutMs: number,
): ConnectorError {
  if (callerSignal?.aborted) {
    return new ConnectorError("cancelled", `${route}: cancelled by the caller`, { cause: error });
  }
  if (timedOut) {
    return new ConnectorError("timeout", `${route}: no answer within ${timeoutMs} ms`, { cause: error });
  }
  return new ConnectorError("unavailable", `${route}: T3 is unreachable (${networkReason(error)})`, {
    cause: error,
  });
}

function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  if (cause && typeof cause.code === "string") return cause.code;
  if (error instanceof Error && error.message) return error.message;
  return "network error";
}

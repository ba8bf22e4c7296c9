import { FIRST_PROTOCOL_2_RELEASE } from "../environments/older-protocol.js";
import { type ErrorCode, isConnectorError } from "../errors.js";

/** The per-environment failure codes of a sweep. */
export type FanOutFailureCode =
  | "timeout"
  | "global_timeout"
  | "unavailable"
  | "environment_mismatch"
  | `http_${number}`
  /** The environment refused the token (HTTP 401 or an unauthenticated session): `diagnose` says the same. */
  | "unauthorized"
  /** A server before the protocol-2 cut-over (T3 0.0.46): the reason names its version (ADR 0069). */
  | "protocol_unsupported"
  | "connection_refused"
  | "refused"
  | "failed";

export interface ClassifiedFailure {
  code: FanOutFailureCode;
  /** Written here from the error's code and safe details, never copied from a message. */
  reason: string;
}

const TRANSPORT: ReadonlySet<ErrorCode> = new Set([
  "unavailable",
  "connection_lost",
  "environment_unavailable",
]);
/** The query itself was refused in that environment; the read wrote the message for the user. */
const REFUSED: ReadonlySet<ErrorCode> = new Set(["out_of_scope", "invalid_input", "incomplete_scope"]);
const REFUSED_REASON_MAX = 300;

function safeIdentifier(value: unknown): string | undefined {
  return typeof value === "string" && /^[A-Za-z0-9_.:-]{1,80}$/.test(value) ? value : undefined;
}

function scopeList(value: unknown): string {
  if (!Array.isArray(value)) return "";
  const scopes = value.map(safeIdentifier).filter((scope): scope is string => scope !== undefined);
  return scopes.join(", ");
}

function httpReason(status: number): string {
  if (status === 403) return "the environment refused the token: it lacks a required scope (HTTP 403)";
  return `the environment answered HTTP ${status}`;
}

/** Maps any error of one environment's read to a sweep failure code and a safe reason. */
export function classifyFailure(error: unknown): ClassifiedFailure {
  if (!isConnectorError(error)) return { code: "failed", reason: "the read failed unexpectedly" };
  const details = error.details ?? {};
  if (error.code === "tunnel_failed")
    return { code: "unavailable", reason: "the SSH tunnel could not be opened" };
  if (TRANSPORT.has(error.code))
    return { code: "unavailable", reason: "the environment could not be reached" };
  if (error.code === "timeout") return { code: "timeout", reason: "the environment did not answer in time" };
  if (error.code === "global_timeout") {
    return { code: "global_timeout", reason: "the call's deadline expired before this environment answered" };
  }
  if (error.code === "environment_mismatch") {
    const expected = safeIdentifier(details.expected);
    const actual = safeIdentifier(details.actual);
    const ids = expected && actual ? ` (expected ${expected}, got ${actual})` : "";
    return { code: "environment_mismatch", reason: `the server answered as another environment${ids}` };
  }
  if (REFUSED.has(error.code)) {
    return { code: "refused", reason: error.message.slice(0, REFUSED_REASON_MAX) };
  }
  // One word for a wrong or revoked token whichever path met it (HTTP 401, or the WebSocket's
  // session refusal), the word `diagnose` uses, so a person reads the same fix everywhere.
  if (error.code === "unauthorized" || error.status === 401) {
    return { code: "unauthorized", reason: "the environment refused the token; pair it again" };
  }
  if (error.code === "protocol_unsupported") {
    const version = safeIdentifier(details.serverVersion);
    return {
      code: "protocol_unsupported",
      reason:
        `the server${version ? ` (T3 ${version})` : ""} does not speak orchestration protocol 2; ` +
        `upgrade T3 to ${FIRST_PROTOCOL_2_RELEASE} or later`,
    };
  }
  // An answer that was read but could not be understood is that, whatever status carried it: a
  // 200 whose body is not T3's is not "the environment answered HTTP 200".
  if (error.code === "invalid_response")
    return { code: "failed", reason: "the environment sent an answer that could not be read" };
  if (typeof error.status === "number")
    return { code: `http_${error.status}`, reason: httpReason(error.status) };
  switch (error.code) {
    case "scope_mismatch": {
      const missing = scopeList(details.missing);
      const extra = scopeList(details.extra);
      const parts = [missing && `missing ${missing}`, extra && `extra ${extra}`].filter(Boolean).join("; ");
      return {
        code: "connection_refused",
        reason: `the token's scopes are not the ones required${parts ? ` (${parts})` : ""}`,
      };
    }
    case "insufficient_scope":
    case "scope_not_granted":
      return { code: "connection_refused", reason: "the token lacks a required scope" };
    case "token_file_invalid":
      return { code: "connection_refused", reason: "the token file is missing or unsafe; run diagnose" };
    case "rpc_failure":
    case "protocol_error": {
      const tag = safeIdentifier(error.t3?.tag);
      return { code: "connection_refused", reason: `T3 refused the request${tag ? ` (${tag})` : ""}` };
    }
    case "response_too_large": {
      const limit = typeof details.limitBytes === "number" ? ` (${details.limitBytes} bytes)` : "";
      const what =
        details.limit === "environment_in_flight"
          ? "the environment's answers being read at once passed the limit"
          : "the environment's answer was larger than the limit";
      return { code: "failed", reason: `${what}${limit} and it was refused` };
    }
    default:
      return { code: "failed", reason: `the read failed (${error.code})` };
  }
}

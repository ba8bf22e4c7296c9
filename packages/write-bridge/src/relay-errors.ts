/**
 * Turns a relay error body (`{error, message, t3?, details?}`) into a ConnectorError the bridge's
 * tools can report. The gate's stable code survives verbatim in `details.gateCode` so that a code
 * core does not know (e.g. `rate_limited`) still reaches the client as itself.
 */
import { ConnectorError, ERROR_CODES, type ErrorCode, type T3ErrorDetail } from "@t3-connector/core";
import { relayDetailsOf, STABLE_RELAY_CODE } from "@t3-connector/write-engine/relay-contract";

const KNOWN: ReadonlySet<string> = new Set(ERROR_CODES);

/**
 * Relay codes that mean "this is not the gate we think it is" (a restarted gate has a new
 * capability; a body the gate cannot read means bridge and gate run different versions).
 */
const CHANNEL_CODES: ReadonlySet<string> = new Set(["channel_unverified", "content_type_invalid"]);

/**
 * Why no answer came, for a caller that acts on it (the reconcile CLI falls back to the journal
 * only when nothing listens): `timeout`, `not_listening`, `connection_failed`, `answer_too_large`.
 */
export type GateUnavailableReason = "timeout" | "not_listening" | "connection_failed" | "answer_too_large";

export function gateUnavailable(
  reason: string,
  cause?: unknown,
  why?: GateUnavailableReason,
): ConnectorError {
  return new ConnectorError(
    "gate_unavailable",
    `${reason}; start the gate with \`t3-connector-write gate\` and call the tool again`,
    { ...(cause === undefined ? {} : { cause }), ...(why === undefined ? {} : { details: { reason: why } }) },
  );
}

/**
 * The client-facing code of a relay error code. The old Portuguese gate's codes
 * are not renamed any more: this bridge only talks to this project's gate (it reads that gate's
 * per-boot capability file), which has never sent them, so such a code is passed on as it is.
 */
export function clientCodeOf(relayCode: string): string {
  return STABLE_RELAY_CODE.test(relayCode) ? relayCode : "gate_rejected";
}

export function relayErrorToConnectorError(status: number, body: unknown): ConnectorError {
  const record = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const rawCode = typeof record.error === "string" ? record.error : "gate_rejected";
  const gateCode = clientCodeOf(rawCode);
  if (CHANNEL_CODES.has(gateCode)) {
    return gateUnavailable(`the gate did not accept this bridge's channel (${gateCode})`);
  }
  // Without a message the text would read "<code>: <code>"; say who refused instead.
  const message =
    typeof record.message === "string" && record.message !== ""
      ? record.message
      : "the gate refused the request";
  const details: Record<string, unknown> = { gateCode };
  const given = (
    typeof record.details === "object" && record.details !== null ? record.details : {}
  ) as Record<string, unknown>;
  Object.assign(details, relayDetailsOf(given));
  const code: ErrorCode = KNOWN.has(gateCode) ? (gateCode as ErrorCode) : "guard_refused";
  const t3 = t3DetailOf(record.t3);
  return new ConnectorError(code, withAliases(message, details.aliases), {
    status,
    details,
    ...(t3 === undefined ? {} : { t3 }),
  });
}

function t3DetailOf(value: unknown): T3ErrorDetail | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const source = value as Record<string, unknown>;
  const detail: T3ErrorDetail = {};
  if (typeof source.tag === "string") detail.tag = source.tag;
  if (typeof source.code === "string") detail.code = source.code;
  return Object.keys(detail).length === 0 ? undefined : detail;
}

/** `environment_unknown` lists the configured aliases so the client can pick one. */
function withAliases(message: string, aliases: unknown): string {
  if (!Array.isArray(aliases) || aliases.length === 0 || message.includes("aliases")) return message;
  return `${message} (configured aliases: ${aliases.map(String).join(", ")})`;
}

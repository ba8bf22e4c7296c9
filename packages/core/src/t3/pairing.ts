import { type Clock, systemClock } from "../clock.js";
import { ConnectorError, isConnectorError } from "../errors.js";
import { MAX_T3_ANSWER_BYTES } from "./capped-body.js";
import { DEFAULT_HTTP_TIMEOUT_MS } from "./http-client.js";
import { requestJson } from "./http-transport.js";
import { nodeHttpFetch, type T3Fetch } from "./node-http-fetch.js";
import { AccessTokenResultSchema } from "./wire/environment.js";

/**
 * Pairing: turning a one-time pairing code into a bearer token (`POST /oauth/token`,
 * docs/t3-protocol-notes.md). The token is accepted only when T3 granted exactly the requested
 * scopes: a wider grant is as much a refusal as a narrower one, because the connector's safety
 * rests on tokens that can do nothing beyond their job.
 */

const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
const BOOTSTRAP_TOKEN_TYPE = "urn:t3:params:oauth:token-type:environment-bootstrap";
const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

/** A pairing code is one token of URL-safe characters (T3 issues 12 of `[2-9A-Z]`). */
const CODE_PATTERN = /^[A-Za-z0-9_-]{4,256}$/;

/**
 * Extracts the pairing code from what a user pastes: the raw code, the JSON of
 * `t3 auth pairing create --json` (`{credential}` or `{pairUrl}`), or a pairing URL carrying the
 * code in its hash (`…/pair#token=X`) or query (`?token=X`).
 */
export function parsePairingInput(raw: string): string {
  const input = raw.trim();
  if (input.length === 0) throw invalidPairingInput("the pairing input is empty");
  if (input.startsWith("{")) return codeFromJson(input);
  if (/^https?:\/\//i.test(input)) return codeFromUrl(input);
  if (CODE_PATTERN.test(input)) return input;
  throw invalidPairingInput("expected a pairing code, a pairing URL or the JSON of `t3 auth pairing create`");
}

function codeFromJson(input: string): string {
  let value: unknown;
  try {
    value = JSON.parse(input);
  } catch {
    throw invalidPairingInput("the pairing input looks like JSON but does not parse");
  }
  const record = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  if (typeof record.credential === "string") return parsePairingInput(record.credential);
  if (typeof record.pairUrl === "string") return codeFromUrl(record.pairUrl.trim());
  throw invalidPairingInput('the pairing JSON has neither "credential" nor "pairUrl"');
}

function codeFromUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw invalidPairingInput("the pairing URL does not parse");
  }
  const fromHash = new URLSearchParams(url.hash.replace(/^#/, "")).get("token");
  const code = fromHash ?? url.searchParams.get("token");
  if (!code || !CODE_PATTERN.test(code)) throw invalidPairingInput("the pairing URL carries no token");
  return code;
}

function invalidPairingInput(message: string): ConnectorError {
  return new ConnectorError("invalid_input", message);
}

export interface ExchangePairingCodeOptions {
  baseUrl: string;
  code: string;
  /** The exact scope set wanted; the grant must equal it. */
  scopes: readonly string[];
  clientLabel?: string;
  /** `desktop|mobile|tablet|bot|unknown`; default `desktop`. */
  clientDeviceType?: string;
  fetch?: T3Fetch;
  timeoutMs?: number;
  signal?: AbortSignal;
  clock?: Clock;
}

export interface PairingResult {
  accessToken: string;
  /** The granted scopes (equal to the requested set, in T3's order). */
  scopes: string[];
  /** ISO time the token expires, from `expires_in`. */
  expiresAt?: string;
}

export async function exchangePairingCode(o: ExchangePairingCodeOptions): Promise<PairingResult> {
  const requested = uniqueScopes(o.scopes);
  if (requested.length === 0) throw new ConnectorError("invalid_input", "pairing needs at least one scope");
  const form = new URLSearchParams({
    grant_type: TOKEN_EXCHANGE_GRANT,
    subject_token: o.code,
    subject_token_type: BOOTSTRAP_TOKEN_TYPE,
    requested_token_type: ACCESS_TOKEN_TYPE,
    scope: requested.join(" "),
    client_device_type: o.clientDeviceType ?? "desktop",
  });
  if (o.clientLabel) form.set("client_label", o.clientLabel);
  const startedAt = (o.clock ?? systemClock).now();

  let answer: Awaited<ReturnType<typeof requestJson<typeof AccessTokenResultSchema>>>;
  try {
    answer = await requestJson(
      {
        method: "POST",
        url: new URL(`${o.baseUrl.replace(/\/+$/, "")}/oauth/token`),
        route: "POST /oauth/token",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: form.toString(),
        timeoutMs: o.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS,
        signal: o.signal,
        fetch: o.fetch ?? nodeHttpFetch,
        maxBodyBytes: MAX_T3_ANSWER_BYTES,
      },
      AccessTokenResultSchema,
    );
  } catch (error) {
    throw pairingError(error);
  }

  if (answer.token_type.toLowerCase() !== "bearer") {
    throw new ConnectorError(
      "pairing_failed",
      `T3 issued a ${answer.token_type} token; the connector needs Bearer`,
    );
  }
  // Without `scope` in the answer, OAuth means "as requested"; T3 always sends it (fixture 05).
  const granted = answer.scope === undefined ? requested : uniqueScopes(answer.scope.split(" "));
  const missing = requested.filter((scope) => !granted.includes(scope));
  const extra = granted.filter((scope) => !requested.includes(scope));
  if (missing.length > 0 || extra.length > 0) {
    const parts = [
      missing.length > 0 ? `not granted: ${missing.join(", ")}` : "",
      extra.length > 0 ? `granted beyond the request: ${extra.join(", ")}` : "",
    ].filter(Boolean);
    // A code that grants more than asked (newer T3 builds have granular scopes) is refused, never
    // narrowed here: the token T3 issued holds every scope it granted (ADR 0069).
    const fix =
      extra.length > 0
        ? `; T3 granted exactly ${granted.join(" ") || "nothing"}. Create a pairing code in T3 that allows only ` +
          `${requested.join(" ")} (and nothing else), then pair again with it`
        : "";
    throw new ConnectorError(
      "scope_not_granted",
      `T3 granted a different scope set than requested (${parts.join("; ")}); the token was discarded${fix}`,
      { details: { requested, granted, missing, extra } },
    );
  }
  const result: PairingResult = { accessToken: answer.access_token, scopes: granted };
  if (typeof answer.expires_in === "number") {
    result.expiresAt = new Date(startedAt + answer.expires_in * 1000).toISOString();
  }
  return result;
}

/**
 * T3 answers a used, expired or unknown code alike with 401 invalid_credential (surprise 3); a
 * request for scopes the pairing grant lacks is 400 scope_not_granted. Transport failures keep
 * their own codes so a caller can tell "retry later" from "get a new code".
 */
function pairingError(error: unknown): unknown {
  if (!isConnectorError(error)) return error;
  if (error.t3?.reason === "scope_not_granted") {
    return new ConnectorError("scope_not_granted", "the pairing code does not grant the requested scopes", {
      ...(error.status !== undefined ? { status: error.status } : {}),
      t3: error.t3,
      cause: error,
    });
  }
  if (["unavailable", "timeout", "cancelled"].includes(error.code)) return error;
  const message =
    error.code === "unauthorized"
      ? "T3 refused the pairing code: it is unknown, expired or already used"
      : `T3 refused the pairing exchange: ${error.message}`;
  return new ConnectorError("pairing_failed", message, {
    ...(error.status !== undefined ? { status: error.status } : {}),
    ...(error.t3 ? { t3: error.t3 } : {}),
    cause: error,
  });
}

function uniqueScopes(scopes: readonly string[]): string[] {
  return [...new Set(scopes.map((scope) => scope.trim()).filter((scope) => scope.length > 0))];
}

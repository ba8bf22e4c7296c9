/**
 * @module `POST /relay` served on the gate's node:http server before Hono. Every write of the bridge
 * comes through it, and the adapter's web Request and Response around each one, with the middleware
 * chain, cost the relay more CPU than its own checks. The door takes a request only when it passes
 * every check the Hono route makes before it reads a byte of the body, in the route's order —
 * loopback peer, `Host`, POST, no `Origin`, JSON `Content-Type`, then this boot's capability
 * compared in constant time — and when nothing in it could read differently here than under Hono:
 * the path exactly `/relay`, each header it reads sent once and without surrounding blanks, a
 * declared length within the relay's cap and no `Transfer-Encoding`. Anything else goes to Hono
 * untouched, so every refusal is the route's own, as before; what the door takes, it treats as the
 * route does: charges the relay's budget (the same one), reads the body with the same capped reader,
 * and answers the relay's answer, or the refusal `errorAnswer` gives, with the gate's JSON headers.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type EdgeNames, edgeNames } from "@t3-connector/core/http-edge";
import { MAX_RELAY_BODY_BYTES, RELAY_HEADER, RELAY_PATH } from "@t3-connector/write-engine/relay-contract";
import type { VerifiedRelay } from "../../relay/index.js";
import {
  type AddressBudget,
  isJsonContentType,
  isLoopbackAddress,
  readJsonRequest,
} from "../../security/index.js";
import { errorAnswer } from "../error-answer.js";

export interface RelayDoorOptions {
  /** The gate's port: `Host` must be `localhost:<port>`. */
  readonly port: number;
  readonly relay: VerifiedRelay;
  /** The relay's budget, the one its Hono route charges. */
  readonly budget: AddressBudget;
  /** The gate's JSON answer headers (`jsonAnswerHeaders()`), sent on every answer. */
  readonly headers: Readonly<Record<string, string>>;
  readonly log: (line: string) => void;
}

/** Answers the request and says true, or leaves it, unread, to Hono and says false. */
export type RelayDoor = (incoming: IncomingMessage, outgoing: ServerResponse) => boolean;

/** The headers the door reads, lower case; each must come once at most. */
const READ = ["host", "origin", "content-type", "content-length", "transfer-encoding", RELAY_HEADER];

type ReadHeaders = Partial<Record<string, string>>;

export function relayDoor(options: RelayDoorOptions): RelayDoor {
  const names = edgeNames([`localhost:${options.port}`]);
  return (incoming, outgoing) => {
    if (incoming.url !== RELAY_PATH) return false;
    const address = incoming.socket.remoteAddress;
    if (address === undefined || !isLoopbackAddress(address)) return false;
    const headers = readOnce(incoming.rawHeaders);
    if (headers === null) return false;
    // Host, then the machine route's checks (POST, no Origin, JSON), as the route's middleware runs them.
    if (!hostIsOurs(headers.host, names)) return false;
    if (incoming.method !== "POST" || headers.origin !== undefined) return false;
    if (!isJsonContentType(headers["content-type"])) return false;
    // A body counted as it arrives, or one declared past the cap, is Hono's to refuse or read.
    if (headers["transfer-encoding"] !== undefined || !withinCap(headers["content-length"])) return false;
    // The capability before a byte of the body is read; a refused one is Hono's to answer (401).
    if (!options.relay.accepts(headers[RELAY_HEADER])) return false;
    // Nothing past the checks throws (every failure becomes an answer); were it to, the call is
    // cut rather than the gate brought down by an unhandled rejection.
    answer(incoming, outgoing, address, options).catch(() => outgoing.destroy());
    return true;
  };
}

/** The route's work past its checks: the budget, the body, the relay's answer or the refusal. */
async function answer(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  address: string,
  options: RelayDoorOptions,
): Promise<void> {
  let status: number;
  let text: string;
  try {
    options.budget.chargeAddress(address);
    const answer = await options.relay.answer(await readJsonRequest(incoming, MAX_RELAY_BODY_BYTES));
    status = answer.status;
    text = JSON.stringify(answer.body);
  } catch (error) {
    const refusal = errorAnswer(error, options.log);
    status = refusal.status;
    text = JSON.stringify(refusal.body);
  }
  outgoing.writeHead(status, { ...options.headers, "Content-Length": Buffer.byteLength(text) });
  outgoing.end(text);
}

/**
 * The headers the door reads, each as sent; null when one comes twice (Hono would join them) or
 * with blanks around it (Hono would trim them): such a request is Hono's to read.
 */
function readOnce(raw: readonly string[]): ReadHeaders | null {
  const headers: ReadHeaders = {};
  for (let index = 0; index < raw.length; index += 2) {
    const name = (raw[index] ?? "").toLowerCase();
    if (!READ.includes(name)) continue;
    const value = raw[index + 1] ?? "";
    if (headers[name] !== undefined || value !== value.trim()) return null;
    headers[name] = value;
  }
  return headers;
}

/**
 * `Host` under core's rule (ADR 0056): in lower case, exactly one of the names. The door only ever
 * leaves a request it doubts to Hono, whose hostGuard runs core's check itself; a web Headers built
 * here for that check cost more than the rest of the door's checks together.
 */
function hostIsOurs(host: string | undefined, names: EdgeNames): boolean {
  return host !== undefined && names.hosts.has(host.toLowerCase());
}

/** A declared length, in plain digits, within the relay's cap. */
function withinCap(declared: string | undefined): boolean {
  return declared !== undefined && /^\d+$/.test(declared) && Number(declared) <= MAX_RELAY_BODY_BYTES;
}

/**
 * The bridge's only way out: `POST /relay` on the gate's loopback port with the per-boot
 * capability. The bridge holds no T3 token and never opens the journal; it re-reads
 * the capability on every call, so a restarted gate is picked up and a stopped one is reported.
 * The exchange itself runs on kept-alive loopback connections (relay-connections.ts).
 */
import { randomBytes } from "node:crypto";
import { ConnectorError } from "@t3-connector/core";
import {
  MAX_RELAY_ANSWER_BYTES,
  MAX_RELAY_BODY_BYTES,
  parseRelayResult,
  RELAY_HEADER,
  RELAY_PATH,
  RELAY_TIMEOUT_MS,
  type RelayParsedResultOf,
  type RelayRequestInput,
} from "@t3-connector/write-engine/relay-contract";
import { type CapabilityCache, type CapabilityReadOptions, readCapability } from "./capability-file.js";
import { ExchangeFailed, type ExchangeFailure, RelayConnections } from "./relay-connections.js";
import { gateUnavailable, relayErrorToConnectorError } from "./relay-errors.js";

/** One relay op body, typed by the relay contract the gate parses it with. */
export type RelayBody = RelayRequestInput;

export interface RelayCallOptions {
  /** This call's own deadline (a call that waits for the human needs longer than the default). */
  readonly timeoutMs?: number;
}

export interface RelayClient {
  /**
   * Sends one op; resolves with the 200 answer parsed by the op's result schema in the relay
   * contract, or throws a ConnectorError (`relay_answer_invalid` when the answer breaks it).
   */
  call<B extends RelayBody>(
    body: B,
    signal?: AbortSignal,
    options?: RelayCallOptions,
  ): Promise<RelayParsedResultOf<B["op"]>>;
}

export interface RelayClientOptions extends CapabilityReadOptions {
  /** The gate's loopback port (write config `port`). */
  readonly port: number;
  /** The gate's state directory (write config `stateDir`), where the capability file lives. */
  readonly stateDir: string;
  readonly timeoutMs?: number;
  /** Where the gate listens; it binds 127.0.0.1 only, and `localhost` may resolve to ::1. */
  readonly host?: string;
  /** Tests only: this process's holder secret (default: 32 random bytes, drawn once). */
  readonly holderSecret?: string;
}

export function createRelayClient(options: RelayClientOptions): RelayClient {
  const timeoutMs = options.timeoutMs ?? RELAY_TIMEOUT_MS;
  const secrets = new LeaseSecrets(options.holderSecret ?? randomBytes(32).toString("base64url"));
  const capabilities: CapabilityCache = {};
  // A process's uid never changes: read once, not on every call (process.getuid is a syscall).
  const capabilityOptions: CapabilityReadOptions = {
    ...(options.fs === undefined ? {} : { fs: options.fs }),
    uid: options.uid ?? process.getuid?.(),
  };
  const connections = new RelayConnections(options.host ?? "127.0.0.1", options.port);
  // The gate checks Host against `localhost:<port>` (DNS-rebinding defence).
  const head = `POST ${RELAY_PATH} HTTP/1.1\r\nhost: localhost:${options.port}\r\ncontent-type: application/json\r\n`;
  return {
    async call(body, signal, callOptions) {
      const capability = await readCapability(options.stateDir, capabilityOptions, capabilities);
      const payload = JSON.stringify(secrets.attach(body));
      const payloadBytes = Buffer.byteLength(payload);
      if (payloadBytes > MAX_RELAY_BODY_BYTES) {
        throw new ConnectorError("invalid_input", "the request is larger than the relay accepts (128 KiB)");
      }
      // The capability matched its pattern (base64url) when it was read, so it cannot end the header.
      const request = `${head}content-length: ${payloadBytes}\r\n${RELAY_HEADER}: ${capability}\r\n\r\n${payload}`;
      const answer = await post(connections, options.port, request, {
        timeoutMs: callOptions?.timeoutMs ?? timeoutMs,
        signal,
      });
      let parsed: unknown;
      try {
        parsed = JSON.parse(answer.text);
      } catch {
        throw gateUnavailable(`the process on port ${options.port} did not answer like a gate`);
      }
      if (answer.status === 200 && typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
        return resultOf<(typeof body)["op"]>(body.op, secrets.keep(parsed as Record<string, unknown>));
      }
      throw relayErrorToConnectorError(answer.status, parsed);
    },
  };
}

/** The answer as the contract types it, or `relay_answer_invalid` naming the first field that breaks it. */
function resultOf<Op extends RelayBody["op"]>(op: Op, answer: unknown): RelayParsedResultOf<Op> {
  const checked = parseRelayResult(op, answer);
  if (checked.ok) return checked.value;
  throw new ConnectorError(
    "relay_answer_invalid",
    `the gate's answer to ${op} does not match the relay contract (${checked.problem}); ` +
      "the bridge and the gate come from different versions: restart both from the same install",
    { details: { op, reason: "answer_invalid" } },
  );
}

/**
 * The holder secret of this bridge process (ADR 0022, 0040): drawn once, when the process starts,
 * and presented on every call that can name a lease or a request. The gate adopts it for every
 * request this process creates, so each lease the person approves for this process (the first,
 * and every one after an End, a Revoke all, an expiry or a gate restart) answers it. It never
 * reaches a tool's answer, so the model (and any other client) never sees it; a restarted bridge
 * draws a new one and so holds none of the old process's leases.
 */
class LeaseSecrets {
  readonly #secret: string;

  constructor(secret: string) {
    this.#secret = secret;
  }

  attach(body: RelayBody): RelayBody {
    // Every op that names a lease or asks for one takes `leaseSecret` in the relay contract.
    if (OPS_WITHOUT_SECRET.has(body.op)) return body;
    return { ...body, leaseSecret: this.#secret } as RelayBody;
  }

  /** Strips a secret the gate handed back (it draws one only for a caller that presented none). */
  keep(answer: Record<string, unknown>): Record<string, unknown> {
    const { leaseSecret: _handed, ...rest } = answer;
    return rest;
  }
}

/** Ops that never name a lease or a request take no holder secret. */
const OPS_WITHOUT_SECRET: ReadonlySet<string> = new Set([
  "environments",
  "list_uncertain",
  "approval_events",
  // A preflight needs no lease (ADR 0075): the holder's secret would only tell the gate who asked.
  "preflight",
]);

interface RawAnswer {
  status: number;
  text: string;
}

async function post(
  connections: RelayConnections,
  port: number,
  request: string,
  limits: { timeoutMs: number; signal: AbortSignal | undefined },
): Promise<RawAnswer> {
  try {
    const answer = await connections.exchange(request, { ...limits, maxAnswerBytes: MAX_RELAY_ANSWER_BYTES });
    return { status: answer.status, text: answer.body.toString("utf8") };
  } catch (error) {
    if (error instanceof ExchangeFailed) throw failureOf(error.failure, port, limits.timeoutMs);
    throw error;
  }
}

/**
 * A failed exchange is `gate_unavailable`. For a write this says nothing about whether the gate
 * acted: the client repeats with the same operationId, which the gate dedupes, or reconciles.
 */
function failureOf(failure: ExchangeFailure, port: number, timeoutMs: number): ConnectorError {
  switch (failure.kind) {
    case "cancelled":
      return new ConnectorError("cancelled", "the client cancelled the request");
    case "timeout":
      return gateUnavailable(
        `the gate on port ${port} did not answer within ${timeoutMs} ms`,
        undefined,
        "timeout",
      );
    case "too_large":
      return gateUnavailable("the gate's answer is too large", undefined, "answer_too_large");
    case "malformed":
      return gateUnavailable(
        `the process on port ${port} did not answer like a gate`,
        failure.cause,
        "connection_failed",
      );
    case "connection":
      if ((failure.cause as NodeJS.ErrnoException | null)?.code === "ECONNREFUSED") {
        return gateUnavailable(`no gate answers on port ${port}`, failure.cause, "not_listening");
      }
      return gateUnavailable(`no gate answers on port ${port}`, failure.cause, "connection_failed");
  }
}

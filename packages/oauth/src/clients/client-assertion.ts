/**
 * @module `private_key_jwt` (RFC 7523 §2.2): the client proves itself with a JWT signed by a key in
 * its metadata document. Issuer and subject are the client_id, the audience this server's issuer
 * or token endpoint, at most 10 minutes of life, and each `jti` once (a replay cache until expiry).
 */
import { type Clock, ConnectorError } from "@t3-connector/core";
import { createLocalJWKSet, jwtVerify } from "jose";
import type { OAuthClient } from "./client-record.js";

export const CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
const MAX_ASSERTION_LIFETIME_S = 600;
const MAX_REMEMBERED_JTI = 10_000;
export const SIGNING_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
];

export class ClientAssertions {
  readonly #clock: Clock;
  readonly #audiences: string[];
  /** `clientId jti` → expiry (wall seconds). */
  readonly #seen = new Map<string, number>();

  constructor(options: { clock: Clock; issuer: string; tokenEndpoint: string }) {
    this.#clock = options.clock;
    this.#audiences = [options.issuer, options.tokenEndpoint];
  }

  async verify(
    client: OAuthClient,
    assertionType: string | undefined,
    assertion: string | undefined,
  ): Promise<void> {
    if (assertionType !== CLIENT_ASSERTION_TYPE || assertion === undefined || client.jwks === undefined) {
      throw invalidClient("this client authenticates with private_key_jwt (client_assertion)");
    }
    const nowS = Math.floor(this.#clock.now() / 1000);
    let payload: Awaited<ReturnType<typeof jwtVerify>>["payload"];
    try {
      ({ payload } = await jwtVerify(assertion, createLocalJWKSet(client.jwks), {
        issuer: client.clientId,
        subject: client.clientId,
        audience: this.#audiences,
        algorithms: SIGNING_ALGORITHMS,
        requiredClaims: ["exp", "jti"],
        currentDate: new Date(this.#clock.now()),
        clockTolerance: 30,
      }));
    } catch {
      throw invalidClient("the client assertion did not verify");
    }
    const exp = payload.exp as number;
    if (exp - nowS > MAX_ASSERTION_LIFETIME_S)
      throw invalidClient("the client assertion lives longer than 10 minutes");
    const key = `${client.clientId} ${String(payload.jti)}`;
    this.#prune(nowS);
    if (this.#seen.has(key)) throw invalidClient("the client assertion was already used");
    if (this.#seen.size >= MAX_REMEMBERED_JTI)
      throw invalidClient("too many client assertions; try again shortly");
    this.#seen.set(key, exp);
  }

  #prune(nowS: number): void {
    for (const [key, exp] of this.#seen) if (exp + 30 < nowS) this.#seen.delete(key);
  }
}

function invalidClient(message: string): ConnectorError {
  return new ConnectorError("invalid_client", message);
}

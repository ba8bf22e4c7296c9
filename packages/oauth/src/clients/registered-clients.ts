/**
 * @module Clients registered by DCR (RFC 7591), kept in `clients.json`. Public clients only
 * (`token_endpoint_auth_method: none`, PKCE is their proof); every redirect URI must pass the
 * allowlist. The file is capped: a registration flood cannot grow it without bound.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { type Clock, ConnectorError } from "@t3-connector/core";
import { SerialWrites } from "@t3-connector/core/durable";
import { z } from "zod";
import type { OAuthSettings } from "../settings/index.js";
import { readPrivateJson, writePrivateJson } from "../state/private-json.js";
import { CLIENTS_FILE } from "../state/session-files.js";
import { displayableClientName } from "./client-name.js";
import type { OAuthClient } from "./client-record.js";
import { dcrRedirectProblem } from "./redirect-policy.js";

/** The oldest registration is forgotten past this many (a client re-registers on `invalid_client`). */
export const MAX_REGISTERED_CLIENTS = 200;

const storedClientSchema = z.strictObject({
  clientId: z.string(),
  clientName: z.string(),
  redirectUris: z.array(z.string()),
  createdAt: z.number(),
});
type StoredClient = z.output<typeof storedClientSchema>;
const fileSchema = z.strictObject({ version: z.literal(1), clients: z.array(storedClientSchema) });

/** What `/register` accepts: RFC 7591 fields; unknown ones are ignored as the RFC says. */
export const registrationRequestSchema = z.looseObject({
  redirect_uris: z.array(z.string().max(2048)).min(1).max(8),
  client_name: z.string().trim().min(1).max(128).optional(),
  token_endpoint_auth_method: z.string().optional(),
  grant_types: z.array(z.string()).optional(),
  response_types: z.array(z.string()).optional(),
  scope: z.string().optional(),
});

export class RegisteredClients {
  readonly #path: string;
  readonly #settings: OAuthSettings;
  readonly #clock: Clock;
  readonly #clients = new Map<string, StoredClient>();
  readonly #writes = new SerialWrites();

  private constructor(settings: OAuthSettings, clock: Clock) {
    this.#settings = settings;
    this.#clock = clock;
    this.#path = join(settings.stateDir, CLIENTS_FILE);
  }

  static async open(settings: OAuthSettings, clock: Clock): Promise<RegisteredClients> {
    const registry = new RegisteredClients(settings, clock);
    const stored = await readPrivateJson(registry.#path, fileSchema, { version: 1, clients: [] });
    for (const client of stored.clients) registry.#clients.set(client.clientId, client);
    return registry;
  }

  get(clientId: string): OAuthClient | undefined {
    const stored = this.#clients.get(clientId);
    if (stored === undefined) return undefined;
    return {
      clientId: stored.clientId,
      clientName: displayableClientName(stored.clientName),
      redirectUris: stored.redirectUris,
      authMethod: "none",
      kind: "dcr",
    };
  }

  /**
   * Registers a client; `invalid_redirect_uri` / `invalid_client_metadata` say what is refused.
   * A client registering again with the same name and the same redirect URIs gets its earlier
   * registration back (`reused`): clients that register on every fresh connection (Claude's DCR
   * path) then keep one entry instead of pushing the owner's other clients out of the file.
   * `beforeNew` runs (and may throw, e.g. a rate budget) only when a new entry is about to be made.
   */
  async register(
    raw: unknown,
    beforeNew: () => void = () => {},
  ): Promise<{ client: OAuthClient; issuedAt: number; reused: boolean }> {
    const parsed = registrationRequestSchema.safeParse(raw);
    if (!parsed.success) {
      throw new ConnectorError(
        "invalid_client_metadata",
        "a registration names 1 to 8 redirect_uris and optionally a client_name",
      );
    }
    const request = parsed.data;
    for (const uri of request.redirect_uris) {
      const problem = dcrRedirectProblem(uri, this.#settings);
      if (problem !== undefined) throw new ConnectorError("invalid_redirect_uri", problem);
    }
    // Any token_endpoint_auth_method asked for is answered with `none` (RFC 7591 §3.2.1 lets the
    // server replace a value): registered clients are public and prove themselves with PKCE.
    if (request.grant_types?.some((grant) => !["authorization_code", "refresh_token"].includes(grant))) {
      throw new ConnectorError("invalid_client_metadata", "only authorization_code and refresh_token grants");
    }
    if (request.response_types?.some((type) => type !== "code")) {
      throw new ConnectorError("invalid_client_metadata", "only the code response type");
    }
    const clientName = displayableClientName(request.client_name);
    const earlier = this.#sameRegistration(clientName, request.redirect_uris);
    if (earlier !== undefined) {
      // The most recently used registration is the last one forgotten.
      this.#clients.delete(earlier.clientId);
      this.#clients.set(earlier.clientId, earlier);
      return { client: this.get(earlier.clientId) as OAuthClient, issuedAt: earlier.createdAt, reused: true };
    }
    beforeNew();
    const stored: StoredClient = {
      clientId: `dcr_${randomBytes(16).toString("base64url")}`,
      clientName,
      redirectUris: [...request.redirect_uris],
      createdAt: this.#clock.now(),
    };
    this.#clients.set(stored.clientId, stored);
    while (this.#clients.size > MAX_REGISTERED_CLIENTS) {
      const oldest = this.#clients.keys().next().value;
      if (oldest === undefined) break;
      this.#clients.delete(oldest);
    }
    const snapshot = { version: 1, clients: [...this.#clients.values()] };
    await this.#writes.run(() => writePrivateJson(this.#path, snapshot));
    return { client: this.get(stored.clientId) as OAuthClient, issuedAt: stored.createdAt, reused: false };
  }

  #sameRegistration(clientName: string, redirectUris: readonly string[]): StoredClient | undefined {
    const wanted = [...new Set(redirectUris)].sort().join("\n");
    for (const stored of this.#clients.values()) {
      if (displayableClientName(stored.clientName) !== clientName) continue;
      if ([...new Set(stored.redirectUris)].sort().join("\n") === wanted) return stored;
    }
    return undefined;
  }
}

/**
 * @module CIMD: a client whose `client_id` is the HTTPS URL of its own metadata document. Only
 * URLs on the allowlist are ever fetched (so this server cannot be made to fetch arbitrary URLs);
 * the document must name itself exactly, list its redirect URIs and say how it authenticates;
 * `private_key_jwt` needs its keys, inline (`jwks`) or by `jwks_uri` (fetched the same way).
 * Documents are cached per `Cache-Control: max-age`, between 1 minute and 1 day.
 */
import { type Clock, ConnectorError } from "@t3-connector/core";
import type { JSONWebKeySet } from "jose";
import { z } from "zod";
import type { OAuthSettings } from "../settings/index.js";
import type { OAuthClient } from "./client-record.js";
import { type MetadataFetcher, unavailable } from "./metadata-fetcher.js";
import { cimdRedirectProblem } from "./redirect-policy.js";

const MIN_CACHE_MS = 60_000;
const MAX_CACHE_MS = 24 * 3_600_000;

const jwkSetSchema = z.looseObject({
  keys: z
    .array(z.looseObject({ kty: z.string() }))
    .min(1)
    .max(16),
});

const documentSchema = z.looseObject({
  client_id: z.string(),
  client_name: z.string().trim().min(1).max(128),
  redirect_uris: z.array(z.string()).min(1).max(16),
  token_endpoint_auth_method: z.enum(["none", "private_key_jwt"]).optional(),
  jwks: jwkSetSchema.optional(),
  jwks_uri: z.string().optional(),
});

export class MetadataDocuments {
  readonly #settings: OAuthSettings;
  readonly #fetcher: MetadataFetcher;
  readonly #clock: Clock;
  readonly #cache = new Map<string, { client: OAuthClient; until: number }>();
  /** One fetch per URL at a time: concurrent asks share it. */
  readonly #inFlight = new Map<string, Promise<OAuthClient>>();

  constructor(settings: OAuthSettings, fetcher: MetadataFetcher, clock: Clock) {
    this.#settings = settings;
    this.#fetcher = fetcher;
    this.#clock = clock;
  }

  /** Whether a client_id is a CIMD URL at all (then it must be on the allowlist). */
  static looksLikeUrl(clientId: string): boolean {
    return clientId.startsWith("https://") || clientId.startsWith("http://");
  }

  /** The client its document describes; `invalid_client` when not allowlisted or not valid. */
  async resolve(clientId: string): Promise<OAuthClient> {
    if (!this.#settings.clientIdUrls.includes(clientId)) {
      throw new ConnectorError(
        "invalid_client",
        "this client-id URL is not on this server's allowlist (oauth.clientIdUrls)",
      );
    }
    const cached = this.#cache.get(clientId);
    if (cached !== undefined && this.#clock.monotonic() < cached.until) return cached.client;
    let pending = this.#inFlight.get(clientId);
    if (pending === undefined) {
      pending = this.#load(clientId).finally(() => this.#inFlight.delete(clientId));
      this.#inFlight.set(clientId, pending);
    }
    return pending;
  }

  async #load(clientId: string): Promise<OAuthClient> {
    const fetched = await this.#fetcher(clientId).catch((error: unknown) => {
      throw asInvalidClient(error);
    });
    if (fetched.status !== 200)
      throw invalidClient(`the client's metadata document answered ${fetched.status}`);
    const parsed = documentSchema.safeParse(safeJson(fetched.body));
    if (!parsed.success)
      throw invalidClient("the client's metadata document lacks client_id, client_name or redirect_uris");
    const document = parsed.data;
    if (document.client_id !== clientId)
      throw invalidClient("the client's metadata document names another client_id");
    for (const uri of document.redirect_uris) {
      const problem = cimdRedirectProblem(uri, this.#settings);
      if (problem !== undefined) throw invalidClient(`the client's metadata document lists ${problem}`);
    }
    const authMethod = document.token_endpoint_auth_method ?? "none";
    let jwks: JSONWebKeySet | undefined;
    if (authMethod === "private_key_jwt") jwks = await this.#keysOf(document);
    const client: OAuthClient = {
      clientId,
      clientName: document.client_name,
      redirectUris: document.redirect_uris,
      authMethod,
      kind: "cimd",
      ...(jwks === undefined ? {} : { jwks }),
    };
    this.#cache.set(clientId, { client, until: this.#clock.monotonic() + cacheMs(fetched.cacheControl) });
    return client;
  }

  async #keysOf(document: z.output<typeof documentSchema>): Promise<JSONWebKeySet> {
    if (document.jwks !== undefined) return document.jwks as JSONWebKeySet;
    if (document.jwks_uri === undefined || !document.jwks_uri.startsWith("https://")) {
      throw invalidClient("a private_key_jwt client's document needs jwks or an https jwks_uri");
    }
    const fetched = await this.#fetcher(document.jwks_uri).catch((error: unknown) => {
      throw asInvalidClient(error);
    });
    const parsed = jwkSetSchema.safeParse(safeJson(fetched.body));
    if (fetched.status !== 200 || !parsed.success)
      throw invalidClient("the client's jwks_uri holds no key set");
    return parsed.data as JSONWebKeySet;
  }
}

function cacheMs(cacheControl: string | undefined): number {
  const maxAge = /(?:^|,)\s*max-age=(\d+)/i.exec(cacheControl ?? "")?.[1];
  const wanted = maxAge === undefined ? MIN_CACHE_MS * 5 : Number(maxAge) * 1000;
  return Math.min(MAX_CACHE_MS, Math.max(MIN_CACHE_MS, wanted));
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function invalidClient(message: string): ConnectorError {
  return new ConnectorError("invalid_client", message);
}

function asInvalidClient(error: unknown): ConnectorError {
  const message =
    error instanceof ConnectorError ? error.message : "the client's metadata document is unavailable";
  return invalidClient(message);
}

export { unavailable };

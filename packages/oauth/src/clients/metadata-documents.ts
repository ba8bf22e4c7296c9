/**
 * @module CIMD: a client whose `client_id` is the HTTPS URL of its own metadata document. Only
 * URLs on the allowlist are ever fetched (so this server cannot be made to fetch arbitrary URLs);
 * the document must name itself exactly, list its redirect URIs and say how it authenticates;
 * `private_key_jwt` needs its keys, inline (`jwks`) or by an https `jwks_uri` that is not on this
 * machine (fetched the same way). Documents are cached per `Cache-Control: max-age`, between 1
 * minute and 1 day.
 *
 * A vendor document this release pins (pinned-documents.ts) never makes a sign-in fail for want of
 * the live copy: when the fetch fails or answers anything but a valid document, the last live copy
 * that passed (kept in memory) is used, else the pinned one, with one log line saying which. A
 * pinned copy never carries keys: a `private_key_jwt` client's come from a live fetch only.
 */
import { type Clock, ConnectorError } from "@t3-connector/core";
import type { JSONWebKeySet } from "jose";
import { z } from "zod";
import type { OAuthSettings } from "../settings/index.js";
import { displayableClientName } from "./client-name.js";
import type { OAuthClient } from "./client-record.js";
import { jwksUriProblem } from "./jwks-uri.js";
import type { FetchedDocument, MetadataFetcher } from "./metadata-fetcher.js";
import { PINNED_DOCUMENTS } from "./pinned-documents.js";
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
  readonly #log: (line: string) => void;
  readonly #cache = new Map<string, { client: OAuthClient; until: number }>();
  /** The last live copy of each pinned document that passed, with when it was fetched (wall ms). */
  readonly #lastLive = new Map<string, { client: OAuthClient; at: number }>();
  /** One fetch per URL at a time: concurrent asks share it. */
  readonly #inFlight = new Map<string, Promise<OAuthClient>>();

  constructor(options: {
    settings: OAuthSettings;
    fetcher: MetadataFetcher;
    clock: Clock;
    log: (line: string) => void;
  }) {
    this.#settings = options.settings;
    this.#fetcher = options.fetcher;
    this.#clock = options.clock;
    this.#log = options.log;
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
    let fetched: FetchedDocument;
    let client: OAuthClient;
    try {
      fetched = await this.#fetcher(clientId).catch((error: unknown) => {
        throw asInvalidClient(error);
      });
      client = await this.#clientOf(clientId, fetched);
    } catch (error) {
      const fallback = this.#fallback(clientId, error);
      if (fallback === undefined) throw error;
      // Try the live document again after a minute, not at every sign-in.
      this.#cache.set(clientId, { client: fallback, until: this.#clock.monotonic() + MIN_CACHE_MS });
      return fallback;
    }
    if (PINNED_DOCUMENTS.has(clientId)) this.#lastLive.set(clientId, { client, at: this.#clock.now() });
    this.#cache.set(clientId, { client, until: this.#clock.monotonic() + cacheMs(fetched.cacheControl) });
    return client;
  }

  /** The client a valid document describes, or `invalid_client` saying what is wrong with it. */
  async #clientOf(clientId: string, fetched: FetchedDocument): Promise<OAuthClient> {
    if (fetched.status !== 200)
      throw invalidClient(`status: the client's metadata document answered ${fetched.status}`);
    const json = safeJson(fetched.body);
    if (json === undefined) throw invalidClient("the client's metadata document is not JSON");
    return this.#clientOfDocument(clientId, json);
  }

  async #clientOfDocument(clientId: string, json: unknown): Promise<OAuthClient> {
    const parsed = documentSchema.safeParse(json);
    if (!parsed.success)
      throw invalidClient("the client's metadata document lacks client_id, client_name or redirect_uris");
    const document = parsed.data;
    if (document.client_id !== clientId)
      throw invalidClient("the client's metadata document names another client_id");
    for (const uri of document.redirect_uris) {
      const problem = cimdRedirectProblem(uri);
      if (problem !== undefined) throw invalidClient(`the client's metadata document lists ${problem}`);
    }
    const authMethod = document.token_endpoint_auth_method ?? "none";
    let jwks: JSONWebKeySet | undefined;
    if (authMethod === "private_key_jwt") jwks = await this.#keysOf(document);
    return {
      clientId,
      clientName: displayableClientName(document.client_name),
      redirectUris: document.redirect_uris,
      authMethod,
      kind: "cimd",
      ...(jwks === undefined ? {} : { jwks }),
    };
  }

  /** For a pinned document: the last live copy that passed, else the pinned one (logged). */
  #fallback(clientId: string, error: unknown): OAuthClient | undefined {
    const pinned = PINNED_DOCUMENTS.get(clientId);
    if (pinned === undefined) return undefined;
    const reason = error instanceof ConnectorError ? error.message : "it could not be read";
    const last = this.#lastLive.get(clientId);
    if (last !== undefined) {
      this.#log(
        `oauth: live metadata document ${clientId} not usable (${reason}); using the live copy fetched at ${new Date(last.at).toISOString()}`,
      );
      return last.client;
    }
    const document = pinned.document;
    this.#log(
      `oauth: live metadata document ${clientId} not usable (${reason}); using the copy pinned in this release (served ${pinned.servedOn})`,
    );
    // A pinned copy carries no keys: a private_key_jwt client's keys come only from a live fetch.
    return {
      clientId,
      clientName: displayableClientName(String(document.client_name)),
      redirectUris: document.redirect_uris as string[],
      authMethod: document.token_endpoint_auth_method === "private_key_jwt" ? "private_key_jwt" : "none",
      kind: "cimd",
    };
  }

  /**
   * The client with its signing keys, for the token endpoint: a cached client that has them, else
   * the live document fetched now (a pinned stand-in has none). No keys to be had: `invalid_client`
   * saying why the live document could not be used.
   */
  async resolveWithKeys(clientId: string): Promise<OAuthClient> {
    const known = await this.resolve(clientId);
    if (known.authMethod !== "private_key_jwt" || known.jwks !== undefined) return known;
    try {
      const fetched = await this.#fetcher(clientId).catch((error: unknown) => {
        throw asInvalidClient(error);
      });
      const client = await this.#clientOf(clientId, fetched);
      this.#lastLive.set(clientId, { client, at: this.#clock.now() });
      this.#cache.set(clientId, { client, until: this.#clock.monotonic() + cacheMs(fetched.cacheControl) });
      return client;
    } catch (error) {
      const reason = error instanceof ConnectorError ? error.message : "it could not be read";
      throw invalidClient(
        `${known.clientName}'s signing keys come only from its live metadata document, which could not be used (${reason}); the sign-in finishes once ${clientId} is reachable from this server`,
      );
    }
  }

  async #keysOf(document: z.output<typeof documentSchema>): Promise<JSONWebKeySet> {
    if (document.jwks !== undefined) return document.jwks as JSONWebKeySet;
    if (document.jwks_uri === undefined)
      throw invalidClient("a private_key_jwt client's document needs jwks or an https jwks_uri");
    const problem = jwksUriProblem(document.jwks_uri);
    if (problem !== undefined) throw invalidClient(problem);
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

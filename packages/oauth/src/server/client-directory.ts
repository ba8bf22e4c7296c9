/**
 * @module One lookup for every client: a client_id that is an URL is a CIMD client (allowlist,
 * fetched document); anything else was registered here by DCR. Also authenticates a client at the
 * token and revocation endpoints by the method its registration or document names.
 */
import { type Clock, ConnectorError } from "@t3-connector/core";
import { decodeJwt } from "jose";
import { ClientAssertions } from "../clients/client-assertion.js";
import type { OAuthClient } from "../clients/client-record.js";
import { MetadataDocuments } from "../clients/metadata-documents.js";
import type { MetadataFetcher } from "../clients/metadata-fetcher.js";
import type { RegisteredClients } from "../clients/registered-clients.js";
import type { OAuthSettings } from "../settings/index.js";
import { endpoints } from "./metadata.js";

export class ClientDirectory {
  readonly #registered: RegisteredClients;
  readonly #documents: MetadataDocuments;
  readonly #assertions: ClientAssertions;

  constructor(options: {
    settings: OAuthSettings;
    registered: RegisteredClients;
    fetcher: MetadataFetcher;
    clock: Clock;
    log: (line: string) => void;
  }) {
    this.#registered = options.registered;
    this.#documents = new MetadataDocuments(options);
    this.#assertions = new ClientAssertions({
      clock: options.clock,
      issuer: options.settings.issuer,
      tokenEndpoint: endpoints(options.settings).token,
    });
  }

  get registered(): RegisteredClients {
    return this.#registered;
  }

  /** The client, or `invalid_client`. */
  async find(clientId: string): Promise<OAuthClient> {
    if (MetadataDocuments.looksLikeUrl(clientId)) return this.#documents.resolve(clientId);
    const client = this.#registered.get(clientId);
    // 401 invalid_client makes Claude register again (its documented recovery).
    if (client === undefined) throw new ConnectorError("invalid_client", "unknown client_id; register again");
    return client;
  }

  /**
   * The client a token or revocation request comes from, authenticated: `none` needs only its
   * client_id (PKCE or the token itself is the proof), `private_key_jwt` a verified assertion.
   */
  async authenticate(params: URLSearchParams): Promise<OAuthClient> {
    const assertion = params.get("client_assertion") ?? undefined;
    let clientId = params.get("client_id") ?? undefined;
    if (clientId === undefined && assertion !== undefined) {
      try {
        const subject = decodeJwt(assertion).sub;
        if (typeof subject === "string") clientId = subject;
      } catch {
        throw new ConnectorError("invalid_client", "the client assertion is not a JWT");
      }
    }
    if (clientId === undefined) throw new ConnectorError("invalid_client", "client_id is missing");
    const found = await this.find(clientId);
    // A CIMD client signed in from a pinned copy has no keys yet: fetch them live now.
    const client =
      found.kind === "cimd" && found.authMethod === "private_key_jwt" && found.jwks === undefined
        ? await this.#documents.resolveWithKeys(clientId)
        : found;
    if (client.authMethod === "private_key_jwt") {
      await this.#assertions.verify(client, params.get("client_assertion_type") ?? undefined, assertion);
    } else if (assertion !== undefined || params.has("client_secret")) {
      throw new ConnectorError("invalid_client", "this client is public: send client_id only");
    }
    return client;
  }
}

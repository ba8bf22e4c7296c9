/**
 * @module The passkeys that approve from afar (ADR 0050): the OAuth profile's own set, read from
 * its state directory (`passkeys.json`, written by `serve --http`), checked for the public origin
 * the approval page is reached at. One person, one set: the passkey that signs a client in is the
 * one that approves its writes, on a phone as on a laptop. The file is read again for every
 * ceremony, so a passkey added on the sign-in side counts at once; the gate never writes it. A
 * counter it has seen is kept in memory, so an assertion can never go back below it here even
 * though the file's counter is the sign-in side's.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  generateAuthenticationOptions,
  type PublicKeyCredentialRequestOptionsJSON,
  verifyAuthenticationResponse,
} from "@simplewebauthn/server";
import { ConnectorError } from "@t3-connector/core";
import {
  credentialDescriptors,
  type StoredCredential,
  storedCredentialSchema,
  verifiableCredential,
} from "@t3-connector/core/passkeys";
import { z } from "zod";

/** The OAuth profile's files (packages/oauth keeps the same names). */
export const OAUTH_PASSKEYS_FILE = "passkeys.json";
/** Passkeys removed from the terminal (`t3-connector oauth remove-passkey`): never accepted here. */
export const OAUTH_PASSKEY_REMOVALS_FILE = "passkey-removals.json";

const fileSchema = z.looseObject({
  version: z.literal(1),
  credentials: z.array(storedCredentialSchema),
});
const removalsSchema = z.looseObject({ version: z.literal(1), removedIds: z.array(z.string()) });

/** What the approval desk needs of a passkey set: one assertion over a challenge it chose. */
export interface AssertionVerifier {
  hasAny(): boolean;
  authenticationOptions(challenge: Uint8Array): Promise<PublicKeyCredentialRequestOptionsJSON>;
  verifyAuthentication(response: AuthenticationResponseJSON, challenge: string): Promise<string>;
}

export class RemotePasskeys implements AssertionVerifier {
  readonly origin: string;
  readonly #rpId: string;
  readonly #path: string;
  readonly #removalsPath: string;
  readonly #seenCounters = new Map<string, number>();
  #credentials: StoredCredential[] = [];

  constructor(options: { origin: string; oauthStateDir: string }) {
    this.origin = options.origin;
    this.#rpId = new URL(options.origin).hostname;
    this.#path = join(options.oauthStateDir, OAUTH_PASSKEYS_FILE);
    this.#removalsPath = join(options.oauthStateDir, OAUTH_PASSKEY_REMOVALS_FILE);
  }

  /** Reads the set again (before each ceremony), without what the terminal removed; no file is an empty set. */
  async load(): Promise<void> {
    const stored = await readJsonFile(this.#path, fileSchema);
    const removals = await readJsonFile(this.#removalsPath, removalsSchema);
    const removed = new Set(removals?.removedIds ?? []);
    this.#credentials = (stored?.credentials ?? []).filter((credential) => !removed.has(credential.id));
  }

  hasAny(): boolean {
    return this.#credentials.length > 0;
  }

  authenticationOptions(challenge: Uint8Array): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return generateAuthenticationOptions({
      rpID: this.#rpId,
      userVerification: "required",
      challenge: new Uint8Array(challenge),
      allowCredentials: credentialDescriptors<AuthenticatorTransport>(this.#credentials),
    });
  }

  /** Verifies for the public origin with user verification; answers the credential id. */
  async verifyAuthentication(response: AuthenticationResponseJSON, challenge: string): Promise<string> {
    await this.load();
    const stored = this.#credentials.find((candidate) => candidate.id === response.id);
    if (stored === undefined) throw new ConnectorError("credential_unknown", "unknown passkey");
    const counter = Math.max(stored.counter, this.#seenCounters.get(stored.id) ?? 0);
    let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
    try {
      verified = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: this.origin,
        expectedRPID: this.#rpId,
        requireUserVerification: true,
        credential: verifiableCredential<AuthenticatorTransport>({ ...stored, counter }),
      });
    } catch {
      throw new ConnectorError("assertion_invalid", "the passkey assertion did not verify");
    }
    if (!verified.verified)
      throw new ConnectorError("assertion_invalid", "the passkey assertion did not verify");
    this.#seenCounters.set(stored.id, verified.authenticationInfo.newCounter);
    return stored.id;
  }
}

/** A JSON file checked against `schema`; undefined when it does not exist. */
async function readJsonFile<T>(path: string, schema: z.ZodType<T>): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ConnectorError("credential_store_invalid", "the sign-in passkeys cannot be read");
  }
  let parsed: ReturnType<z.ZodType<T>["safeParse"]>;
  try {
    parsed = schema.safeParse(JSON.parse(text));
  } catch {
    throw new ConnectorError("credential_store_invalid", "the sign-in passkeys file is not valid");
  }
  if (!parsed.success)
    throw new ConnectorError("credential_store_invalid", "the sign-in passkeys file is not valid");
  return parsed.data;
}

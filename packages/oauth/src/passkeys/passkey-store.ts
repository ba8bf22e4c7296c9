/**
 * @module The passkeys that may sign in: `passkeys.json` in the state directory. RP ID is the
 * issuer's host name and the only origin is the issuer, so a credential made here works nowhere
 * else, and the write gate's passkeys (RP ID `localhost`) are separate from these.
 * User verification is required on both ceremonies; verifications run one at a time so that two
 * assertions can never both pass the counter check against the same stored value.
 */
import { join } from "node:path";
import {
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { type Clock, ConnectorError } from "@t3-connector/core";
import {
  credentialDescriptors,
  type StoredCredential,
  storedCredentialOf,
  storedCredentialSchema,
  verifiableCredential,
  withCounter,
  withCredential,
} from "@t3-connector/core/passkeys";
import { z } from "zod";
import type { OAuthSettings } from "../settings/index.js";
import { readPrivateJson, SerialWrites, writePrivateJson } from "../state/private-json.js";
import { PASSKEYS_FILE } from "../state/session-files.js";

// The OAuth file's credentials carry no name (the sign-in page asks for none).
const credentialSchema = storedCredentialSchema.omit({ name: true });
const fileSchema = z.strictObject({ version: z.literal(1), credentials: z.array(credentialSchema) });

export class PasskeyStore {
  readonly #settings: OAuthSettings;
  readonly #clock: Clock;
  readonly #path: string;
  readonly #writes = new SerialWrites();
  #credentials: StoredCredential[];

  private constructor(settings: OAuthSettings, clock: Clock, credentials: StoredCredential[]) {
    this.#settings = settings;
    this.#clock = clock;
    this.#path = join(settings.stateDir, PASSKEYS_FILE);
    this.#credentials = credentials;
  }

  static async open(settings: OAuthSettings, clock: Clock): Promise<PasskeyStore> {
    const stored = await readPrivateJson(join(settings.stateDir, PASSKEYS_FILE), fileSchema, {
      version: 1,
      credentials: [],
    });
    return new PasskeyStore(settings, clock, stored.credentials);
  }

  hasAny(): boolean {
    return this.#credentials.length > 0;
  }

  registrationOptions(): Promise<PublicKeyCredentialCreationOptionsJSON> {
    return generateRegistrationOptions({
      rpName: "T3 Connector",
      rpID: this.#settings.rpId,
      userName: "t3-connector",
      attestationType: "none",
      authenticatorSelection: { residentKey: "required", userVerification: "required" },
      excludeCredentials: credentialDescriptors<AuthenticatorTransport>(this.#credentials),
    });
  }

  verifyRegistration(response: RegistrationResponseJSON, expectedChallenge: string): Promise<string> {
    return this.#writes.run(async () => {
      let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
      try {
        verified = await verifyRegistrationResponse({
          response,
          expectedChallenge,
          expectedOrigin: this.#settings.issuer,
          expectedRPID: this.#settings.rpId,
          requireUserVerification: true,
        });
      } catch {
        throw new ConnectorError("registration_invalid", "the passkey registration did not verify");
      }
      if (!verified.verified)
        throw new ConnectorError("registration_invalid", "the passkey registration did not verify");
      const stored = storedCredentialOf(verified.registrationInfo.credential, this.#clock.now());
      const next = withCredential(this.#credentials, stored);
      await writePrivateJson(this.#path, { version: 1, credentials: next });
      this.#credentials = next;
      return stored.id;
    });
  }

  /** `challenge`: the caller's own (bound to its sign-in); a random one otherwise. */
  authenticationOptions(challenge?: Uint8Array): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return generateAuthenticationOptions({
      ...(challenge === undefined ? {} : { challenge: new Uint8Array(challenge) }),
      rpID: this.#settings.rpId,
      userVerification: "required",
      allowCredentials: credentialDescriptors<AuthenticatorTransport>(this.#credentials),
    });
  }

  /**
   * Verifies an assertion for `challenge` (the exact one, or a check a bound challenge passes);
   * stores the new counter; answers the credential id. A checked challenge is spent inside the
   * same serial section, so two answers to one challenge can never both pass.
   */
  verifyAuthentication(
    response: AuthenticationResponseJSON,
    challenge: string | { check(challenge: string): boolean; spend(challenge: string): void },
  ): Promise<string> {
    return this.#writes.run(async () => {
      let answered = "";
      const expectedChallenge =
        typeof challenge === "string"
          ? challenge
          : (presented: string) => {
              answered = presented;
              return challenge.check(presented);
            };
      const credential = this.#credentials.find((candidate) => candidate.id === response.id);
      if (credential === undefined) throw new ConnectorError("credential_unknown", "unknown passkey");
      let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
      try {
        // A stored counter of 0 with a new counter of 0 passes: synced passkeys never count.
        verified = await verifyAuthenticationResponse({
          response,
          expectedChallenge,
          expectedOrigin: this.#settings.issuer,
          expectedRPID: this.#settings.rpId,
          requireUserVerification: true,
          credential: verifiableCredential<AuthenticatorTransport>(credential),
        });
      } catch {
        throw new ConnectorError("assertion_invalid", "the passkey assertion did not verify");
      }
      if (!verified.verified)
        throw new ConnectorError("assertion_invalid", "the passkey assertion did not verify");
      if (typeof challenge !== "string") challenge.spend(answered);
      const next = withCounter(this.#credentials, credential.id, verified.authenticationInfo.newCounter);
      if (next !== undefined) {
        await writePrivateJson(this.#path, { version: 1, credentials: next });
        this.#credentials = next;
      }
      return credential.id;
    });
  }
}

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
import { SerialWrites } from "@t3-connector/core/durable";
import {
  credentialDescriptors,
  type StoredCredential,
  storedCredentialOf,
  verifiableCredential,
  withCounter,
  withCredential,
} from "@t3-connector/core/passkeys";
import type { OAuthSettings } from "../settings/index.js";
import { readPrivateJson, writePrivateJson } from "../state/private-json.js";
import { PASSKEYS_FILE } from "../state/session-files.js";
import { passkeysFileSchema, removedPasskeyIds } from "./passkey-removals.js";

// A passkey added with a code from afar carries the name the person gave it; the first has none.
const fileSchema = passkeysFileSchema;

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

  /**
   * Drops what the terminal removed (`passkey-removals.json`) from the set and from the file:
   * called before every ceremony, so a removal counts at once.
   */
  #applyRemovals(): Promise<void> {
    return this.#writes.run(async () => {
      const removed = await removedPasskeyIds(this.#settings.stateDir);
      const next = this.#credentials.filter((credential) => !removed.has(credential.id));
      if (next.length === this.#credentials.length) return;
      await writePrivateJson(this.#path, { version: 1, credentials: next });
      this.#credentials = next;
    });
  }

  async registrationOptions(): Promise<PublicKeyCredentialCreationOptionsJSON> {
    await this.#applyRemovals();
    return generateRegistrationOptions({
      rpName: "T3 Connector",
      rpID: this.#settings.rpId,
      userName: "t3-connector",
      attestationType: "none",
      authenticatorSelection: { residentKey: "required", userVerification: "required" },
      excludeCredentials: credentialDescriptors<AuthenticatorTransport>(this.#credentials),
    });
  }

  /** Verifies a registration and stores the credential, under `name` when the person gave one. */
  verifyRegistration(
    response: RegistrationResponseJSON,
    expectedChallenge: string,
    name?: string,
  ): Promise<string> {
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
      const stored = {
        ...storedCredentialOf(verified.registrationInfo.credential, this.#clock.now()),
        ...(name === undefined ? {} : { name }),
      };
      const next = withCredential(this.#credentials, stored);
      await writePrivateJson(this.#path, { version: 1, credentials: next });
      this.#credentials = next;
      return stored.id;
    });
  }

  /** `challenge`: the caller's own (bound to its sign-in); a random one otherwise. */
  async authenticationOptions(challenge?: Uint8Array): Promise<PublicKeyCredentialRequestOptionsJSON> {
    await this.#applyRemovals();
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
  async verifyAuthentication(
    response: AuthenticationResponseJSON,
    challenge: string | { check(challenge: string): boolean; spend(challenge: string): void },
  ): Promise<string> {
    await this.#applyRemovals();
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

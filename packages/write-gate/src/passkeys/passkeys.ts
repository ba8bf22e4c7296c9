/**
 * @module The passkey ceremonies over `@simplewebauthn/server`:
 * rpID `localhost`, origin `http://localhost:<port>`, user verification required on both
 * ceremonies, resident key required, attestation none. Verifications run one at a time so that
 * two assertions can never both pass the counter check against the same stored value.
 */
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
import { loadCredentials, saveCredentials } from "./credential-store.js";

export const RP_ID = "localhost";

/** A passkey as the page lists it (`credentialId` is `id` under the contract's name). */
export interface PasskeyInfo {
  readonly id: string;
  readonly credentialId: string;
  readonly name: string;
  readonly createdAt: string;
  readonly transports: readonly string[];
}

/** The name a passkey enrolled before names existed is listed under. */
export const UNNAMED_PASSKEY = "Passkey";

function infoOf(credential: StoredCredential): PasskeyInfo {
  return {
    id: credential.id,
    credentialId: credential.id,
    name: credential.name ?? UNNAMED_PASSKEY,
    createdAt: credential.createdAt,
    transports: credential.transports ?? [],
  };
}

export interface PasskeysOptions {
  readonly path: string;
  readonly port: number;
  readonly clock: Clock;
  readonly rpName?: string;
  readonly userName?: string;
}

export class Passkeys {
  readonly origin: string;
  readonly #options: PasskeysOptions;
  #credentials: StoredCredential[];
  /** Serialises every read-modify-write of the credential list (counter safety). */
  readonly #writes = new SerialWrites();

  private constructor(options: PasskeysOptions, credentials: StoredCredential[]) {
    this.#options = options;
    this.origin = `http://localhost:${options.port}`;
    this.#credentials = credentials;
  }

  static async open(options: PasskeysOptions): Promise<Passkeys> {
    return new Passkeys(options, await loadCredentials(options.path));
  }

  hasAny(): boolean {
    return this.#credentials.length > 0;
  }

  list(): PasskeyInfo[] {
    return this.#credentials.map(infoOf);
  }

  registrationOptions(): Promise<PublicKeyCredentialCreationOptionsJSON> {
    return generateRegistrationOptions({
      rpName: this.#options.rpName ?? "T3 Connector",
      rpID: RP_ID,
      userName: this.#options.userName ?? "t3-connector",
      attestationType: "none",
      authenticatorSelection: { residentKey: "required", userVerification: "required" },
      excludeCredentials: credentialDescriptors<AuthenticatorTransport>(this.#credentials),
    });
  }

  /** Verifies a registration for `expectedChallenge` and stores the new credential under `name`. */
  verifyRegistration(
    response: RegistrationResponseJSON,
    expectedChallenge: string,
    name?: string,
  ): Promise<PasskeyInfo> {
    return this.#serial(async () => {
      let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
      try {
        verified = await verifyRegistrationResponse({
          response,
          expectedChallenge,
          expectedOrigin: this.origin,
          expectedRPID: RP_ID,
          requireUserVerification: true,
        });
      } catch (error) {
        throw new ConnectorError("registration_invalid", messageOf(error));
      }
      if (!verified.verified)
        throw new ConnectorError("registration_invalid", "the registration did not verify");
      const stored: StoredCredential = {
        ...storedCredentialOf(verified.registrationInfo.credential, this.#options.clock.now()),
        ...(name === undefined ? {} : { name }),
      };
      const next = withCredential(this.#credentials, stored);
      await saveCredentials(this.#options.path, next);
      this.#credentials = next;
      return infoOf(stored);
    });
  }

  /** Options for one assertion over `challenge` (the caller's one-time bytes). */
  authenticationOptions(challenge: Uint8Array): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return generateAuthenticationOptions({
      rpID: RP_ID,
      userVerification: "required",
      challenge: new Uint8Array(challenge),
      allowCredentials: credentialDescriptors<AuthenticatorTransport>(this.#credentials),
    });
  }

  /** Verifies an assertion for `challenge` (base64url); stores the new counter; answers the credential id. */
  verifyAuthentication(response: AuthenticationResponseJSON, challenge: string): Promise<string> {
    return this.#serial(async () => {
      const credential = this.#credentials.find((candidate) => candidate.id === response.id);
      if (credential === undefined) throw new ConnectorError("credential_unknown", "unknown passkey");
      let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
      try {
        // A stored counter of 0 with a new counter of 0 passes: synced passkeys never count.
        verified = await verifyAuthenticationResponse({
          response,
          expectedChallenge: challenge,
          expectedOrigin: this.origin,
          expectedRPID: RP_ID,
          requireUserVerification: true,
          credential: verifiableCredential<AuthenticatorTransport>(credential),
        });
      } catch (error) {
        throw new ConnectorError("assertion_invalid", messageOf(error));
      }
      if (!verified.verified) throw new ConnectorError("assertion_invalid", "the assertion did not verify");
      const next = withCounter(this.#credentials, credential.id, verified.authenticationInfo.newCounter);
      if (next !== undefined) {
        await saveCredentials(this.#options.path, next);
        this.#credentials = next;
      }
      return credential.id;
    });
  }

  remove(id: string): Promise<boolean> {
    return this.#serial(async () => {
      const next = this.#credentials.filter((credential) => credential.id !== id);
      if (next.length === this.#credentials.length) return false;
      await saveCredentials(this.#options.path, next);
      this.#credentials = next;
      return true;
    });
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    return this.#writes.run(work);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : "verification failed";
}

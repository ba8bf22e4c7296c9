/**
 * @module Who may register a passkey. The first one needs the one-time enrollment code the gate
 * printed on its own terminal (nothing that reaches the page remotely has it); every further one,
 * and every removal, needs an assertion with an existing passkey (a step-up ticket).
 */
import { randomBytes } from "node:crypto";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { type Clock, ConnectorError } from "@t3-connector/core";
import { EnrollmentCode } from "@t3-connector/core/passkeys";
import { OneTimeBook } from "./one-time.js";
import type { PasskeyInfo, Passkeys } from "./passkeys.js";

export const CEREMONY_TTL_MS = 120_000;
const MAX_PENDING_CEREMONIES = 8;

/** A passkey's name: what the person typed, trimmed, 1 to 64 characters. */
export const PASSKEY_NAME_MAX_CHARS = 64;

interface PendingRegistration {
  readonly challenge: string;
  /** The code that opened it, when it was the first passkey. */
  readonly code: string | null;
  readonly name?: string;
}

interface StepUpTicket {
  readonly purpose: string;
  readonly challenge: string;
}

export class Enrollment {
  readonly #passkeys: Passkeys;
  readonly #code: EnrollmentCode;
  readonly #registrations: OneTimeBook<PendingRegistration>;
  readonly #tickets: OneTimeBook<StepUpTicket>;
  /** `gate --enroll`: the person at the gate's terminal may add a passkey with the code alone. */
  readonly #codeAddsPasskey: boolean;

  constructor(options: {
    passkeys: Passkeys;
    code: EnrollmentCode;
    clock: Clock;
    codeAddsPasskey?: boolean;
  }) {
    this.#passkeys = options.passkeys;
    this.#code = options.code;
    this.#codeAddsPasskey = options.codeAddsPasskey === true;
    const book = { clock: options.clock, ttlMs: CEREMONY_TTL_MS, max: MAX_PENDING_CEREMONIES };
    this.#registrations = new OneTimeBook(book);
    this.#tickets = new OneTimeBook(book);
  }

  /** The gate's enrollment: the printed code (kept as a hash), and whether `--enroll` was given. */
  static withCode(passkeys: Passkeys, code: string, clock: Clock, codeAddsPasskey: boolean): Enrollment {
    return new Enrollment({ passkeys, code: new EnrollmentCode(code), clock, codeAddsPasskey });
  }

  /**
   * Whether the printed code would register a passkey now: while none is enrolled, or under
   * `gate --enroll` (the way back after losing every passkey), until the code is used.
   */
  codeAccepted(): boolean {
    return !this.#code.used && (!this.#passkeys.hasAny() || this.#codeAddsPasskey);
  }

  /** Assertion options for a step-up (`enroll` or `remove:<credentialId>`). */
  async stepUpOptions(
    purpose: string,
  ): Promise<{ ticketId: string; options: PublicKeyCredentialRequestOptionsJSON }> {
    if (!this.#passkeys.hasAny()) throw new ConnectorError("step_up_invalid", "no passkey is enrolled yet");
    const bytes = randomBytes(32);
    const options = await this.#passkeys.authenticationOptions(bytes);
    const ticketId = this.#tickets.add({ purpose, challenge: options.challenge });
    if (ticketId === null) throw new ConnectorError("too_many_requests", "too many pending ceremonies");
    return { ticketId, options };
  }

  /** Consumes the ticket, then verifies the assertion; answers the credential that stepped up. */
  async redeemStepUp(
    ticketId: string,
    purpose: string,
    response: AuthenticationResponseJSON,
  ): Promise<string> {
    const ticket = this.#tickets.take(ticketId);
    if (ticket === undefined || ticket.purpose !== purpose) {
      throw new ConnectorError(
        "step_up_invalid",
        "the step-up ticket is unknown, used, expired or for another purpose",
      );
    }
    return this.#passkeys.verifyAuthentication(response, ticket.challenge);
  }

  /** Registration options: with the code for the first passkey, after a step-up for the others. */
  async begin(input: {
    code?: string | undefined;
    stepUp?: { ticketId: string; response: AuthenticationResponseJSON } | undefined;
    /** Stored with the credential and listed on the page. */
    name?: string | undefined;
  }): Promise<{ registrationId: string; options: PublicKeyCredentialCreationOptionsJSON }> {
    let code: string | null = null;
    const byCode = this.#codeAddsPasskey && input.code !== undefined && input.code !== "";
    if (!this.#passkeys.hasAny() || byCode) {
      if (input.code === undefined || input.code === "") {
        throw new ConnectorError("enrollment_code_required", "the first passkey needs the enrollment code");
      }
      if (!this.#code.matches(input.code)) {
        throw new ConnectorError("enrollment_code_invalid", "the enrollment code is wrong or was used");
      }
      code = input.code;
    } else {
      if (input.stepUp === undefined) {
        throw new ConnectorError(
          "step_up_required",
          "another passkey needs an approval with an existing one",
        );
      }
      await this.redeemStepUp(input.stepUp.ticketId, "enroll", input.stepUp.response);
    }
    const options = await this.#passkeys.registrationOptions();
    const registrationId = this.#registrations.add({
      challenge: options.challenge,
      code,
      ...(input.name === undefined ? {} : { name: input.name }),
    });
    if (registrationId === null) throw new ConnectorError("too_many_requests", "too many pending ceremonies");
    return { registrationId, options };
  }

  /** Consumes the registration (and the code) before verifying, so neither serves twice. */
  async finish(registrationId: string, response: RegistrationResponseJSON): Promise<PasskeyInfo> {
    const pending = this.#registrations.take(registrationId);
    if (pending === undefined)
      throw new ConnectorError("registration_unknown", "unknown or expired registration");
    if (pending.code !== null) {
      if ((this.#passkeys.hasAny() && !this.#codeAddsPasskey) || !this.#code.consume(pending.code)) {
        throw new ConnectorError("enrollment_code_invalid", "the enrollment code was used");
      }
    }
    return this.#passkeys.verifyRegistration(response, pending.challenge, pending.name);
  }
}

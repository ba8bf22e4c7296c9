/**
 * @module The one-time code that enrolls the first passkey. Printed on the server's terminal
 * (stderr) while no passkey is enrolled: only whoever runs the server sees it, nothing that
 * reaches the page from outside has it. Kept as a hash, usable once.
 */
import { randomBytes } from "node:crypto";
import { sameSecret, secretHash } from "../tokens/secrets.js";

/** 16 characters from an unambiguous alphabet (about 78 bits), grouped by 4. */
export function generateEnrollmentCode(): string {
  const alphabet = "ABCDEFGHJKMNPQRSTVWXYZ23456789";
  let code = "";
  for (const byte of randomBytes(16)) code += alphabet[byte % alphabet.length];
  return `${code.slice(0, 4)}-${code.slice(4, 8)}-${code.slice(8, 12)}-${code.slice(12)}`;
}

export class EnrollmentCode {
  readonly #hash: string;
  #used = false;

  constructor(code: string) {
    this.#hash = secretHash(normalize(code));
  }

  matches(code: string): boolean {
    return !this.#used && sameSecret(secretHash(normalize(code)), this.#hash);
  }

  /** Marks it used; false when it was used already or does not match. */
  consume(code: string): boolean {
    if (!this.matches(code)) return false;
    this.#used = true;
    return true;
  }
}

function normalize(code: string): string {
  return code.trim().toUpperCase();
}
